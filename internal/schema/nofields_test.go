package schema

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// A struct without JSON fields holds nothing the arguments can set; the v2 codec refuses to
// read one ("Go struct has no exported fields") when a parent it decodes as a whole has it.
type (
	hiddenOnly struct{ secret int }
	// stringTagged has a string option, so no single-pass plan decodes it.
	stringTagged struct {
		H hiddenOnly `json:"h,omitzero"`
		N int        `json:"n,string,omitempty"`
	}
	embedBase struct{ Base string }
	withEmbed struct {
		embedBase
		H  *hiddenOnly           `json:"h,omitempty"`
		L  []hiddenOnly          `json:"l,omitempty"`
		M  map[string]hiddenOnly `json:"m,omitempty"`
		AH [1]hiddenOnly         `json:"ah,omitzero"`
	}
)

func TestStructWithoutFieldsInsideADecodedParent(t *testing.T) {
	c, err := For(reflect.TypeFor[stringTagged]())
	if err != nil {
		t.Fatal(err)
	}
	var got stringTagged
	if err := c.Decode(`{"h":{},"n":"3"}`, &got); err != nil {
		t.Errorf("Decode: %v", err)
	} else if got.N != 3 {
		t.Errorf("decoded %+v", got)
	}
	c, err = For(reflect.TypeFor[withEmbed]())
	if err != nil {
		t.Fatal(err)
	}
	var w withEmbed
	if err := c.Decode(`{"Base":"b","h":{},"l":[{},{}],"m":{"k":{}},"ah":[{}]}`, &w); err != nil {
		t.Errorf("Decode: %v", err)
	} else if w.Base != "b" || w.H == nil || len(w.L) != 2 || len(w.M) != 1 {
		t.Errorf("decoded %+v", w)
	}
	// What the schema refuses is still refused.
	if err := c.Decode(`{"h":{"secret":1}}`, new(withEmbed)); err == nil {
		t.Error("a member of a struct without fields was accepted")
	}
}

// A map with integer keys says so in its schema, so that a key the codec cannot read is refused
// where arguments are checked, by the single pass, like any other invalid argument.
type intKeys struct {
	ByID   map[int]string  `json:"by_id"`
	Counts map[uint8]int   `json:"counts,omitempty"`
	Names  map[string]bool `json:"names,omitempty"`
}

func TestIntegerMapKeys(t *testing.T) {
	c, v := codecFor[intKeys](t)
	if why := v.General(); why != "" {
		t.Errorf("the schema is left to the general validator: %s", why)
	}
	var got intKeys
	if err := c.Decode(`{"by_id":{"-3":"a","0":"b","42":"c"},"counts":{"7":1},"names":{"x":true}}`, &got); err != nil {
		t.Fatal(err)
	}
	if got.ByID[-3] != "a" || got.ByID[42] != "c" || got.Counts[7] != 1 || !got.Names["x"] {
		t.Errorf("decoded %+v", got)
	}
	for _, bad := range []string{`{"by_id":{"a":"x"}}`, `{"by_id":{"01":"x"}}`, `{"by_id":{" 1":"x"}}`, `{"by_id":{},"counts":{"-1":1}}`, `{"by_id":{"1.5":"x"}}`} {
		err := c.Decode(bad, new(intKeys))
		var ae *ArgumentError
		if !errors.As(err, &ae) || ae.Issues[0].Keyword != "pattern" || !strings.Contains(ae.Issues[0].Message, "property name") {
			t.Errorf("Decode(%s) = %v, want a pattern issue naming the property", bad, err)
		}
	}
	// The range of a small integer type is left to decoding, which says so.
	err := c.Decode(`{"by_id":{},"counts":{"300":1}}`, new(intKeys))
	var ae *ArgumentError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("a key out of range: %v", err)
	}
}
