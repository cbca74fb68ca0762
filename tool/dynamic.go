package tool

import (
	"bytes"
	"context"
	"fmt"
	"reflect"

	"github.com/wield-ai/wield/internal/schema"
)

// Handler runs a tool built with [New]: args are the model's arguments, already validated
// against the tool's schema and with defaults filled in (numbers are float64, as with
// encoding/json). The result is converted like a [Func] result (a [Result] or parts keep their
// images and documents).
type Handler func(ctx context.Context, args map[string]any) (any, error)

// New returns a tool with the definition def, for tools known only at run time: tools of MCP
// servers, tools loaded from configuration, placeholder tools standing in for others.
// def.InputSchema is a JSON Schema (2020-12 or draft-07) of an object; empty means any object.
// Arguments are validated against it before handler runs, as for [Func].
func New(def Definition, handler Handler, opts ...NewOption) (Tool, error) {
	if err := checkName(def.Name); err != nil {
		return nil, err
	}
	if handler == nil {
		return nil, fmt.Errorf("tool %q: nil handler", def.Name)
	}
	var cfg config
	for _, o := range opts {
		if o != nil {
			o.applyNew(&cfg)
		}
	}
	if err := cfg.err(); err != nil {
		return nil, fmt.Errorf("tool %q: %w", def.Name, err)
	}
	if len(bytes.TrimSpace(def.InputSchema)) == 0 {
		def.InputSchema = []byte(`{"type":"object"}`)
	}
	in, err := newInput(mapType, def.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", def.Name, err)
	}
	def.InputSchema = bytes.Clone(def.InputSchema)
	def.OutputSchema = bytes.Clone(def.OutputSchema)
	return &dynamicTool{described: described{def, cfg.metadata()}, handler: handler, in: in, out: newResult(anyType, cfg.converter)}, nil
}

var (
	mapType = reflect.TypeFor[map[string]any]()
	anyType = reflect.TypeFor[any]()
)

type dynamicTool struct {
	described
	handler Handler
	in      *schema.Codec
	out     *result
}

func (t *dynamicTool) Call(ctx context.Context, args string) (string, error) {
	r, err := t.CallParts(ctx, args)
	return r.String(), err
}

// CallParts runs the handler and converts its result, keeping any parts it holds.
func (t *dynamicTool) CallParts(ctx context.Context, args string) (Result, error) {
	var m map[string]any
	if err := t.in.Decode(args, &m); err != nil {
		return Result{}, err
	}
	if m == nil {
		// A schema without "type" lets null through; the handler still gets a map.
		m = map[string]any{}
	}
	out, err := t.handler(ctx, m)
	if err != nil {
		return Result{}, err
	}
	return t.out.convert(ctx, out)
}

// ValidatesArguments marks the tool as one that validates its own arguments.
func (t *dynamicTool) ValidatesArguments(schema.Private) {}
