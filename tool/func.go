package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
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
// result becomes text through [DefaultConverter] or the [WithConverter] option.
func Func[In, Out any](name, description string, fn func(context.Context, In) (Out, error), opts ...Option) (Tool, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, fmt.Errorf("tool %q: nil function", name)
	}
	cfg, err := buildConfig(opts)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	inType, outType := reflect.TypeFor[In](), reflect.TypeFor[Out]()
	in, err := newInput(inType, cfg.inputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	def := Definition{Name: name, Description: description, InputSchema: in.schema}
	if cfg.converter == nil {
		// A converter decides the result's text; the JSON form of Out no longer describes it.
		def.OutputSchema = outputSchema(outType)
	}
	t := &funcTool[In, Out]{
		def:       def,
		meta:      cfg.metadata(),
		fn:        fn,
		input:     in,
		converter: cfg.converter,
		outKind:   resultKindOf(outType),
		encode:    encodeOptionsFor(outType),
	}
	return t, nil
}

// input is how a tool reads its arguments.
type input struct {
	schema    json.RawMessage
	validator *Validator
	decode    []jsonv2.Options
	none      bool // no parameters: nothing to decode
}

func newInput(t reflect.Type, explicit json.RawMessage) (*input, error) {
	in := &input{}
	if explicit != nil {
		v, err := CompileSchema(explicit)
		if err != nil {
			return nil, err
		}
		if err := checkObjectType(v.schema); err != nil {
			return nil, err
		}
		in.schema, in.validator = bytes.Clone(explicit), v
	} else {
		if t == nil {
			t = reflect.TypeFor[struct{}]()
		}
		switch et := derefType(t); {
		case et.Kind() == reflect.Struct && !isLeafType(et):
		case et.Kind() == reflect.Map && et.Key().Kind() == reflect.String:
		default:
			return nil, fmt.Errorf("input type %v is not a struct or a map with string keys; "+
				"tool arguments are a JSON object (use WithInputSchema for other types)", t)
		}
		inf := inferCached(t)
		if inf.err != nil {
			return nil, inf.err
		}
		v, err := compileSchema(inf.schema.CloneSchemas())
		if err != nil {
			return nil, err
		}
		in.schema, in.validator = bytes.Clone(inf.raw), v
	}
	if t != nil {
		in.decode = decodeOptions(t)
		// Nothing to decode into a struct without JSON fields (the v2 codec rejects those).
		in.none = derefType(t).Kind() == reflect.Struct && len(jsonFields(derefType(t))) == 0
	}
	return in, nil
}

// read validates and decodes args into dst.
func (in *input) read(args string, dst any) error {
	data, err := in.validator.Prepare(stringBytes(args))
	if err != nil {
		return err
	}
	if in.none {
		return nil
	}
	if err := jsonv2.Unmarshal(data, dst, in.decode...); err != nil {
		return decodeError(err)
	}
	return nil
}

// stringBytes views s as bytes without copying; the bytes must not be modified.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// outputSchema describes a struct or map result for those that advertise it (MCP servers);
// other results, and types that cannot be described, have none.
func outputSchema(t reflect.Type) json.RawMessage {
	et := derefType(t)
	if (et.Kind() != reflect.Struct || et.NumField() == 0 || isLeafType(et)) && et.Kind() != reflect.Map {
		return nil
	}
	inf := inferCached(t)
	if inf.err != nil {
		return nil
	}
	return bytes.Clone(inf.raw)
}

type funcTool[In, Out any] struct {
	def       Definition
	meta      Metadata
	fn        func(context.Context, In) (Out, error)
	input     *input
	converter ResultConverter
	outKind   resultKind
	encode    jsonv2.Options
}

func (t *funcTool[In, Out]) Definition() Definition { return t.def }
func (t *funcTool[In, Out]) Metadata() Metadata     { return t.meta }

func (t *funcTool[In, Out]) Call(ctx context.Context, args string) (string, error) {
	var in In
	if err := t.input.read(args, &in); err != nil {
		return "", err
	}
	callCtx, cancel := withTimeout(ctx, t.meta.Timeout)
	out, err := t.fn(callCtx, in)
	cancel()
	if err != nil {
		return "", timeoutError(callCtx, t.meta.Timeout, err)
	}
	if t.converter != nil {
		return t.converter.ConvertResult(ctx, out)
	}
	// The default conversion without boxing out: its kind was found when the tool was built.
	p := unsafe.Pointer(&out)
	switch t.outKind {
	case resultString:
		return *(*string)(p), nil
	case resultRaw:
		return string(*(*json.RawMessage)(p)), nil
	case resultBytes:
		return convertBytes(*(*[]byte)(p)), nil
	case resultNone:
		return Done, nil
	case resultAny:
		return convertAny(any(out))
	}
	return marshalResult(&out, t.encode)
}

func noCancel() {}

func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, noCancel
	}
	return context.WithTimeout(ctx, d)
}

// timeoutError says so when the tool's own timeout ended the call.
func timeoutError(ctx context.Context, d time.Duration, err error) error {
	if d > 0 && errors.Is(err, context.DeadlineExceeded) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %v: %w", d, err)
	}
	return err
}
