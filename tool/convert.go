package tool

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"unicode/utf8"

	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/schema"
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
//   - a [Result], a [content.Part] or a []content.Part is sent as parts, so a tool can return an
//     image, a document or audio beside its text (models that cannot take media in tool results
//     get what their provider documents instead);
//   - anything else is sent as JSON (durations as "1h30m", map keys sorted, HTML not escaped).
type DefaultConverter struct{}

// ConvertResult converts result as described on [DefaultConverter].
func (DefaultConverter) ConvertResult(_ context.Context, result any) (string, error) {
	return convertAny(result)
}

// result is how a tool turns what it returned into the text sent to the model: the one place
// results are encoded.
type result struct {
	converter ResultConverter
	kind      resultKind
	enc       *schema.Encoder
}

func newResult(t reflect.Type, rc ResultConverter) *result {
	r := &result{converter: rc}
	if t != nil {
		r.kind = resultKindOf(t)
		r.enc = schema.EncoderFor(t)
	} else {
		r.kind = resultNone
	}
	return r
}

// convert converts a result held in an interface (nil for a tool without one).
func (r *result) convert(ctx context.Context, v any) (Result, error) {
	if r.converter != nil {
		text, err := r.converter.ConvertResult(ctx, v)
		return Result{Text: text}, err
	}
	if r.kind == resultNone {
		return Result{Text: Done}, nil
	}
	return convertAnyResult(v)
}

// convertTyped converts a typed result; the kind of Out, found when the tool was built, spares
// the common results a type switch. boxes, if not nil, holds *Out values to encode from.
func convertTyped[Out any](ctx context.Context, r *result, out Out, boxes *sync.Pool) (Result, error) {
	if r.converter != nil {
		text, err := r.converter.ConvertResult(ctx, out)
		return Result{Text: text}, err
	}
	switch r.kind {
	case resultString:
		if s, ok := any(out).(string); ok {
			return Result{Text: s}, nil
		}
		return Result{Text: reflect.ValueOf(out).String()}, nil // a named string type
	case resultRaw:
		return Result{Text: string(any(out).(json.RawMessage))}, nil
	case resultBytes:
		return Result{Text: convertBytes(any(out).([]byte))}, nil
	case resultNone:
		return Result{Text: Done}, nil
	case resultAny, resultParts:
		return convertAnyResult(any(out))
	}
	if boxes == nil {
		box := out // escapes; out itself must not, or every call would allocate it
		text, err := r.enc.Encode(&box)
		return Result{Text: text}, err
	}
	p, _ := boxes.Get().(*Out)
	if p == nil {
		p = new(Out)
	}
	*p = out
	text, err := r.enc.Encode(p)
	*p = *new(Out)
	boxes.Put(p)
	return Result{Text: text}, err
}

// convertAnyResult is convertAny for the results that may hold parts.
func convertAnyResult(v any) (Result, error) {
	switch r := v.(type) {
	case Result:
		return r, nil
	case *Result:
		if r == nil {
			return Result{Text: Done}, nil
		}
		return *r, nil
	case content.Part:
		if r.Kind == content.KindText {
			return Result{Text: r.Text}, nil
		}
		return Result{Parts: []content.Part{r}}, nil
	case []content.Part:
		return Result{Parts: r}, nil
	}
	text, err := convertAny(v)
	return Result{Text: text}, err
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
	out, err := schema.EncodeAny(result)
	if err != nil {
		return "", fmt.Errorf("tool: %w", err)
	}
	return out, nil
}

func convertBytes(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return `"` + base64.StdEncoding.EncodeToString(b) + `"`
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
	resultAny   // an interface type: decided per value
	resultParts // Result, content.Part, []content.Part
)

var (
	resultType    = reflect.TypeFor[Result]()
	partType      = reflect.TypeFor[content.Part]()
	partSliceType = reflect.TypeFor[[]content.Part]()
)

func resultKindOf(t reflect.Type) resultKind {
	switch {
	case t.Kind() == reflect.Interface:
		return resultAny
	case t == resultType || t == partType || t == partSliceType || t == reflect.PointerTo(resultType):
		return resultParts
	case t == rawMessageType:
		return resultRaw
	case t == byteSliceType:
		return resultBytes
	case t.Kind() == reflect.Struct && t.NumField() == 0:
		return resultNone
	case t.Kind() == reflect.String && !schema.HasOwnJSON(t):
		return resultString
	}
	return resultJSON
}
