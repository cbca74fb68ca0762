package schema

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

func mustValidator(t testing.TB, schema string) *Validator {
	t.Helper()
	v, err := Compile(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("Compile(%s): %v", schema, err)
	}
	return v
}

func inferredValidator[T any](t testing.TB) *Validator {
	t.Helper()
	s, err := Of(reflect.TypeFor[T]())
	if err != nil {
		t.Fatal(err)
	}
	v, err := compileSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestValidateMessages(t *testing.T) {
	weather := inferredValidator[weatherArgs](t)
	lists := inferredValidator[listParams](t)
	tests := []struct {
		name string
		v    *Validator
		args string
		want string // "" means valid
	}{
		{"valid", weather, `{"location":"Paris","unit":"C"}`, ""},
		{"valid with optional", weather, ` {"location":"Paris","unit":"F","days":3} `, ""},
		{"enum", weather, `{"location":"Paris","unit":"K"}`, `invalid arguments: /unit: "K" is not one of ["C","F"]`},
		{"missing", weather, `{"unit":"C"}`, `invalid arguments: /: missing required property "location"`},
		{"blank is empty object", weather, " \n", `invalid arguments: /: missing required property "location"; /: missing required property "unit"`},
		{"string for integer", weather, `{"location":"Paris","unit":"C","days":"3"}`, `invalid arguments: /days: expected integer, got the string "3"`},
		{"fraction for integer", weather, `{"location":"Paris","unit":"C","days":1.5}`, `invalid arguments: /days: expected integer, got 1.5`},
		{"integral float is an integer", weather, `{"location":"Paris","unit":"C","days":2.0}`, ""},
		{"null", weather, `{"location":null,"unit":"C"}`, `invalid arguments: /location: expected string, got null`},
		{"unknown property", weather, `{"location":"Paris","unit":"C","hours":2}`, `invalid arguments: /: unexpected property "hours" (allowed: "location", "unit", "days")`},
		{"not an object", weather, `[1,2]`, `invalid arguments: /: expected object, got an array`},
		{"several problems", weather, `{"location":5,"unit":"K","days":true}`, `invalid arguments: /location: expected string, got 5; /unit: "K" is not one of ["C","F"]; /days: expected integer, got true`},
		{"long string shortened", weather, `{"location":"Paris","unit":"` + strings.Repeat("x", 60) + `"}`, `invalid arguments: /unit: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…" is not one of ["C","F"]`},
		{"nested path", lists, `{"tags":[],"addresses":[{"street":"a","city":"b"},{"street":"a","city":5}],"pair":[1,2],"counts":{}}`, `invalid arguments: /addresses/1/city: expected string, got 5`},
		{"array bounds", lists, `{"tags":[],"addresses":[],"pair":[1],"counts":{"a":1}}`, `invalid arguments: /pair: has 1 item, fewer than the minimum 2`},
		{"map values", lists, `{"tags":[],"addresses":[],"pair":[1,2],"counts":{"a/b~c":"x"}}`, `invalid arguments: /counts/a~1b~0c: expected integer, got the string "x"`},
		{"escaped key", lists, `{"t\u0061gs":[],"addresses":[],"pair":[1,2],"counts":{}}`, ""},
		{"item type", lists, `{"tags":["a",{}],"addresses":[],"pair":[1,2],"counts":{}}`, `invalid arguments: /tags/1: expected string, got an object`},

		{"truncated", weather, `{"location":`, `arguments are not valid JSON: unexpected end of input at offset 12`},
		{"truncated string", weather, `{"location":"Par`, `arguments are not valid JSON: unexpected end of input in string at offset 16`},
		{"trailing comma", weather, `{"location":"Paris",}`, `arguments are not valid JSON: invalid character '}' looking for the beginning of an object key at offset 20`},
		{"single quotes", weather, `{'location':'Paris'}`, `arguments are not valid JSON: invalid character '\'' looking for the beginning of an object key at offset 1`},
		{"missing colon", weather, `{"location" "Paris"}`, `arguments are not valid JSON: invalid character '"' after object key (expected ':') at offset 12`},
		{"missing comma", weather, `{"location":"Paris" "unit":"C"}`, `arguments are not valid JSON: invalid character '"' after object member (expected ',' or '}') at offset 20`},
		{"trailing data", weather, `{"location":"Paris","unit":"C"} x`, `arguments are not valid JSON: unexpected data after the arguments object at offset 32`},
		{"bad escape", weather, `{"location":"a\x"}`, `arguments are not valid JSON: invalid escape "\\x" in string at offset 14`},
		{"control character", weather, "{\"location\":\"a\nb\"}", `arguments are not valid JSON: control character '\n' in string (it must be escaped) at offset 14`},
		{"invalid UTF-8", weather, "{\"location\":\"a\xffb\"}", `arguments are not valid JSON: invalid UTF-8 in string at offset 14`},
		{"lone surrogate", weather, `{"location":"\ud800x"}`, `arguments are not valid JSON: invalid surrogate pair in string at offset 13`},
		{"leading zero", weather, `{"days":01}`, `arguments are not valid JSON: invalid character '1' after object member (expected ',' or '}') at offset 9`},
		{"bare word", weather, `{"days":NaN}`, `arguments are not valid JSON: invalid character 'N' looking for the beginning of a value at offset 8`},
		{"bad literal", weather, `{"days":tru}`, `arguments are not valid JSON: invalid character '}' in literal true at offset 11`},
		{"bad number", weather, `{"days":1.}`, `arguments are not valid JSON: invalid character '}' after decimal point in number at offset 10`},
		{"syntax wins over schema", weather, `{"location":5,"unit":`, `arguments are not valid JSON: unexpected end of input at offset 21`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.v.Validate([]byte(tc.args))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate(%s) = %v, want valid", tc.args, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate(%s) = nil, want %s", tc.args, tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("Validate(%s):\n got %s\nwant %s", tc.args, err, tc.want)
			}
			var ae *ArgumentError
			if !errors.As(err, &ae) {
				t.Errorf("error %T is not an *ArgumentError", err)
			}
		})
	}
}

func TestValidateKeywords(t *testing.T) {
	tests := []struct {
		schema, args, want string
	}{
		{`{"type":"number","minimum":1,"maximum":5}`, `0.5`, `0.5 is less than the minimum 1`},
		{`{"type":"number","minimum":1,"maximum":5}`, `6`, `6 is greater than the maximum 5`},
		{`{"type":"number","exclusiveMinimum":1}`, `1`, `1 must be greater than 1`},
		{`{"type":"number","exclusiveMaximum":1}`, `1`, `1 must be less than 1`},
		{`{"type":"number","multipleOf":0.5}`, `1.25`, `1.25 is not a multiple of 0.5`},
		{`{"type":"number","multipleOf":0.5}`, `1.5`, ``},
		{`{"type":"string","minLength":2}`, `"é"`, `"é" is shorter than the minimum length 2`},
		{`{"type":"string","maxLength":2}`, `"\u00e9\u00e9"`, ``},
		{`{"type":"string","maxLength":2}`, `"abc"`, `"abc" is longer than the maximum length 2`},
		{`{"type":"string","pattern":"^[a-z]+$"}`, `"ab1"`, `"ab1" does not match the pattern ^[a-z]+$`},
		{`{"type":"string","pattern":"^a\n$"}`, `"a\n"`, ``},
		{`{"const":"x"}`, `"y"`, `"y" is not the required value "x"`},
		{`{"const":2}`, `2.0`, ``},
		{`{"enum":[1,"a",true,null]}`, `null`, ``},
		{`{"enum":[1,"a",true,null]}`, `false`, `false is not one of [1,"a",true,null]`},
		{`{"enum":[1,"a",true,null]}`, `{}`, `an object is not one of [1,"a",true,null]`},
		{`{"type":["string","null"]}`, `null`, ``},
		{`{"type":["string","integer"]}`, `1.5`, `expected integer or string, got 1.5`},
		{`{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a",1,"b"]`, `/2: expected integer, got the string "b"`},
		{`{"type":"array","maxItems":1}`, `[1,2]`, `has 2 items, more than the maximum 1`},
		{`{"type":"object","minProperties":1}`, `{}`, `has 0 properties, fewer than the minimum 1`},
		{`{"type":"object","maxProperties":1}`, `{"a":1,"b":2}`, `has 2 properties, more than the maximum 1`},
		{`{"type":"object","required":["a"]}`, `{"b":1}`, `missing required property "a"`},
		{`{"type":"object","properties":{},"additionalProperties":false}`, `{"b":1}`, `unexpected property "b" (no properties are allowed)`},
		{`{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `true`, `expected integer or string, got boolean`},
		{`{"anyOf":[{"type":"string"},{"minimum":3}]}`, `2`, `does not match any of the allowed alternatives (anyOf)`},
		{`{"oneOf":[{"type":"integer"},{"minimum":3}]}`, `4`, `matches more than one of the alternatives (oneOf); it must match exactly one`},
		{`{"oneOf":[{"type":"integer"},{"minimum":3}]}`, `3.5`, ``},
		{`{"allOf":[{"type":"integer"},{"minimum":3}]}`, `2`, `2 is less than the minimum 3`},
		{`{"not":{"type":"string"}}`, `"a"`, `matches a schema it must not match (not)`},
		{`false`, `1`, `no value is allowed here`},
		{`true`, `[{"a":[null]}]`, ``},
		{`{"$defs":{"pos":{"type":"integer","minimum":0}},"type":"array","items":{"$ref":"#/$defs/pos"}}`, `[1,-1]`, `/1: -1 is less than the minimum 0`},
		{`{"type":"object","properties":{"next":{"$ref":"#"}},"additionalProperties":false}`, `{"next":{"next":{"x":1}}}`, `/next/next: unexpected property "x" (allowed: "next")`},
		{`{"type":"integer"}`, `1e400`, `the number 1e400 is out of range`},
	}
	for _, tc := range tests {
		v := mustValidator(t, tc.schema)
		if v.root == nil {
			t.Errorf("schema %s: not compiled for the single pass: %s", tc.schema, v.unsupported)
			continue
		}
		err := v.Validate([]byte(tc.args))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("schema %s, args %s: %v, want valid", tc.schema, tc.args, err)
		case tc.want != "" && err == nil:
			t.Errorf("schema %s, args %s: valid, want %s", tc.schema, tc.args, tc.want)
		case tc.want != "" && !strings.HasSuffix(err.Error(), ": "+tc.want):
			t.Errorf("schema %s, args %s:\n got %v\nwant …: %s", tc.schema, tc.args, err, tc.want)
		}
	}
}

func TestValidateDefaults(t *testing.T) {
	tests := []struct {
		name, schema, args, want string
	}{
		{"top level", `{"type":"object","properties":{"a":{"type":"integer","default":1},"b":{"type":"string"}}}`,
			`{"b":"x"}`, `{"a":1,"b":"x"}`},
		{"empty object", `{"type":"object","properties":{"a":{"type":"integer","default":1},"c":{"type":"string","default":"z"}}}`,
			`{}`, `{"a":1,"c":"z"}`},
		{"blank", `{"type":"object","properties":{"a":{"type":"integer","default":1}}}`,
			``, `{"a":1}`},
		{"present wins", `{"type":"object","properties":{"a":{"type":"integer","default":1}}}`,
			`{"a":5}`, `{"a":5}`},
		{"required gets none", `{"type":"object","properties":{"a":{"type":"integer","default":1}},"required":["a"]}`,
			`{}`, `error`},
		{"nested and in arrays", `{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"default":[1]}}},"l":{"type":"array","items":{"type":"object","properties":{"y":{"default":true}}}}}}`,
			`{"o":{},"l":[{},{"y":false}]}`, `{"o":{"x":[1]},"l":[{"y":true},{"y":false}]}`},
		{"missing parent not created", `{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"default":1}}}}}`,
			`{}`, `{}`},
		{"through ref", `{"$defs":{"d":{"type":"object","properties":{"x":{"default":"v"}}}},"type":"object","properties":{"o":{"$ref":"#/$defs/d"}}}`,
			`{"o":{}}`, `{"o":{"x":"v"}}`},
		{"general validator", `{"type":"object","properties":{"a":{"type":"integer","default":1},"u":{"type":"array","uniqueItems":true}}}`,
			`{"u":[1,2]}`, `{"a":1,"u":[1,2]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := mustValidator(t, tc.schema)
			got, err := v.Prepare(tc.args)
			if tc.want == "error" {
				if err == nil {
					t.Fatalf("Prepare(%s) = %s, want an error", tc.args, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal([]byte(got), &g); err != nil {
				t.Fatalf("Prepare(%s) = %s: %v", tc.args, got, err)
			}
			if err := json.Unmarshal([]byte(tc.want), &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("Prepare(%s) = %s, want %s", tc.args, got, tc.want)
			}
		})
	}
}

func TestPrepareKeepsArgs(t *testing.T) {
	v := inferredValidator[weatherArgs](t)
	args := `{"location":"Paris","unit":"C"}`
	got, err := v.Prepare(args)
	if err != nil {
		t.Fatal(err)
	}
	if unsafe.StringData(got) != unsafe.StringData(args) {
		t.Error("Prepare copied arguments that needed no defaults")
	}
}

func TestGeneralValidator(t *testing.T) {
	v := mustValidator(t, `{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true}},"required":["tags"]}`)
	if v.root != nil {
		t.Fatal("uniqueItems schema compiled for the single pass")
	}
	if err := v.Validate([]byte(`{"tags":[1,2]}`)); err != nil {
		t.Errorf("valid arguments: %v", err)
	}
	err := v.Validate([]byte(`{"tags":[1,1]}`))
	if err == nil || err.Error() != "invalid arguments: /: uniqueItems: array items 1 and 0 are equal" {
		t.Errorf("duplicate items: %v", err)
	}
	err = v.Validate([]byte(`{"tags":[1,1`))
	if err == nil || err.Error() != "arguments are not valid JSON: unexpected end of input in array at offset 12" {
		t.Errorf("syntax: %v", err)
	}
	// draft-07 has its own rules for items arrays, left to jsonschema-go.
	v = mustValidator(t, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"string"}]}`)
	if v.root != nil {
		t.Fatal("draft-07 schema compiled for the single pass")
	}
	if err := v.Validate([]byte(`["a",1]`)); err != nil {
		t.Errorf("draft-07 tuple: %v", err)
	}
	if err := v.Validate([]byte(`[1]`)); err == nil {
		t.Error("draft-07 tuple accepted a number for a string")
	}
}

func TestCompileSchemaErrors(t *testing.T) {
	for _, schema := range []string{
		`{"type":`,
		`{"type":"dict"}`,
		`{"$ref":"#/$defs/missing"}`,
		`{"type":"object","properties":{"a":{"type":"integer","default":"x"}}}`,
		`{"pattern":"("}`,
		`{"$ref":"#"}`,
		`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"not":{"$ref":"#/$defs/a"}}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
	} {
		if _, err := Compile(json.RawMessage(schema)); err == nil {
			t.Errorf("Compile(%s) succeeded", schema)
		}
	}
}

// The argument types of the validator tests, as tools declare them.
type weatherArgs struct {
	Location string `json:"location" jsonschema:"City and country, e.g. Copenhagen, Denmark"`
	Unit     string `json:"unit" enum:"C,F" jsonschema:"Temperature unit"`
	Days     int    `json:"days,omitempty" jsonschema:"Days of forecast"`
}
