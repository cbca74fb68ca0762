package schema

import (
	"encoding/json"
	"math"
	"math/rand"
	"reflect"
	"testing"
	"testing/quick"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
)

type encInner struct {
	Label string            `json:"label"`
	Score float32           `json:"score,omitempty"`
	Seen  map[string]bool   `json:"seen,omitempty"`
	Next  *encInner         `json:"next,omitempty"`
	Notes map[string]string `json:"notes"`
}

type encResult struct {
	Text     string             `json:"text"`
	Count    int                `json:"count,omitempty"`
	Small    int8               `json:"small,omitzero"`
	Big      uint64             `json:"big"`
	Ratio    float64            `json:"ratio"`
	OK       bool               `json:"ok"`
	Wait     time.Duration      `json:"wait"`
	Ptr      *string            `json:"ptr,omitempty"`
	List     []float64          `json:"list"`
	Inner    encInner           `json:"inner"`
	Inners   []*encInner        `json:"inners,omitempty"`
	ByName   map[string]float64 `json:"byName"`
	Bytes    []byte             `json:"bytes,omitempty"`
	Untagged string
	Skipped  int `json:"-"`
}

// encMixed has parts only the codec writes.
type encMixed struct {
	Any    any             `json:"any,omitempty"`
	At     time.Time       `json:"at,omitzero"`
	Raw    json.RawMessage `json:"raw,omitempty"`
	Result encResult       `json:"result"`
	hidden int
}

// The encoder's plans write what the v2 codec writes, byte for byte, for random values.
func TestEncoderMatchesTheCodec(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[encResult](), reflect.TypeFor[*encResult](), reflect.TypeFor[[]encInner](),
		reflect.TypeFor[map[string]encInner](), reflect.TypeFor[string](), reflect.TypeFor[float32](),
	} {
		e := EncoderFor(typ)
		if e.plan == nil {
			t.Errorf("%v has no plan", typ)
			continue
		}
		rnd := rand.New(rand.NewSource(1))
		for range 100 {
			v, ok := quick.Value(typ, rnd)
			if !ok {
				t.Fatalf("no random %v", typ)
			}
			got, gotErr := e.Encode(v.Interface())
			want, wantErr := jsonv2.Marshal(v.Interface(), encodeOptions)
			if (gotErr == nil) != (wantErr == nil) || gotErr == nil && got != string(want) {
				t.Fatalf("%v:\n plan  %s (%v)\n codec %s (%v)", typ, got, gotErr, want, wantErr)
			}
		}
	}
}

func TestEncoderEdgeCases(t *testing.T) {
	cyclic := &encInner{Label: "a"}
	cyclic.Next = cyclic
	negZero := math.Copysign(0, -1) // the literal -0.0 is positive zero
	for _, v := range []any{
		encResult{Text: "bad \xff utf8 <&> \u2028 \x01", Ratio: 1e21, List: []float64{1e-7, negZero, 123456789}},
		encInner{Seen: map[string]bool{"b": true, "a": false, "\xff": true, "\xfe": true}},
		map[string]encInner{"z": {}, "a": {Label: "x"}},
		[]*encInner{nil, {}},
		float32(0.1), float32(123456789), float32(negZero), float32(1e10),
		[]float64{30, negZero, 1e15, 1e15 - 1, 1e14 + 0.5, -123456789012345, 1e21, 9007199254740993},
		encMixed{Any: map[string]any{"k": []any{1.5, "x", time.Second}}, At: time.Unix(1e9, 5).UTC(), Raw: json.RawMessage(`{"a": 1}`), hidden: 1},
		&encMixed{},
	} {
		got, gotErr := EncodeAny(v)
		want, wantErr := jsonv2.Marshal(v, encodeOptions)
		if (gotErr == nil) != (wantErr == nil) || gotErr == nil && got != string(want) {
			t.Errorf("%#v:\n plan  %s (%v)\n codec %s (%v)", v, got, gotErr, want, wantErr)
		}
	}
	// A value that refers to itself is an error, not a crash.
	if _, err := EncodeAny(cyclic); err == nil {
		t.Error("a cyclic value was encoded")
	}
	if _, err := EncodeAny(encResult{Ratio: 1 / zero()}); err == nil {
		t.Error("an infinite number was encoded")
	}
}

func zero() float64 { return 0 }

// Floats with few decimals take a short path; it writes what the v2 codec writes, for numbers
// of every decimal length, near the limits of the path and beyond them.
func TestEncodeFloats(t *testing.T) {
	rnd := rand.New(rand.NewSource(2))
	var vals []float64
	for range 20000 {
		places := rnd.Intn(9)
		scale := math.Pow(10, float64(places))
		m := float64(rnd.Int63n(1 << uint(1+rnd.Intn(52))))
		vals = append(vals, m/scale, -m/scale, rnd.Float64()*math.Pow(10, float64(rnd.Intn(40)-20)))
	}
	vals = append(vals, 0.1, 0.2, 0.1+0.2, 1.0/3, 2.5, -0.5, 0.000001, 0.0000015, 1e-7, 999999999999999.9,
		1e15-0.5, 1e15+0.5, 4503599627370495.5, 9007199254740.993, 123.456, 1.005, 5e-324, math.MaxFloat64,
		math.Nextafter(0.1, 1), math.Nextafter(22.5, 0), math.Nextafter(1e15, 0))
	for _, f := range vals {
		got := string(appendFloatBits(nil, f, 64))
		want, err := jsonv2.Marshal(f)
		if err != nil || got != string(want) {
			t.Fatalf("%v (%b): wrote %s, the codec %s (%v)", f, math.Float64bits(f), got, want, err)
		}
	}
}
