package client

import (
	"reflect"
	"testing"

	"github.com/wield-ai/wield/chat"
)

// plainOptions knows every field of chat.Options that Clone copies deeply: the slices and maps.
// A new one would make a shallow copy share it, so this test names them.
func TestPlainOptionsKnowsTheDeepFields(t *testing.T) {
	known := map[string]bool{"Stop": true, "Tools": true, "Extra": true}
	typ := reflect.TypeFor[chat.Options]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if k := f.Type.Kind(); (k == reflect.Slice || k == reflect.Map) && !known[f.Name] {
			t.Errorf("chat.Options.%s is a %v that plainOptions does not check", f.Name, k)
		}
	}
	o := &chat.Options{Model: "m", MaxTokens: 5, Temperature: chat.Ptr(0.5)}
	if !plainOptions(o) {
		t.Fatal("options without slices or maps are not plain")
	}
	if c := *o; !reflect.DeepEqual(&c, o.Clone()) {
		t.Errorf("a shallow copy %+v differs from Clone %+v", c, o.Clone())
	}
	for _, o := range []*chat.Options{nil, {Stop: []string{"x"}}, {Extra: map[string]any{"k": 1}}} {
		if plainOptions(o) {
			t.Errorf("%+v is plain", o)
		}
	}
}
