package schema

import (
	"errors"
	"fmt"
	"reflect"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
)

// Encoder writes values of one Go type as the JSON text of a tool result: map keys sorted
// (stable text helps prompt caching), HTML not escaped, invalid UTF-8 replaced rather than
// failing the call, durations as "1h30m0s".
type Encoder struct {
	opts jsonv2.Options
}

var encoders sync.Map // reflect.Type → *Encoder

// EncoderFor returns the encoder of values of type t.
func EncoderFor(t reflect.Type) *Encoder {
	if e, ok := encoders.Load(t); ok {
		return e.(*Encoder)
	}
	e := &Encoder{opts: baseEncodeOptions}
	// Custom marshalers cost a lookup per value, so only types that may hold a duration (an
	// interface may) pay for the duration marshaler.
	if containsType(t, func(t reflect.Type) bool { return t == durationType || t.Kind() == reflect.Interface }) {
		e.opts = encodeOptions
	}
	actual, _ := encoders.LoadOrStore(t, e)
	return actual.(*Encoder)
}

// anyEncoder encodes values whose type is known only at run time.
var anyEncoder = &Encoder{opts: encodeOptions}

// EncodeAny encodes v, whatever its type, as [Encoder.Encode] does.
func EncodeAny(v any) (string, error) { return anyEncoder.Encode(v) }

// Encode returns the JSON text of v, a value (or a pointer to a value) of the encoder's type.
func (e *Encoder) Encode(v any) (string, error) {
	b, err := jsonv2.Marshal(v, e.opts)
	if err != nil {
		var se *jsonv2.SemanticError
		if errors.As(err, &se) && se.Err != nil {
			err = se
		}
		return "", fmt.Errorf("encoding result: %w", err)
	}
	return string(b), nil
}
