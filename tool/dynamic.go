package tool

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/google/jsonschema-go/jsonschema"
)

// Handler runs a tool built with [New]: args are the model's arguments, already validated
// against the tool's schema and with defaults filled in (numbers are float64, as with
// encoding/json). The result is converted to text like a [Func] result.
type Handler func(ctx context.Context, args map[string]any) (any, error)

// New returns a tool with the definition def, for tools known only at run time: tools of MCP
// servers, tools loaded from configuration, placeholder tools standing in for others.
// def.InputSchema is a JSON Schema (2020-12 or draft-07) of an object; empty means any object.
// Arguments are validated against it before handler runs, as for [Func].
func New(def Definition, handler Handler, opts ...Option) (Tool, error) {
	if err := checkName(def.Name); err != nil {
		return nil, err
	}
	if handler == nil {
		return nil, fmt.Errorf("tool %q: nil handler", def.Name)
	}
	cfg, err := buildConfig(opts)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", def.Name, err)
	}
	if cfg.inputSchema != nil {
		return nil, fmt.Errorf("tool %q: WithInputSchema does not apply to New; set the definition's InputSchema", def.Name)
	}
	if len(bytes.TrimSpace(def.InputSchema)) == 0 {
		def.InputSchema = []byte(`{"type":"object"}`)
	}
	v, err := CompileSchema(def.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", def.Name, err)
	}
	if err := checkObjectType(v.schema); err != nil {
		return nil, fmt.Errorf("tool %q: %w", def.Name, err)
	}
	def.InputSchema = bytes.Clone(def.InputSchema)
	def.OutputSchema = bytes.Clone(def.OutputSchema)
	return &dynamicTool{def: def, meta: cfg.metadata(), handler: handler, validator: v, converter: cfg.converter}, nil
}

func checkObjectType(s *jsonschema.Schema) error {
	switch {
	case s.Type != "" && s.Type != "object",
		s.Types != nil && !(len(s.Types) == 1 && s.Types[0] == "object"):
		return errors.New(`the input schema must describe an object ("type": "object"): tool arguments are a JSON object`)
	}
	return nil
}

type dynamicTool struct {
	def       Definition
	meta      Metadata
	handler   Handler
	validator *Validator
	converter ResultConverter
}

func (t *dynamicTool) Definition() Definition { return t.def }
func (t *dynamicTool) Metadata() Metadata     { return t.meta }

func (t *dynamicTool) Call(ctx context.Context, args string) (string, error) {
	data, err := t.validator.Prepare(stringBytes(args))
	if err != nil {
		return "", err
	}
	var m map[string]any
	if err := jsonv2.Unmarshal(data, &m); err != nil {
		return "", decodeError(err)
	}
	if m == nil {
		// A schema without "type" lets null through; the handler still gets a map.
		m = map[string]any{}
	}
	callCtx, cancel := withTimeout(ctx, t.meta.Timeout)
	out, err := t.handler(callCtx, m)
	cancel()
	if err != nil {
		return "", timeoutError(callCtx, t.meta.Timeout, err)
	}
	if t.converter != nil {
		return t.converter.ConvertResult(ctx, out)
	}
	return convertAny(out)
}
