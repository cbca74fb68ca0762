package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wield-ai/wield/internal/schema"
)

// Func returns a tool that calls fn, like Spring AI's FunctionToolCallback:
//
//	weather, err := tool.Func("currentWeather", "Get the weather in location", getWeather)
//
// In describes the arguments: a struct (or a pointer to one) whose fields are the parameters,
// struct{} for none, or a map with string keys for free-form ones; its JSON Schema is inferred
// as [SchemaOf] describes. With [WithInputSchema], the given schema is used instead and In may
// be any type the arguments decode into.
//
// Each call validates the model's arguments against the schema (blank arguments count as {}),
// fills in defaults, decodes them into In and runs fn; problems with the arguments come back
// as an [*ArgumentError] whose text tells the model what to fix, and fn is not called. The
// result becomes text through [DefaultConverter] or the [WithConverter] option. Call it
// through [Invoke] for its timeout and panic recovery.
func Func[In, Out any](name, description string, fn func(context.Context, In) (Out, error), opts ...FuncOption) (Tool, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, fmt.Errorf("tool %q: nil function", name)
	}
	var cfg funcConfig
	for _, o := range opts {
		if o != nil {
			o.applyFunc(&cfg)
		}
	}
	if err := cfg.err(); err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	outType := reflect.TypeFor[Out]()
	in, err := newInput(reflect.TypeFor[In](), cfg.inputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	def := Definition{Name: name, Description: description, InputSchema: bytes.Clone(in.Schema())}
	if cfg.converter == nil {
		// A converter decides the result's text; the JSON form of Out no longer describes it.
		def.OutputSchema = outputSchema(outType)
	}
	return &funcTool[In, Out]{
		described: described{def, cfg.metadata()},
		fn:        fn,
		in:        in,
		out:       newResult(outType, cfg.converter),
	}, nil
}

// newInput returns how a tool of input type t reads its arguments: against t's inferred schema,
// or against an explicit one.
func newInput(t reflect.Type, explicit json.RawMessage) (*schema.Codec, error) {
	if explicit != nil {
		v, err := schema.Compile(explicit)
		if err != nil {
			return nil, err
		}
		if err := checkObjectType(v.Schema()); err != nil {
			return nil, err
		}
		return schema.Explicit(t, v, explicit)
	}
	switch et := derefType(t); {
	case et.Kind() == reflect.Struct && !isLeafType(et):
	case et.Kind() == reflect.Map && et.Key().Kind() == reflect.String:
	default:
		return nil, fmt.Errorf("input type %v is not a struct or a map with string keys; "+
			"tool arguments are a JSON object (use WithInputSchema for other types)", t)
	}
	return schema.For(t)
}

func checkObjectType(s *jsonschema.Schema) error {
	switch {
	case s.Type != "" && s.Type != "object",
		s.Types != nil && !(len(s.Types) == 1 && s.Types[0] == "object"):
		return errors.New(`the input schema must describe an object ("type": "object"): tool arguments are a JSON object`)
	}
	return nil
}

// outputSchema describes a struct or map result for those that advertise it (MCP servers);
// other results, and types that cannot be described, have none.
func outputSchema(t reflect.Type) json.RawMessage {
	if resultKindOf(t) == resultParts {
		return nil
	}
	et := derefType(t)
	if (et.Kind() != reflect.Struct || et.NumField() == 0 || isLeafType(et)) && et.Kind() != reflect.Map {
		return nil
	}
	c, err := schema.For(t)
	if err != nil {
		return nil
	}
	return bytes.Clone(c.Schema())
}

// described is what each kind of tool this package builds says of itself.
type described struct {
	def  Definition
	meta Metadata
}

func (d *described) Definition() Definition { return d.def }
func (d *described) Metadata() Metadata     { return d.meta }

type funcTool[In, Out any] struct {
	described
	fn  func(context.Context, In) (Out, error)
	in  *schema.Codec
	out *result
	// The values arguments are decoded into and results encoded from, reused: through the
	// codec's reflection they would escape, and a call would allocate both.
	ins, outs sync.Pool
}

func (t *funcTool[In, Out]) Call(ctx context.Context, args string) (string, error) {
	r, err := t.CallParts(ctx, args)
	return r.String(), err
}

// CallParts runs the function and converts its result, keeping any parts it holds.
func (t *funcTool[In, Out]) CallParts(ctx context.Context, args string) (Result, error) {
	p, _ := t.ins.Get().(*In)
	if p == nil {
		p = new(In)
	}
	err := t.in.Decode(args, p)
	in := *p
	*p = *new(In) // nothing of this call stays reachable from the pool
	t.ins.Put(p)
	if err != nil {
		return Result{}, err
	}
	out, err := t.fn(ctx, in)
	if err != nil {
		return Result{}, err
	}
	return convertTyped(ctx, t.out, out, &t.outs)
}

// ValidatesArguments marks the tool as one that validates its own arguments.
func (t *funcTool[In, Out]) ValidatesArguments(schema.Private) {}
