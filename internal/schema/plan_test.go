package schema

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
)

// The types plans are tested with: every kind a plan stores itself, and parts it leaves to the
// v2 codec.
type planInner struct {
	Label string   `json:"label"`
	Tags  []string `json:"tags,omitempty"`
}

type planNode struct {
	Name string      `json:"name"`
	Kids []*planNode `json:"kids,omitempty"`
}

type planArgs struct {
	S    string               `json:"s"`
	B    bool                 `json:"b,omitempty"`
	I    int                  `json:"i,omitempty"`
	I8   int8                 `json:"i8,omitempty"`
	U16  uint16               `json:"u16,omitempty"`
	U64  uint64               `json:"u64,omitempty"`
	I64  int64                `json:"i64,omitempty"`
	F32  float32              `json:"f32,omitempty"`
	F64  float64              `json:"f64,omitempty"`
	D    time.Duration        `json:"d,omitempty" default:"90s"`
	T    time.Time            `json:"t,omitzero"`
	P    *int                 `json:"p,omitempty"`
	In   planInner            `json:"in,omitzero"`
	PIn  *planInner           `json:"pin,omitempty"`
	L    []int                `json:"l,omitempty"`
	M    map[string]float64   `json:"m,omitempty"`
	MM   map[string]planInner `json:"mm,omitempty"`
	A    any                  `json:"a,omitempty"`
	Raw  json.RawMessage      `json:"raw,omitempty"`
	Arr  [2]int               `json:"arr,omitzero"`
	Tree *planNode            `json:"tree,omitempty"`
	Def  string               `json:"def,omitempty" default:"dflt"`
	Enum string               `json:"enum,omitempty" enum:"x,y"`
}

var planInputs = []string{
	`{"s":"a"}`, `{"s":"a\u00e9\n","b":true,"i":-3,"i8":127,"u16":65535,"u64":18446744073709551615,"i64":-9223372036854775808}`,
	`{"s":"","i":2.0,"i64":1e3,"f32":1.5,"f64":-0.25e-3,"d":"1h30m","t":"2025-06-01T07:30:00Z"}`,
	`{"s":"x","p":5,"in":{"label":"l","tags":["a","b"]},"pin":{"label":"p"},"l":[1,2,3],"m":{"a":1.5,"b":-2}}`,
	`{"s":"x","mm":{"k":{"label":"v"}},"a":{"any":[1,"two",null]},"raw":[1, 2],"arr":[1,2],"tree":{"name":"r","kids":[{"name":"k"}]}}`,
	`{"s":"x","i":1e30}`, `{"s":"x","i":99999999999999999999}`, `{"s":"x","u64":-1}`, `{"s":"x","i8":128}`,
	`{"s":"x","f32":1e39}`, `{"s":"x","d":"99999999999h"}`, `{"s":"x","t":"yesterday"}`, `{"s":"x","m":{"a":1,"a":2}}`,
	`{"s":"x","enum":"z"}`, `{"s":1}`, `{"s":"x","l":[1,"2"]}`, `{"s":"x","extra":1}`, `{}`, `{"s":"x","in":{}}`,
	`{"s":"x","tree":{"name":"r","kids":[{"kids":[]}]}}`, `{"s":"x","p":null}`, `{"s":"x",}`, ``, `[]`,
	`{"s":"x","l":[]}`, `{"s":"x","m":{}}`, `{"s":"x","d":"5m","def":"given"}`, `{"s":"\ud83d\ude00"}`,
}

// codecFor compiles T's codec and its validator, failing t if either fails.
func codecFor[T any](t *testing.T) (*Codec, *Validator) {
	t.Helper()
	c, err := For(reflect.TypeFor[T]())
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.Validator()
	if err != nil {
		t.Fatal(err)
	}
	return c, v
}

// decodeBoth decodes args into a T with the plan and by validating, then decoding with the v2
// codec, as codecs without a plan do.
func decodeBoth[T any](t *testing.T, args string) (plan, general T, planErr, generalErr error) {
	t.Helper()
	c, v := codecFor[T](t)
	if c.plan == nil {
		t.Fatalf("%v has no plan", reflect.TypeFor[T]())
	}
	planErr = c.Decode(args, &plan)
	data, generalErr := v.Prepare(args)
	if generalErr == nil {
		if err := jsonv2.Unmarshal([]byte(data), &general, c.opts...); err != nil {
			generalErr = decodeError(err)
		}
	}
	return plan, general, planErr, generalErr
}

func comparePlans[T any](t *testing.T, args string) {
	t.Helper()
	plan, general, planErr, generalErr := decodeBoth[T](t, args)
	var pe, ge *ArgumentError
	if planErr != nil && !errors.As(planErr, &pe) || generalErr != nil && !errors.As(generalErr, &ge) {
		t.Fatalf("%s: errors are not ArgumentErrors: %v; %v", args, planErr, generalErr)
	}
	switch {
	case (planErr == nil) != (generalErr == nil):
		t.Errorf("%s: the plan says %v, validating then decoding says %v", args, planErr, generalErr)
	case planErr != nil && (pe.Syntax != ge.Syntax || pe.Issues[0].Path != ge.Issues[0].Path):
		t.Errorf("%s: the plan says %v, validating then decoding says %v", args, planErr, generalErr)
	case planErr == nil && !reflect.DeepEqual(plan, general):
		t.Errorf("%s: the plan decodes\n%#v\nvalidating then decoding gives\n%#v", args, plan, general)
	}
}

func TestPlanDecodesAsTheCodecDoes(t *testing.T) {
	for _, args := range planInputs {
		comparePlans[planArgs](t, args)
		comparePlans[*planArgs](t, args)
		comparePlans[map[string]planInner](t, args)
	}
}

// FuzzDecode holds plans to what validating and then decoding with the v2 codec gives.
func FuzzDecode(f *testing.F) {
	for _, args := range planInputs {
		f.Add(args)
	}
	f.Fuzz(func(t *testing.T, args string) {
		comparePlans[planArgs](t, args)
		comparePlans[map[string]planInner](t, args)
	})
}
