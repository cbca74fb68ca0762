package chat

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// usageWith returns a Usage whose i-th field is f(i), so every field, present and future, is
// checked by the tests below.
func usageWith(f func(i int) int) Usage {
	var u Usage
	v := reflect.ValueOf(&u).Elem()
	for i := range v.NumField() {
		v.Field(i).SetInt(int64(f(i)))
	}
	return u
}

// TestUsageFields: Add sums every field, aggregation keeps every field's latest report, and
// every field survives JSON under its lower-camel-case name, omitted when zero.
func TestUsageFields(t *testing.T) {
	a := usageWith(func(i int) int { return i + 1 })
	b := usageWith(func(i int) int { return 10 * (i + 1) })
	if got, want := a.Add(b), usageWith(func(i int) int { return 11 * (i + 1) }); got != want {
		t.Errorf("Add = %+v, want %+v", got, want)
	}
	if got := (Usage{}).Add(a); got != a {
		t.Errorf("zero.Add(a) = %+v, want %+v", got, a)
	}

	got, err := Aggregate(seq(&Response{Usage: a}, &Response{Usage: Usage{}}, &Response{Usage: b}))
	if err != nil || got.Usage != b {
		t.Errorf("aggregated usage = %+v (%v), want the last report %+v", got.Usage, err, b)
	}

	data, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var back Usage
	if err := json.Unmarshal(data, &back); err != nil || back != a {
		t.Errorf("JSON round trip = %+v (%v), want %+v", back, err, a)
	}
	var fields map[string]int
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeFor[Usage]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name := string(unicode.ToLower(rune(f.Name[0]))) + f.Name[1:]
		if fields[name] != i+1 {
			t.Errorf("field %s is %q in JSON (%s), want %q", f.Name, f.Tag.Get("json"), data, name)
		}
		if !strings.HasSuffix(f.Tag.Get("json"), ",omitempty") {
			t.Errorf("field %s: JSON tag %q does not omit zero", f.Name, f.Tag.Get("json"))
		}
	}
	if data, _ := json.Marshal(Usage{}); string(data) != "{}" {
		t.Errorf("zero usage = %s, want {}", data)
	}
}
