package schema

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Arguments are decoded and results encoded with the v2 JSON codec (the encoding/json/v2
// prototype), several times faster than encoding/json and without HTML escaping in results.

// time.Duration is read from the string form the schema describes ("1h30m"); a number is
// taken as nanoseconds, as encoding/json writes it. It is written as a string.
var (
	durationUnmarshaler = jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, d *time.Duration) error {
		val, err := dec.ReadValue()
		if err != nil {
			return err
		}
		switch val.Kind() {
		case '"':
			var s string
			if err := jsonv2.Unmarshal(val, &s); err != nil {
				return err
			}
			parsed, err := time.ParseDuration(s)
			if err != nil {
				return err
			}
			*d = parsed
			return nil
		case '0':
			n, err := strconv.ParseInt(string(val), 10, 64)
			if err != nil {
				return err
			}
			*d = time.Duration(n)
			return nil
		case 'n':
			return nil
		}
		return errors.New("a duration must be a string such as \"1h30m\"")
	})
	durationMarshaler = jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, d time.Duration) error {
		return enc.WriteToken(jsontext.String(d.String()))
	})

	decodeDurations = jsonv2.WithUnmarshalers(durationUnmarshaler)
	// Results: map keys sorted (stable text helps prompt caching), and invalid UTF-8 from the
	// tool replaced rather than failing the call; durations as strings when there may be any
	// (custom marshalers cost a lookup per value, so only types that need them pay for them).
	baseEncodeOptions = jsonv2.JoinOptions(
		jsonv2.Deterministic(true),
		jsontext.AllowInvalidUTF8(true),
	)
	encodeOptions = jsonv2.JoinOptions(baseEncodeOptions, jsonv2.WithMarshalers(durationMarshaler))
)

// decodeOptions returns the options needed to decode t: none unless it holds durations or
// structs without JSON fields, so the common case takes the codec's fastest path. They are
// worked out once per type.
func decodeOptions(t reflect.Type) []jsonv2.Options {
	if o, ok := decodeOpts.Load(t); ok {
		return o.([]jsonv2.Options)
	}
	var durations bool
	var fieldless map[reflect.Type]bool
	containsType(t, func(t reflect.Type) bool {
		switch {
		case t == durationType:
			durations = true
		case t.Kind() == reflect.Struct && t.NumField() > 0 && !isLeafType(t) && len(jsonFields(t)) == 0:
			if fieldless == nil {
				fieldless = map[reflect.Type]bool{}
			}
			fieldless[t] = true
		}
		return false
	})
	var opts []jsonv2.Options
	switch {
	case fieldless != nil && durations:
		opts = []jsonv2.Options{jsonv2.WithUnmarshalers(jsonv2.JoinUnmarshalers(durationUnmarshaler, skipFieldless(fieldless)))}
	case fieldless != nil:
		opts = []jsonv2.Options{jsonv2.WithUnmarshalers(skipFieldless(fieldless))}
	case durations:
		opts = []jsonv2.Options{decodeDurations}
	}
	o, _ := decodeOpts.LoadOrStore(t, opts)
	return o.([]jsonv2.Options)
}

var decodeOpts sync.Map // reflect.Type → []jsonv2.Options

// skipFieldless reads a value of a struct type in types, which has no JSON fields, as the
// single pass does: as nothing to store. The v2 codec refuses to read such a struct unless some
// field has a json tag ("Go struct has no exported fields"), which would fail a call with
// arguments the schema accepts.
func skipFieldless(types map[reflect.Type]bool) *jsonv2.Unmarshalers {
	return jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, v any) error {
		if t := reflect.TypeOf(v); t.Kind() != reflect.Pointer || !types[t.Elem()] {
			return errors.ErrUnsupported
		}
		return dec.SkipValue()
	})
}

// containsType reports whether t, or a type a value of t holds (the element of a pointer, slice,
// array or map, a struct's fields, recursively), satisfies match.
func containsType(t reflect.Type, match func(reflect.Type) bool) bool {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type) bool
	walk = func(t reflect.Type) bool {
		if match(t) {
			return true
		}
		if seen[t] {
			return false
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			return walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				if walk(t.Field(i).Type) {
					return true
				}
			}
		}
		return false
	}
	return walk(t)
}

// checkDecodable reports struct types inside t whose fields the v2 codec refuses to read, which
// it does only once it meets a value of them: a format tag option (which the codec does not
// support), two fields with one JSON name, an embedded field of a non-struct type. A tool with
// such a type would fail every call; it must fail when it is built instead.
func checkDecodable(t reflect.Type) error {
	if v, ok := decodable.Load(t); ok {
		err, _ := v.(error)
		return err
	}
	err := findUndecodable(t)
	decodable.Store(t, err)
	return err
}

// decodable holds checkDecodable's answer per type. It depends on the type alone, so it outlives
// the inference cache, which registering type docs empties: a tool built again for its new docs
// does not decode an empty object again for every struct it holds.
var decodable sync.Map // reflect.Type → error (nil when the codec reads the type)

// findUndecodable is checkDecodable without the cache.
func findUndecodable(t reflect.Type) error {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type) error
	walk = func(t reflect.Type) error {
		t = derefType(t)
		if seen[t] || isLeafType(t) {
			return nil
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map:
			return walk(t.Elem())
		case reflect.Struct:
		default:
			return nil
		}
		if len(jsonFields(t)) == 0 {
			return nil // nothing to read: the codec is not asked to (Codec.none, plans)
		}
		// An empty object makes the codec check every field of t, and reads nothing.
		if err := jsonv2.Unmarshal([]byte("{}"), reflect.New(t).Interface(), decodeOptions(t)...); err != nil {
			var se *jsonv2.SemanticError
			if errors.As(err, &se) && se.Err != nil {
				err = se.Err
			}
			return fmt.Errorf("the JSON codec cannot read %v: %w", t, err)
		}
		for i := range t.NumField() {
			if err := walk(t.Field(i).Type); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(t)
}

// decodeError turns a decoding failure into an [*ArgumentError] the model can act on. It
// happens for arguments the schema accepts but Go cannot hold, such as 1.0 for an int field or
// a malformed duration.
func decodeError(err error) error {
	var se *jsonv2.SemanticError
	if errors.As(err, &se) {
		msg := describeKind(se.JSONKind)
		if len(se.JSONValue) > 0 {
			msg = describe(string(se.JSONValue))
		}
		if se.GoType != nil {
			msg += " cannot be read as " + goTypeName(se.GoType)
		} else {
			msg += " cannot be read"
		}
		switch {
		case errors.Is(se.Err, strconv.ErrRange):
			msg += ": out of range"
		case se.Err != nil && !errors.Is(se.Err, strconv.ErrSyntax):
			msg += ": " + se.Err.Error()
		}
		return &ArgumentError{Issues: []Issue{{Path: string(se.JSONPointer), Message: msg, Keyword: "decode"}}}
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		if errors.Is(err, jsontext.ErrDuplicateName) {
			return &ArgumentError{Issues: []Issue{{
				Path:    string(syn.JSONPointer.Parent()),
				Message: "duplicate property " + strconv.Quote(syn.JSONPointer.LastToken()),
				Keyword: "duplicate",
			}}}
		}
		msg := "invalid JSON"
		if syn.Err != nil {
			msg = syn.Err.Error()
		}
		return &ArgumentError{Syntax: true, Offset: int(syn.ByteOffset), Issues: []Issue{{Path: string(syn.JSONPointer), Message: msg, Keyword: "syntax"}}}
	}
	return &ArgumentError{Issues: []Issue{{Message: err.Error(), Keyword: "decode"}}}
}

func describeKind(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "the value"
}

func goTypeName(t reflect.Type) string {
	switch t {
	case durationType:
		return "a duration"
	case timeType:
		return "a date-time"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return t.String()
}
