package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strconv"
	"testing"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The single-pass validator must agree with jsonschema-go on every schema it compiles. These
// schemas cover its keywords; the instances are crossed with all of them, and both lists seed
// FuzzValidate.

var diffSchemas = []string{
	`true`,
	`false`,
	`{}`,
	`{"type":"object"}`,
	`{"type":"integer"}`,
	`{"type":"number","minimum":-1.5,"maximum":100}`,
	`{"type":["number","string"],"exclusiveMinimum":0,"exclusiveMaximum":10,"minLength":2}`,
	`{"multipleOf":0.25}`,
	`{"multipleOf":3,"type":"integer"}`,
	`{"type":"string","minLength":1,"maxLength":3}`,
	`{"type":"string","pattern":"^[a-c]+\\d?$"}`,
	`{"pattern":"é"}`,
	`{"enum":["C","F",1,2.5,true,null]}`,
	`{"const":"a\"b"}`,
	`{"const":0}`,
	`{"enum":[]}`,
	`{"type":"null"}`,
	`{"type":"boolean"}`,
	`{"type":["array","null"],"items":{"type":"integer"},"minItems":1,"maxItems":3}`,
	`{"type":"array","prefixItems":[{"type":"string"},{"type":"boolean"}],"items":false}`,
	`{"type":"array","prefixItems":[{"const":1}]}`,
	`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer","default":3}},"required":["a"],"additionalProperties":false}`,
	`{"type":"object","properties":{"a":{"type":"string"}},"required":["a","z"]}`,
	`{"type":"object","additionalProperties":{"type":"number"},"minProperties":1,"maxProperties":2}`,
	`{"properties":{"x":{"type":"object","properties":{"y":{"type":"array","items":{"type":"object","required":["z"]}}}}}}`,
	`{"type":"object","properties":{"a/b":{"const":1},"~":{"const":2},"é":{"type":"string"}},"additionalProperties":false}`,
	`{"anyOf":[{"type":"string"},{"type":"integer","minimum":5}]}`,
	`{"oneOf":[{"type":"integer"},{"minimum":3}]}`,
	`{"allOf":[{"type":"object","required":["a"]},{"properties":{"a":{"type":"string"}}}]}`,
	`{"not":{"type":["object","array"]}}`,
	`{"not":{"enum":[1,2]},"type":"integer"}`,
	`{"$defs":{"n":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/n"}},"required":["v"],"additionalProperties":false}},"$ref":"#/$defs/n"}`,
	`{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}},"additionalProperties":false}`,
	`{"$defs":{"s":{"type":"string"}},"anyOf":[{"$ref":"#/$defs/s"},{"type":"array","items":{"$ref":"#/$defs/s"}}]}`,
	`{"$ref":"#/$defs/a","minProperties":1,"$defs":{"a":{"type":"object"}}}`,
	`{"definitions":{"i":{"type":"integer"}},"items":{"$ref":"#/definitions/i"}}`,
	`{"type":"object","propertyNames":{"pattern":"^[a-c]+$","maxLength":2},"additionalProperties":{"type":"integer"}}`,
	`{"propertyNames":false}`,
	`{"propertyNames":{"enum":["a","b","é"]},"properties":{"a":{"default":1}},"maxProperties":2}`,
	`{"$defs":{"k":{"minLength":2}},"propertyNames":{"$ref":"#/$defs/k"}}`,
	`{"propertyNames":{"type":"integer"}}`,
	`{"anyOf":[{"propertyNames":{"const":"a"}},{"propertyNames":{"pattern":"^-?(0|[1-9][0-9]*)$"}}]}`,
	`{"type":"object","properties":{"p1":{},"p2":{},"p3":{},"p4":{},"p5":{},"p6":{},"p7":{},"p8":{},"p9":{"type":"string"},"p10":{"type":"integer"}},"required":["p10"],"additionalProperties":false}`,
}

var diffInstances = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1`, `2`, `2.0`, `2.5`, `3`, `4`, `5`, `6`, `9`, `10`, `100`, `100.5`,
	`-1.5`, `-2`, `1e2`, `1E-2`, `0.25`, `0.75`, `12345678901234567890`, `1e308`, `1e-400`,
	`""`, `"a"`, `"ab"`, `"abc"`, `"abcd"`, `"C"`, `"K"`, `"\u0043"`, `"a\"b"`, `"é"`, `"éé"`, `"\u00e9"`, `"aa1"`, `"ab12"`, `"x\ny"`,
	`[1]`, `[1,2]`, `[1,2,3,4]`, `["a"]`, `["a",true]`, `["a",true,1]`, `[1.5]`, `[null]`, `[[]]`,
	`{"a":"x"}`, `{"a":1}`, `{"a":"x","b":2}`, `{"a":"x","b":"2"}`, `{"a":"x","c":1}`, `{"a":"x","z":1}`,
	`{"b":1}`, `{"v":1}`, `{"v":1,"next":{"v":2}}`, `{"v":1,"next":{"v":"2"}}`, `{"v":1,"next":{"w":2}}`,
	`{"kids":[{"kids":[]}]}`, `{"kids":[{"x":1}]}`, `{"a/b":1,"~":2}`, `{"a/b":2}`, `{"é":"x"}`, `{"\u00e9":1}`,
	`{"x":{"y":[{"z":1},{}]}}`, `{"x":{"y":[{"z":1}]}}`, `{"x":1.5,"y":2}`, `{"x":1,"y":2,"z":3}`,
	`{"p10":1}`, `{"p10":1,"p9":"s","p1":null}`, `{"p9":1}`, `{"p10":1,"p11":0}`,
	`{"a":"x"} `, ` [ 1 , 2 ] `, `{"a":`, `[1,]`, `{"a" 1}`, `01`, `"\x"`, `nul`,
}

// reference is jsonschema-go's verdict on inst, or skip when the instance is outside what both
// validators can judge alike (duplicate names, numbers beyond float64).
func reference(t testing.TB, v *Validator, inst []byte) (valid, skip bool, syntaxErr bool) {
	var strict any
	if err := jsonv2.Unmarshal(inst, &strict); err != nil {
		var se *jsontext.SyntacticError
		if errors.As(err, &se) {
			if errors.Is(err, jsontext.ErrDuplicateName) {
				return false, true, false
			}
			return false, false, true
		}
		return false, true, false
	}
	var inst1 any
	if err := json.Unmarshal(inst, &inst1); err != nil {
		return false, true, false
	}
	if !floatExact(v, inst) {
		return false, true, false
	}
	if v.recursive && depth(inst1) > 4 {
		// jsonschema-go may take time exponential in the depth: no verdict to compare with.
		return false, true, false
	}
	defer func() {
		if r := recover(); r != nil {
			t.Logf("jsonschema-go panicked on %s: %v", inst, r)
			skip = true
		}
	}()
	return v.resolved.Validate(inst1) == nil, false, false
}

// floatExact reports whether jsonschema-go's float64 arithmetic gives exact verdicts on inst:
// every number in it is exactly its float64 and within 2^53, and every multipleOf of the schema
// is exactly the decimal it was written as. The validator judges numbers by what was written
// (1e-400 is not an integer, 0.3 is a multiple of 0.1), so elsewhere the two may differ.
func floatExact(v *Validator, inst []byte) bool {
	for _, s := range v.res.all {
		if m := s.MultipleOf; m != nil {
			r, _ := new(big.Rat).SetString(strconv.FormatFloat(*m, 'g', -1, 64))
			if r == nil || r.Cmp(new(big.Rat).SetFloat64(*m)) != 0 {
				return false
			}
		}
	}
	dec := jsontext.NewDecoder(bytes.NewReader(inst))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return true
		}
		if tok.Kind() != '0' {
			continue
		}
		lit := tok.String()
		f, err := strconv.ParseFloat(lit, 64)
		r, ok := new(big.Rat).SetString(lit)
		if err != nil || !ok || math.Abs(f) > 1<<53 || r.Cmp(new(big.Rat).SetFloat64(f)) != 0 {
			return false
		}
	}
}

// depth returns how deeply v nests arrays and objects.
func depth(v any) int {
	d := 0
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			d = max(d, depth(e))
		}
		return d + 1
	case map[string]any:
		for _, e := range x {
			d = max(d, depth(e))
		}
		return d + 1
	}
	return 0
}

func checkAgreement(t testing.TB, schema string, v *Validator, inst []byte) {
	t.Helper()
	if isBlank(string(inst)) || !utf8.Valid(inst) {
		return
	}
	want, skip, syntax := reference(t, v, inst)
	if skip {
		return
	}
	err := v.Validate(inst)
	var ae *ArgumentError
	if err != nil && !errors.As(err, &ae) {
		t.Fatalf("schema %s, instance %s: error %T is not an *ArgumentError", schema, inst, err)
	}
	if ae != nil && ae.Issues[0].Keyword == "limit" {
		return // refused as too costly to check: no verdict to compare
	}
	switch {
	case syntax:
		if err == nil || !ae.Syntax {
			t.Errorf("schema %s, instance %q: the JSON codec rejects it, the validator says %v", schema, inst, err)
		}
	case want && err != nil:
		t.Errorf("schema %s, instance %s: jsonschema-go accepts it, the validator says %v", schema, inst, err)
	case !want && err == nil:
		t.Errorf("schema %s, instance %s: jsonschema-go rejects it, the validator accepts it", schema, inst)
	}
}

func TestValidatorMatchesJSONSchemaGo(t *testing.T) {
	pairs := 0
	for _, schema := range diffSchemas {
		v := mustValidator(t, schema)
		if v.root == nil {
			t.Errorf("schema %s: not compiled for the single pass: %s", schema, v.unsupported)
			continue
		}
		for _, inst := range diffInstances {
			checkAgreement(t, schema, v, []byte(inst))
			pairs++
		}
	}
	t.Logf("%d schemas × %d instances = %d pairs compared", len(diffSchemas), len(diffInstances), pairs)
}

func FuzzValidate(f *testing.F) {
	for i, schema := range diffSchemas {
		for j, inst := range diffInstances {
			if (i+j)%7 == 0 { // a spread of pairs; the fuzzer crosses the rest
				f.Add(schema, inst)
			}
		}
	}
	for _, d := range defaultSchemas {
		f.Add(d.schema, d.args) // those the single pass checks: defaults beside counts and applicators
	}
	f.Fuzz(func(t *testing.T, schema, inst string) {
		v, err := Compile(json.RawMessage(schema))
		if err != nil || v.root == nil {
			return
		}
		checkAgreement(t, schema, v, []byte(inst))
		// Prepare must leave valid arguments valid.
		if out, err := v.Prepare(inst); err == nil {
			if err := v.ValidateString(out); err != nil {
				t.Errorf("schema %s: arguments %s with defaults %s are invalid: %v", schema, inst, out, err)
			}
		}
	})
}
