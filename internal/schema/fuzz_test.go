package schema

import (
	"encoding/json"
	"errors"
	"testing"
)

// generalSchemas use keywords only jsonschema-go checks, for the fuzz target of the general path.
var generalSchemas = []string{
	`{"type":"array","uniqueItems":true}`,
	`{"if":{"type":"string"},"then":{"minLength":2},"else":{"type":"number"}}`,
	`{"type":"object","patternProperties":{"^x":{"type":"integer"}},"propertyNames":{"maxLength":3}}`,
	`{"type":"object","dependentRequired":{"a":["b"]},"properties":{"a":{},"b":{"default":1}}}`,
	`{"type":"array","contains":{"const":1},"minContains":2}`,
	`{"type":"object","properties":{"a":{"type":"string"}},"unevaluatedProperties":false}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"string"}],"additionalItems":false}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s"}},"dependencies":{"a":["b"]}}`,
	`{"enum":[{"a":1},[1,2]]}`,
	`{"allOf":[{"uniqueItems":true},{"items":{"anyOf":[{"type":"integer"},{"type":"string"}]}}]}`,
}

// FuzzCompile compiles hostile schemas and validates hostile arguments with them, on the
// single-pass path and on the general one: nothing may panic or hang, compiled schemas must
// give an *ArgumentError or nil, the single pass must agree with jsonschema-go, and arguments
// completed with defaults must stay valid (its seeds include defaults beside every keyword whose
// verdict a default can change).
func FuzzCompile(f *testing.F) {
	seeds := append(append([]string{}, diffSchemas...), generalSchemas...)
	for _, e := range endless {
		seeds = append(seeds, e.schema)
	}
	for _, a := range adversarial {
		seeds = append(seeds, a.schema)
	}
	for i, schema := range seeds {
		f.Add(schema, diffInstances[i%len(diffInstances)])
		f.Add(schema, nested(8))
	}
	for _, d := range defaultSchemas {
		f.Add(d.schema, d.args)
	}
	f.Fuzz(func(t *testing.T, schema, inst string) {
		v, err := Compile(json.RawMessage(schema))
		if err != nil {
			return
		}
		err = v.ValidateString(inst)
		var ae *ArgumentError
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("schema %s, instance %s: error %T (%v) is not an *ArgumentError", schema, inst, err, err)
		}
		if v.root != nil {
			checkAgreement(t, schema, v, []byte(inst))
		}
		if out, err := v.Prepare(inst); err == nil {
			if err := v.ValidateString(out); err != nil {
				t.Errorf("schema %s: arguments %s with defaults %s are invalid: %v", schema, inst, out, err)
			}
		}
	})
}
