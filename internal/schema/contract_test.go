package schema

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Types whose struct tags the v2 codec refuses (a format option, an embedded field of a
// non-struct type; two fields with one name too, which go vet reports) could never be decoded: every call failed with "an
// object cannot be read as an object". Inference refuses them, so the tool is never built.
type (
	formatTagged struct {
		Data []byte `json:"data,format:hex"`
	}
	embeddedName      string
	embeddedNonStruct struct {
		embeddedName
		Other int `json:"other"`
	}
	deepFormat struct {
		Inner []map[string]*formatTagged `json:"inner"`
	}
	stringOnSlice struct {
		IDs []int `json:"ids,string"`
	}
	stringOnBool struct {
		On bool `json:"on,string"`
	}
)

func TestInferenceRefusesTypesTheCodecCannotRead(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[formatTagged](), reflect.TypeFor[embeddedNonStruct](),
		reflect.TypeFor[deepFormat](), reflect.TypeFor[stringOnSlice](), reflect.TypeFor[stringOnBool](),
	} {
		c, err := For(typ)
		if err == nil {
			err = c.Decode(`{}`, reflect.New(typ).Interface())
			t.Errorf("For(%v) accepted the type; decoding {} gives %v", typ, err)
			continue
		}
		t.Logf("%v: %v", typ, err)
	}
}

// The string option makes the v2 codec read a number from a JSON string ("42"): the schema says
// so, and the codec reads what it says.
type stringNumbers struct {
	ID    int64    `json:"id,string"`
	Count *uint8   `json:"count,omitempty,string"`
	Ratio float64  `json:"ratio,omitzero,string"`
	Plain int      `json:"plain,omitempty"`
	Opt   *float32 `json:"opt,string,omitempty"`
}

func TestStringOptionNumbers(t *testing.T) {
	c, err := For(reflect.TypeFor[stringNumbers]())
	if err != nil {
		t.Fatal(err)
	}
	s := string(c.Schema())
	for _, want := range []string{`"id":{"type":"string","pattern":`, `"count":{"type":"string","pattern":`, `"ratio":{"type":"string","pattern":`, `"plain":{"type":"integer"}`} {
		if !strings.Contains(s, want) {
			t.Errorf("schema %s lacks %s", s, want)
		}
	}
	var got stringNumbers
	if err := c.Decode(`{"id":"9007199254740993","count":"255","ratio":"-1.5e-3","opt":"0.25"}`, &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != 9007199254740993 || got.Count == nil || *got.Count != 255 || got.Ratio != -1.5e-3 || got.Opt == nil || *got.Opt != 0.25 {
		t.Errorf("decoded %+v", got)
	}
	for _, bad := range []string{`{"id":42}`, `{"id":"4.5"}`, `{"id":"x"}`, `{"id":"1","count":"-1"}`, `{"id":"1","count":"256"}`, `{"id":"1","ratio":"NaN"}`, `{"id":" 1"}`} {
		err := c.Decode(bad, new(stringNumbers))
		var ae *ArgumentError
		if !errors.As(err, &ae) {
			t.Errorf("%s: %v, want an argument error", bad, err)
		}
	}
}

// Numbers are judged by what was written, not by the float64 they round to: decimals that are
// multiples of a decimal multipleOf pass (19.99 of 0.01, which float division refused), numbers
// that only round to integers or to a bound are not integers or within it, and -0, JSON's zero,
// is a valid unsigned integer.
func TestNumbersAreExact(t *testing.T) {
	for _, tc := range []struct {
		schema, inst string
		valid        bool
	}{
		{`{"type":"number","multipleOf":0.01}`, `19.99`, true},
		{`{"type":"number","multipleOf":0.01}`, `19.995`, false},
		{`{"type":"number","multipleOf":0.1}`, `0.3`, true},
		{`{"type":"number","multipleOf":1e-300}`, `1e10`, true},
		{`{"type":"number","multipleOf":0.123456789}`, `1e308`, false},
		{`{"type":"integer","multipleOf":1e-8}`, `12391239123`, true},
		{`{"type":"integer"}`, `1e-400`, false},
		{`{"type":"integer"}`, `1.0000000000000001`, false},
		{`{"type":"integer"}`, `9007199254740992.5`, false},
		{`{"type":"integer"}`, `1.5e1`, true},
		{`{"type":"integer"}`, `1.55e1`, false},
		{`{"type":"integer"}`, `1.50e2`, true},
		{`{"type":"integer"}`, `-0.0`, true},
		{`{"type":"integer","maximum":9007199254740992}`, `9007199254740993`, false},
		{`{"type":"number","maximum":1}`, `1.0000000000000001`, false},
		{`{"type":"number","minimum":1}`, `0.99999999999999999`, false},
		{`{"type":"number","exclusiveMinimum":1}`, `1.0000000000000001`, true},
		{`{"type":"number","maximum":1}`, `1.0`, true},
	} {
		v := mustValidator(t, tc.schema)
		if err := v.ValidateString(tc.inst); (err == nil) != tc.valid {
			t.Errorf("schema %s, %s: %v, want valid %v", tc.schema, tc.inst, err, tc.valid)
		}
	}
	type unsigned struct {
		U uint8  `json:"u"`
		N uint64 `json:"n,omitempty"`
	}
	c, err := For(reflect.TypeFor[unsigned]())
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{"u":-0}`, `{"u":-0.0,"n":-0e5}`} {
		var got unsigned
		if err := c.Decode(args, &got); err != nil || got != (unsigned{}) {
			t.Errorf("%s: %+v, %v", args, got, err)
		}
		if out, err := c.v.Prepare(args); err != nil || strings.Contains(out, "-") {
			t.Errorf("Prepare(%s) = %s, %v, want the zero without a sign", args, out, err)
		}
	}
}

// Keyword values JSON Schema forbids are refused when the schema is compiled: a multipleOf of 0
// rejected every number.
func TestCompileRefusesInvalidBounds(t *testing.T) {
	for _, schema := range []string{`{"multipleOf":0}`, `{"multipleOf":-2}`, `{"minLength":-1}`, `{"properties":{"a":{"maxItems":-1}}}`} {
		if _, err := Compile([]byte(schema)); err == nil {
			t.Errorf("Compile(%s) accepted it", schema)
		}
	}
}
