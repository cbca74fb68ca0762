package tool

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"unicode/utf8"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
)

// Done is the text sent to the model for a tool that has no result: a method without a result
// value, a Func whose Out is struct{}, or a handler that returns nil.
const Done = "Done"

// ResultConverter turns what a tool returned into the text sent back to the model, like Spring
// AI's ToolCallResultConverter. It must be safe for concurrent use.
type ResultConverter interface {
	ConvertResult(ctx context.Context, result any) (string, error)
}

// ConverterFunc adapts a function to [ResultConverter].
type ConverterFunc func(ctx context.Context, result any) (string, error)

// ConvertResult calls f.
func (f ConverterFunc) ConvertResult(ctx context.Context, result any) (string, error) {
	return f(ctx, result)
}

// DefaultConverter is the converter tools use unless given another with [WithConverter]; custom
// converters can delegate to it with DefaultConverter{}.ConvertResult:
//   - a string is sent as is, and so is a json.RawMessage (it already is JSON);
//   - a []byte is sent as text when it is valid UTF-8 (a tool returning bytes returns file
//     contents, rendered output and the like, and the base64 string JSON would make of them is
//     useless to a model); other bytes are sent as a base64 JSON string, the only lossless text;
//   - nil and struct{} are "no result" and sent as [Done];
//   - anything else is sent as JSON (durations as "1h30m", map keys sorted, HTML not escaped).
type DefaultConverter struct{}

// ConvertResult converts result as described on [DefaultConverter].
func (DefaultConverter) ConvertResult(_ context.Context, result any) (string, error) {
	return convertAny(result)
}

func convertAny(result any) (string, error) {
	switch r := result.(type) {
	case nil:
		return Done, nil
	case string:
		return r, nil
	case json.RawMessage:
		return string(r), nil
	case []byte:
		return convertBytes(r), nil
	}
	v := reflect.ValueOf(result)
	switch resultKindOf(v.Type()) {
	case resultString:
		return v.String(), nil
	case resultNone:
		return Done, nil
	}
	return marshalResult(result, encodeOptions)
}

func convertBytes(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return `"` + base64.StdEncoding.EncodeToString(b) + `"`
}

func marshalResult(v any, opts jsonv2.Options) (string, error) {
	b, err := jsonv2.Marshal(v, opts)
	if err != nil {
		return "", fmt.Errorf("tool: encoding result: %w", err)
	}
	if len(b) == 0 {
		return "", nil
	}
	// b is ours alone: share its memory instead of copying it into a string.
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}

// resultKind says how the default converter handles a static result type, so typed tools can
// skip boxing the result.
type resultKind uint8

const (
	resultJSON resultKind = iota
	resultString
	resultRaw
	resultBytes
	resultNone
	resultAny // an interface type: decided per value
)

func resultKindOf(t reflect.Type) resultKind {
	switch {
	case t.Kind() == reflect.Interface:
		return resultAny
	case t == rawMessageType:
		return resultRaw
	case t == byteSliceType:
		return resultBytes
	case t.Kind() == reflect.Struct && t.NumField() == 0:
		return resultNone
	case t.Kind() == reflect.String && !hasCustomJSON(t) && !hasCustomText(t):
		return resultString
	}
	return resultJSON
}
