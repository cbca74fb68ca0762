package schema

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wield-ai/wield/internal/benchratio"
)

// The arguments and result of a typical tool: a few scalars, one constrained.
type benchArgs struct {
	Location string `json:"location" jsonschema:"City and country"`
	Unit     string `json:"unit" enum:"C,F"`
	Days     int    `json:"days,omitempty"`
}

type benchResult struct {
	Location    string    `json:"location"`
	Temperature float64   `json:"temperature"`
	Unit        string    `json:"unit"`
	Forecast    []float64 `json:"forecast"`
}

const benchCall = `{"location":"Copenhagen, Denmark","unit":"C","days":3}`

// BenchmarkCodec times the two halves of a tool call: the arguments validated and decoded in
// one pass, and the result encoded.
func BenchmarkCodec(b *testing.B) {
	c, err := For(reflect.TypeFor[benchArgs]())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		var in benchArgs
		for b.Loop() {
			in = benchArgs{}
			if err := c.Decode(benchCall, &in); err != nil {
				b.Fatal(err)
			}
		}
		if in.Days != 3 {
			b.Fatalf("decoded %+v", in)
		}
	})
	// Against encoding/json, which neither validates nor caches plans: a fixed yardstick, so
	// that the ratio survives load on a shared machine.
	b.Run("decode-ratio", func(b *testing.B) {
		var in benchArgs
		benchratio.Run(b, 64, "encoding/json", func() { json.Unmarshal([]byte(benchCall), &in) },
			"codec", func() { c.Decode(benchCall, &in) })
	})
	e := EncoderFor(reflect.TypeFor[benchResult]())
	out := &benchResult{Location: "Copenhagen, Denmark", Temperature: 22.5, Unit: "C", Forecast: []float64{21.5, 19, 23.25}}
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.Encode(out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode-ratio", func(b *testing.B) {
		benchratio.Run(b, 64, "encoding/json", func() { json.Marshal(out) },
			"encoder", func() { e.Encode(out) })
	})
}
