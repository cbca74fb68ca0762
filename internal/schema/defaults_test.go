package schema

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// defaultSchemas have defaults beside keywords whose verdict a default can change: the count of
// members, their names, which of them are present, or the value as a whole. Each comes with
// valid arguments and what Prepare must make of them: every default that keeps the arguments
// valid, added in order, and none that would break them.
var defaultSchemas = []struct{ schema, args, want string }{
	{`{"properties":{"a":{"default":1}},"maxProperties":0}`, `{}`, `{}`},
	{`{"properties":{"a":{"default":1},"b":{"default":2}},"maxProperties":1}`, `{}`, `{"a":1}`},
	{`{"properties":{"a":{"default":1},"b":{}},"oneOf":[{"required":["a"]},{"required":["b"]}]}`, `{"b":1}`, `{"b":1}`},
	{`{"properties":{"a":{"default":1},"b":{}},"oneOf":[{"required":["a"]},{"required":["b"]}]}`, `{}`, ``},
	{`{"properties":{"a":{"default":1},"b":{"default":"x"}},"anyOf":[{"maxProperties":1},{"required":["c"]}]}`, `{}`, `{"a":1}`},
	{`{"properties":{"a":{"default":1}},"not":{"required":["a"]}}`, `{}`, `{}`},
	{`{"properties":{"a":{"default":1}},"propertyNames":{"maxLength":0}}`, `{}`, `{}`},
	{`{"properties":{"a":{"default":1},"b":{}},"dependentRequired":{"a":["b"]}}`, `{}`, `{}`},
	{`{"properties":{"a":{"default":1},"b":{}},"dependentRequired":{"a":["b"]}}`, `{"b":0}`, `{"a":1,"b":0}`},
	{`{"properties":{"a":{"default":1}},"dependentSchemas":{"a":{"required":["b"]}}}`, `{}`, `{}`},
	{`{"properties":{"a":{"default":1}},"if":{"required":["a"]},"then":false}`, `{}`, `{}`},
	{`{"properties":{"a":{"default":1}},"unevaluatedProperties":false,"allOf":[{"properties":{"b":{}}}],"not":{"required":["a"]}}`, `{"b":2}`, `{"b":2}`},
	{`{"allOf":[{"properties":{"a":{"default":1}}},{"properties":{"b":{}},"additionalProperties":false}]}`, `{}`, `{}`},
	{`{"allOf":[{"properties":{"a":{"default":1}}},{"properties":{"a":{"type":"string"}}}]}`, `{}`, `{}`},
	{`{"type":"array","uniqueItems":true,"items":{"properties":{"a":{"default":1}}}}`, `[{},{"a":1}]`, `[{},{"a":1}]`},
	{`{"type":"array","contains":{"required":["a"]},"maxContains":1,"items":{"properties":{"a":{"default":1}}}}`, `[{},{"a":2}]`, `[{},{"a":2}]`},
	{`{"enum":[{}],"properties":{"a":{"default":1}}}`, `{}`, `{}`},
	// Only the defaults that break the arguments go: here the inner one, not the outer.
	{`{"properties":{"o":{"properties":{"x":{"default":1}}},"p":{"default":true}},"not":{"properties":{"o":{"required":["x"]}},"required":["o"]}}`,
		`{"o":{}}`, `{"o":{},"p":true}`},
	{`{"$defs":{"n":{"properties":{"x":{"default":1}},"maxProperties":1}},"properties":{"l":{"type":"array","items":{"$ref":"#/$defs/n"}}},"allOf":[true]}`,
		`{"l":[{},{"y":2},{}]}`, `{"l":[{"x":1},{"y":2},{"x":1}]}`},
}

func TestDefaultsKeepArgumentsValid(t *testing.T) {
	for _, tc := range defaultSchemas {
		v := mustValidator(t, tc.schema)
		got, err := v.Prepare(tc.args)
		if tc.want == "" {
			if err == nil {
				t.Errorf("schema %s: Prepare(%s) = %s, want an error", tc.schema, tc.args, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("schema %s: Prepare(%s): %v", tc.schema, tc.args, err)
			continue
		}
		if err := v.ValidateString(got); err != nil {
			t.Errorf("schema %s: Prepare(%s) = %s, which is invalid: %v", tc.schema, tc.args, got, err)
		}
		if !sameJSON(t, got, tc.want) {
			t.Errorf("schema %s: Prepare(%s) = %s, want %s", tc.schema, tc.args, got, tc.want)
		}
	}
}

func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// maxOneField's schema lets an object have one member at most, and has a default.
type maxOneField struct {
	A int `json:"a,omitzero"`
	B int `json:"b,omitzero"`
}

func (maxOneField) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:          "object",
		Properties:    map[string]*jsonschema.Schema{"a": {Type: "integer", Default: json.RawMessage(`7`)}, "b": {Type: "integer"}},
		MaxProperties: new(1),
	}
}

type withMaxOne struct {
	M maxOneField `json:"m"`
}

// A typed tool decodes what it validated: the default that would break the schema is left out
// on the way to the Go value too.
func TestCodecDefaultsKeepArgumentsValid(t *testing.T) {
	c, err := For(reflect.TypeFor[withMaxOne]())
	if err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]withMaxOne{
		`{"m":{}}`:      {M: maxOneField{A: 7}},
		`{"m":{"b":2}}`: {M: maxOneField{B: 2}},
	} {
		var got withMaxOne
		if err := c.Decode(args, &got); err != nil {
			t.Errorf("Decode(%s): %v", args, err)
		} else if got != want {
			t.Errorf("Decode(%s) = %+v, want %+v", args, got, want)
		}
	}
}
