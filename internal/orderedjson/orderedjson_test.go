package orderedjson

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/internal/testenv"
)

func TestParseKeepsOrderAndNumbers(t *testing.T) {
	cases := []string{
		`{}`,
		`[]`,
		`{"zeta":1,"alpha":{"y":[1.50,{"b":true,"a":null}],"x":"s"},"mid":-0.0e+10}`,
		`[{"b":1,"a":2},"x",12345678901234567890]`,
		`"just a string"`,
		`null`,
		`{"esc\"aped":"<&>","unicode":"\u00e9"}`,
	}
	for _, in := range cases {
		v, err := Parse([]byte(in))
		if err != nil {
			t.Fatalf("Parse(%s): %v", in, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if want := compact(t, in); string(b) != want {
			t.Errorf("round trip of %s = %s, want %s", in, b, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":}`, `{"a":1,}`, `[1,]`, `{} x`, `{}{}`, `]`, `{"a" 1}`, `{1:2}`} {
		if v, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", in, v)
		}
	}
	if _, err := Parse([]byte("{} \n\t")); err != nil {
		t.Errorf("trailing white space: %v", err)
	}
}

func TestParseObject(t *testing.T) {
	o, err := ParseObject([]byte(`{"b":1,"a":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Keys(); !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("keys = %v", got)
	}
	for _, in := range []string{`[1]`, `"s"`, `1`, `null`, `{`} {
		if _, err := ParseObject([]byte(in)); err == nil {
			t.Errorf("ParseObject(%s): no error", in)
		}
	}
}

func TestObjectMembers(t *testing.T) {
	var o Object // the zero value is ready to use
	if o.Len() != 0 || o.Get("a") != nil {
		t.Fatal("zero object not empty")
	}
	o.Set("c", 1)
	o.Set("a", nil)
	o.Set("b", "x")
	o.Set("c", 3) // in place
	if v, ok := o.Lookup("a"); !ok || v != nil {
		t.Errorf("Lookup(a) = %v, %v: a null member is present", v, ok)
	}
	if _, ok := o.Lookup("z"); ok {
		t.Error("Lookup(z) found a member o does not have")
	}
	if o.Get("c") != 3 || o.Len() != 3 {
		t.Errorf("c = %v, len = %d", o.Get("c"), o.Len())
	}
	o.Delete("a")
	o.Delete("missing")
	if got := testenv.JSON(t, &o); got != `{"c":3,"b":"x"}` {
		t.Errorf("after delete: %s", got)
	}
	o.Set("a", true) // a deleted member comes back last
	var keys []string
	for k, v := range o.All() {
		keys = append(keys, k)
		if v != o.Get(k) {
			t.Errorf("All yields %v for %s", v, k)
		}
	}
	if !slices.Equal(keys, []string{"c", "b", "a"}) {
		t.Errorf("All order = %v", keys)
	}
	// Keys is a copy: deleting while ranging over it visits every member.
	for _, k := range o.Keys() {
		o.Delete(k)
	}
	if o.Len() != 0 || testenv.JSON(t, &o) != `{}` {
		t.Errorf("not empty after deleting every key: %s", testenv.JSON(t, &o))
	}
	for range New().All() {
		t.Error("an empty object yields members")
	}
	stop := 0
	for range mustObject(t, `{"a":1,"b":2,"c":3}`).All() {
		stop++
		break
	}
	if stop != 1 {
		t.Errorf("All went on after break: %d", stop)
	}
}

func TestClone(t *testing.T) {
	o := mustObject(t, `{"n":{"x":1},"l":[{"y":2},[3]],"s":"v"}`)
	c := o.Clone()
	c.Get("n").(*Object).Set("x", 9)
	c.Get("l").([]any)[0].(*Object).Delete("y")
	c.Get("l").([]any)[1].([]any)[0] = "changed"
	c.Set("new", 1)
	if got := testenv.JSON(t, o); got != `{"n":{"x":1},"l":[{"y":2},[3]],"s":"v"}` {
		t.Errorf("changing the clone changed the original: %s", got)
	}
	if got := testenv.JSON(t, c); got != `{"n":{"x":9},"l":[{},["changed"]],"s":"v","new":1}` {
		t.Errorf("clone = %s", got)
	}
	if CloneValue(json.Number("1")) != json.Number("1") || CloneValue(nil) != nil {
		t.Error("CloneValue changed a scalar")
	}
}

func TestMap(t *testing.T) {
	o := mustObject(t, `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}}}`)
	m := o.Map()
	if len(m) != 2 || m["type"] != "object" {
		t.Fatalf("Map = %v", m)
	}
	// Nested objects keep their order when the map is marshalled.
	if got := testenv.JSON(t, m); got != `{"properties":{"z":{"type":"string"},"a":{"type":"integer"}},"type":"object"}` {
		t.Errorf("marshalled map = %s", got)
	}
}

func TestResolveRef(t *testing.T) {
	const doc = `{"$defs":{"a/b":{"type":"string"},"t~x":{"type":"integer"},"node":{"properties":{"c":{"$ref":"#/$defs/node"}}}},"anyOf":[{"type":"null"},{"type":"boolean"}],"":{"type":"number"}}`
	ordered, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var plain any
	if err := json.Unmarshal([]byte(doc), &plain); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ ref, want, err string }{
		{ref: "#", want: compact(t, doc)},
		{ref: "#/$defs/a~1b", want: `{"type":"string"}`},
		{ref: "#/$defs/t~0x", want: `{"type":"integer"}`},
		{ref: "#/$defs/node/properties/c", want: `{"$ref":"#/$defs/node"}`},
		{ref: "#/anyOf/1", want: `{"type":"boolean"}`},
		{ref: "#/anyOf/1/type", want: `"boolean"`},
		{ref: "#/", want: `{"type":"number"}`},
		{ref: "#/$defs/missing", err: "points nowhere"},
		{ref: "#/anyOf/2", err: "points nowhere"},
		{ref: "#/anyOf/-1", err: "points nowhere"},
		{ref: "#/anyOf/x", err: "points nowhere"},
		{ref: "#/anyOf/1/type/deeper", err: "points nowhere"},
		{ref: "#node", err: "anchors are not supported"},
		{ref: "other.json#/$defs/x", err: "only local $ref"},
		{ref: "", err: "only local $ref"},
	}
	for _, root := range []any{ordered, plain} {
		for _, tc := range cases {
			got, err := ResolveRef(root, tc.ref)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("%T: ResolveRef(%q) error = %v, want %q", root, tc.ref, err, tc.err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%T: ResolveRef(%q): %v", root, tc.ref, err)
				continue
			}
			want := tc.want
			if _, isPlain := root.(map[string]any); isPlain {
				want = compact(t, sorted(t, want))
			}
			if got := testenv.JSON(t, got); got != want {
				t.Errorf("%T: ResolveRef(%q) = %s, want %s", root, tc.ref, got, want)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1,{"c":null}]}`, `[]`, `"x"`, `1.50`, `{} x`, `{"a":`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse([]byte(s))
		if valid := json.Valid([]byte(s)); (err == nil) != valid {
			t.Fatalf("Parse(%q) error = %v, json.Valid = %v", s, err, valid)
		}
		if err != nil {
			return
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		// Writing back loses nothing: it decodes to what the input decodes to.
		if got, want := sorted(t, string(b)), sorted(t, s); got != want {
			t.Fatalf("round trip of %q = %s", s, b)
		}
	})
}

func mustObject(t *testing.T, s string) *Object {
	t.Helper()
	o, err := ParseObject([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// compact returns s without white space, its members in their order.
func compact(t *testing.T, s string) string {
	t.Helper()
	v, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return testenv.JSON(t, v)
}

// sorted returns s as encoding/json writes it back: members sorted, numbers kept.
func sorted(t *testing.T, s string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return testenv.JSON(t, v)
}

// TestMarshalDeep checks that nested objects and arrays are written in order, in one pass, with
// other values as encoding/json writes them.
func TestMarshalDeep(t *testing.T) {
	in := `{"z":{"b":[1.50,{"y":"é\u0000<"},null,true],"a":{}},"m":[],"n":{"k":[[{"j":1}]]}}`
	o, err := ParseObject([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":{"b":[1.50,{"y":"é\u0000\u003c"},null,true],"a":{}},"m":[],"n":{"k":[[{"j":1}]]}}`; string(got) != want {
		t.Fatalf("Marshal =\n%s\nwant\n%s", got, want)
	}
	if _, err := json.Marshal(&Object{keys: []string{"f"}, vals: map[string]any{"f": func() {}}}); err == nil {
		t.Fatal("a value encoding/json cannot write was written")
	}
}

func TestCheck(t *testing.T) {
	if err := Check([]byte(`{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}`), ConfigBounds); err != nil {
		t.Fatalf("distinct members refused: %v", err)
	}
	for bad, want := range map[string]string{
		`{"model":"a","model":"b"}`:              `model: key "model" is given twice`,
		`{"x":{"y":1,"y":2}}`:                    `x.y: key "y" is given twice`,
		`[{"a":1,"a":1}]`:                        `the document[0].a: key "a" is given twice`,
		`{"x":{"\u0061":1,"a":2}}`:               `x.a: key "a" is given twice`,
		`{"a.b":{"c":1,"c":2}}`:                  `"a.b".c: key "c" is given twice`,
		`{"k":{"\u202e":1,"\u202e":2}}`:          `k."\u202e": key`,
		`{"s":"` + strings.Repeat("x", 9) + `"}`: "s: a string of 9 B is over the limit of 8 B",
		`{"` + strings.Repeat("x", 9) + `":1}`:   "the document: a key of 9 B is over the limit of 8 B",
		`{"l":[1,2,3,4,5]}`:                      "l has more than 4 elements",
		`{"a":1,"b":2,"c":3,"d":4,"e":5}`:        "the document has more than 4 members",
		`{"d":[[[{"e":1}]]]}`:                    "d[0][0]: nested more than 3 deep",
	} {
		err := Check([]byte(bad), Bounds{MaxString: 8, MaxList: 4, MaxDepth: 3})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", bad, err, want)
		}
	}
	// The zero Bounds limit nothing but duplicates; a syntax error is the decoder's to report.
	if err := Check([]byte(`{"l":[`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`]}`), Bounds{}); err != nil {
		t.Errorf("no bounds: %v", err)
	}
	if err := Check([]byte(`{"a":`), ConfigBounds); err != nil {
		t.Errorf("a syntax error: %v", err)
	}
}
