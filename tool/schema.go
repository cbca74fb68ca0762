package tool

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wield-ai/wield/internal/schema"
)

// SchemaHook is implemented by types that describe their own JSON Schema, for what struct tags
// cannot say (an enum of a named string type, a pattern, a union). The method is called on the
// zero value (through a pointer if it has a pointer receiver); the result is copied, so it may
// be a shared value.
type SchemaHook interface {
	JSONSchema() *jsonschema.Schema
}

// SchemaFor returns the JSON Schema (2020-12) that wield infers for values of type T, the schema
// [Func] uses for its input. See [SchemaOf] for the rules.
func SchemaFor[T any]() (*jsonschema.Schema, error) {
	return SchemaOf(reflect.TypeFor[T]())
}

// SchemaOf returns the JSON Schema (2020-12) that wield infers for values of type t. The result
// is a copy the caller may change; inference itself runs once per type and is cached.
//
// The schema describes the JSON form that encoding/json and its v2 successor read and write,
// and every rule it states is the rule a tool's arguments are checked and decoded by:
//   - Struct fields are named by their json tag and required unless tagged omitempty or
//     omitzero or of pointer type. Objects from structs have additionalProperties false; maps
//     with string (or integer, or text-marshaling) keys are objects whose additionalProperties
//     describe the values.
//   - A `jsonschema:"…"` tag is the field's description (a `//wield:` doc registered with
//     [RegisterType] is used when there is no tag). An `enum:"a,b,c"` tag restricts a field (or
//     the items of a slice field) to the listed values; a `default:"…"` tag sets the default
//     applied to missing optional fields before a tool runs.
//   - Pointers are described by what they point to: null is not accepted, absence is. Slices
//     are plain arrays, not ["null","array"]: several providers reject type lists, and models
//     send arrays.
//   - time.Time is a date-time string; time.Duration a string such as "1h30m" (which is how
//     wield reads and writes durations); []byte a base64 string; json.RawMessage and interface
//     types any JSON value.
//   - Types implementing [SchemaHook] describe themselves. Other types with their own JSON or
//     text encoding are described by the kind of JSON their zero value encodes to, never by
//     their Go fields.
//   - A number field with the json option string (`json:"id,string"`) is a string holding
//     the number ("42"), as the v2 codec reads it; the option on any other type, a format
//     option (which the codec does not support) and other tags the codec refuses are errors,
//     since no argument could ever be read.
//   - Recursive types are defined once in $defs and referred to with $ref ("#" for the root).
//   - Functions, channels, complex numbers and unsafe pointers cannot be described; a field of
//     such a type is an error unless tagged json:"-".
func SchemaOf(t reflect.Type) (*jsonschema.Schema, error) {
	s, err := schema.Of(t)
	if err != nil {
		return nil, fmt.Errorf("tool: %w", err)
	}
	return s, nil
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	byteSliceType  = reflect.TypeFor[[]byte]()
)

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// isLeafType reports types whose schema does not come from their Go structure.
func isLeafType(t reflect.Type) bool { return schema.IsLeaf(t) }
