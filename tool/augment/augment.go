package augment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/wield-ai/wield/internal/schema"
	"github.com/wield-ai/wield/tool"
)

// Event is what the consumer learns of one call of an augmented tool.
type Event[T any] struct {
	// Definition is the augmented tool's definition: what the model was shown.
	Definition tool.Definition
	// RawInput is the model's arguments as it sent them, extra fields included.
	RawInput string
	// Args holds the extra fields, decoded.
	Args T
}

// Consumer receives the extra arguments of each call before the tool runs. It runs on the
// goroutine of the call, possibly in parallel with other calls, so it must be safe for
// concurrent use. An error stops the call: the tool does not run and the model reads the error,
// so a consumer can also enforce a policy ("state your reasoning").
type Consumer[T any] func(ctx context.Context, e Event[T]) error

// Option configures augmentation.
type Option func(*config)

type config struct {
	keep bool
}

// KeepExtraArguments passes the extra arguments on to the wrapped tool instead of removing them,
// for tools that read them too or accept unknown arguments. A tool whose schema forbids
// additional properties will then reject its calls.
func KeepExtraArguments() Option { return func(c *config) { c.keep = true } }

// Tools wraps each tool so that its input schema gains T's fields; when the model calls it, the
// extra arguments are decoded into a T and passed to consumer, then removed before the tool runs.
//
// T must be a struct. A field of T with the same JSON name as one of a tool's parameters is an
// error naming both, since the model could not tell them apart.
func Tools[T any](tools []tool.Tool, consumer Consumer[T], opts ...Option) ([]tool.Tool, error) {
	aug, err := newAugmenter[T](consumer, opts)
	if err != nil {
		return nil, err
	}
	return aug.wrapAll(tools)
}

// Tool wraps one tool; see [Tools].
func Tool[T any](t tool.Tool, consumer Consumer[T], opts ...Option) (tool.Tool, error) {
	aug, err := newAugmenter[T](consumer, opts)
	if err != nil {
		return nil, err
	}
	return aug.wrap(t)
}

// Provider wraps the tools of p each time they are listed, for tools that come and go, such as an
// MCP server's; see [Tools].
func Provider[T any](p tool.Provider, consumer Consumer[T], opts ...Option) (tool.Provider, error) {
	aug, err := newAugmenter[T](consumer, opts)
	if err != nil {
		return nil, err
	}
	return tool.ProviderFunc(func(ctx context.Context) ([]tool.Tool, error) {
		tools, err := p.Tools(ctx)
		if err != nil {
			return nil, err
		}
		return aug.wrapAll(tools)
	}), nil
}

// augmenter holds what is known of T once for all the tools it wraps.
type augmenter[T any] struct {
	cfg      config
	consumer Consumer[T]
	codec    *schema.Codec
	schema   object // T's schema
	fields   []string
}

func newAugmenter[T any](consumer Consumer[T], opts []Option) (*augmenter[T], error) {
	if consumer == nil {
		return nil, errors.New("augment: nil consumer")
	}
	var zero T
	codec, err := schema.For(reflect.TypeFor[T]())
	if err != nil {
		return nil, fmt.Errorf("augment: %w", err)
	}
	raw := codec.Schema()
	obj, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("augment: schema of %T: %w", zero, err)
	}
	if typ, _ := obj.get("type"); typ != `"object"` {
		return nil, fmt.Errorf("augment: %T must be a struct type, its schema is not an object", zero)
	}
	if bytes.Contains(raw, []byte(`"$ref":"#"`)) {
		return nil, fmt.Errorf("augment: %T refers to itself; a recursive type cannot be merged into other schemas", zero)
	}
	props, _ := obj.get("properties")
	fields, err := parseObject([]byte(props))
	if err != nil || len(fields) == 0 {
		return nil, fmt.Errorf("augment: %T has no fields to add", zero)
	}
	if _, err := codec.Validator(); err != nil {
		return nil, fmt.Errorf("augment: schema of %T: %w", zero, err)
	}
	a := &augmenter[T]{consumer: consumer, codec: codec, schema: obj}
	for _, f := range fields {
		a.fields = append(a.fields, f.Key)
	}
	for _, o := range opts {
		o(&a.cfg)
	}
	return a, nil
}

// wrapAll wraps each of tools.
func (a *augmenter[T]) wrapAll(tools []tool.Tool) ([]tool.Tool, error) {
	out := make([]tool.Tool, len(tools))
	for i, t := range tools {
		var err error
		if out[i], err = a.wrap(t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// wrap returns t with T's fields added to its schema.
func (a *augmenter[T]) wrap(t tool.Tool) (tool.Tool, error) {
	if t == nil {
		return nil, errors.New("augment: nil tool")
	}
	def := t.Definition()
	merged, err := a.merge(def)
	if err != nil {
		return nil, err
	}
	aug := def
	aug.InputSchema = merged
	w := &augmented[T]{inner: t, def: aug, aug: a}
	if _, ok := t.(schema.SelfValidating); ok {
		// Both halves of the arguments are validated by the time the wrapped tool runs.
		return validatingAugmented[T]{w}, nil
	}
	return w, nil
}

// validatingAugmented wraps a tool that validates its arguments itself.
type validatingAugmented[T any] struct{ *augmented[T] }

// ValidatesArguments marks the tool as one that validates its own arguments.
func (validatingAugmented[T]) ValidatesArguments(schema.Private) {}

// merge returns def's input schema with T's properties first, T's required fields added and
// T's $defs merged.
func (a *augmenter[T]) merge(def tool.Definition) (json.RawMessage, error) {
	var zero T
	orig := object{{Key: "type", Value: `"object"`}}
	if s := bytes.TrimSpace(def.InputSchema); len(s) > 0 && string(s) != "true" && string(s) != "{}" {
		var err error
		if orig, err = parseObject(s); err != nil {
			return nil, fmt.Errorf("augment: tool %q: input schema: %w", def.Name, err)
		}
		if typ, ok := orig.get("type"); ok && typ != `"object"` {
			return nil, fmt.Errorf("augment: tool %q: input schema is not an object", def.Name)
		}
	}

	origProps := object{}
	if raw, ok := orig.get("properties"); ok {
		var err error
		if origProps, err = parseObject([]byte(raw)); err != nil {
			return nil, fmt.Errorf("augment: tool %q: properties: %w", def.Name, err)
		}
	}
	addProps, _ := a.schema.get("properties")
	add, _ := parseObject([]byte(addProps))
	for _, f := range add {
		if _, clash := origProps.get(f.Key); clash {
			return nil, fmt.Errorf("augment: tool %q already has a parameter %q, which %T adds too; rename the field of %T",
				def.Name, f.Key, zero, zero)
		}
	}
	props := append(slices.Clip(add), origProps...)

	var required []string
	if raw, ok := orig.get("required"); ok {
		if err := json.Unmarshal([]byte(raw), &required); err != nil {
			return nil, fmt.Errorf("augment: tool %q: required: %w", def.Name, err)
		}
	}
	var addRequired []string
	if raw, ok := a.schema.get("required"); ok {
		_ = json.Unmarshal([]byte(raw), &addRequired)
	}
	required = append(addRequired, required...)

	out := orig.set("properties", props.marshal())
	if len(required) > 0 {
		r, _ := json.Marshal(required)
		out = out.set("required", string(r))
	}
	if raw, ok := a.schema.get("$defs"); ok {
		defs, _ := parseObject([]byte(raw))
		have := object{}
		if raw, ok := orig.get("$defs"); ok {
			var err error
			if have, err = parseObject([]byte(raw)); err != nil {
				return nil, fmt.Errorf("augment: tool %q: $defs: %w", def.Name, err)
			}
		}
		for _, d := range defs {
			if _, clash := have.get(d.Key); clash {
				return nil, fmt.Errorf("augment: tool %q: its schema and %T both define %q in $defs", def.Name, zero, d.Key)
			}
		}
		out = out.set("$defs", append(have, defs...).marshal())
	}
	return json.RawMessage(out.marshal()), nil
}

// augmented is a tool wrapped by an augmenter.
type augmented[T any] struct {
	inner tool.Tool
	def   tool.Definition
	aug   *augmenter[T]
}

func (t *augmented[T]) Definition() tool.Definition { return t.def }

// Metadata is the wrapped tool's: return-direct, timeout and sequential carry over.
func (t *augmented[T]) Metadata() tool.Metadata { return t.inner.Metadata() }

// Unwrap returns the wrapped tool.
func (t *augmented[T]) Unwrap() tool.Tool { return t.inner }

// Call splits the extra arguments off, reads them as a T (validated against T's schema, with
// T's defaults and decoding rules), hands them to the consumer and calls the wrapped tool with
// the rest.
func (t *augmented[T]) Call(ctx context.Context, args string) (string, error) {
	forward, err := t.consume(ctx, args)
	if err != nil {
		return "", err
	}
	return t.inner.Call(ctx, forward)
}

// CallParts is Call for callers that take parts (tool.Invoke): the images and documents the
// wrapped tool returns are kept.
func (t *augmented[T]) CallParts(ctx context.Context, args string) (tool.Result, error) {
	forward, err := t.consume(ctx, args)
	if err != nil {
		return tool.Result{}, err
	}
	if pt, ok := t.inner.(tool.PartsTool); ok {
		return pt.CallParts(ctx, forward)
	}
	text, err := t.inner.Call(ctx, forward)
	return tool.Result{Text: text}, err
}

// consume hands the extra arguments to the consumer and returns the arguments for the wrapped
// tool.
func (t *augmented[T]) consume(ctx context.Context, args string) (string, error) {
	a := t.aug
	members, err := schema.Members(args)
	if err != nil {
		return "", err
	}
	extra, rest := make(object, 0, len(a.fields)), make(object, 0, len(members))
	for _, m := range members {
		if slices.Contains(a.fields, m.Key) {
			extra = append(extra, m)
		} else {
			rest = append(rest, m)
		}
	}
	var v T
	if err := a.codec.Decode(extra.marshal(), &v); err != nil {
		return "", err
	}
	if err := a.consumer(ctx, Event[T]{Definition: t.def, RawInput: args, Args: v}); err != nil {
		return "", err
	}
	if !a.cfg.keep && len(extra) > 0 {
		return rest.marshal(), nil
	}
	return args, nil
}

// object is a JSON object as its members in order, keys and values as written: schemas keep
// the order their authors gave properties, which models read.
type object []schema.Member

// parseObject reads a JSON object into its members.
func parseObject(data []byte) (object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("not a JSON object")
	}
	m, err := schema.Members(string(data))
	return object(m), err
}

func (o object) get(key string) (string, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return "", false
}

// set returns o with key set to val, in place if present, else appended.
func (o object) set(key, val string) object {
	out := slices.Clone(o)
	for i := range out {
		if out[i].Key == key {
			out[i].Value = val
			return out
		}
	}
	return append(out, schema.Member{Key: key, Value: val})
}

func (o object) marshal() string {
	return string(schema.AppendObject(nil, o))
}
