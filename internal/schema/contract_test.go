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
