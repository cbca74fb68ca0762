package schema

import (
	"reflect"
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
