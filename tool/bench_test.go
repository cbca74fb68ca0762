package tool

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wield-ai/wield/internal/benchratio"
)

// The invoke benchmark: a model's JSON arguments to the text of the result, through a Func
// tool (validation included) and through the hand-written code it replaces.

type weatherArgs struct {
	Location string `json:"location" jsonschema:"City and country, e.g. Copenhagen, Denmark"`
	Unit     string `json:"unit" enum:"C,F" jsonschema:"Temperature unit"`
	Days     int    `json:"days,omitempty" jsonschema:"Days of forecast"`
}

type weatherReport struct {
	Location    string    `json:"location"`
	Temperature float64   `json:"temperature"`
	Unit        string    `json:"unit"`
	Forecast    []float64 `json:"forecast"`
}

var forecast = []float64{21.5, 19, 23.25}

func currentWeather(_ context.Context, in weatherArgs) (weatherReport, error) {
	return weatherReport{Location: in.Location, Temperature: 22.5, Unit: in.Unit, Forecast: forecast[:min(in.Days, len(forecast))]}, nil
}

const weatherCall = `{"location":"Copenhagen, Denmark","unit":"C","days":3}`

// directCall is what a tool call costs without wield: encoding/json in and out, no validation.
func directCall(ctx context.Context, args string) (string, error) {
	var in weatherArgs
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "", err
	}
	out, err := currentWeather(ctx, in)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func BenchmarkInvoke(b *testing.B) {
	ctx := context.Background()
	weather := Must(Func("currentWeather", "Get the weather in location", currentWeather))
	want, err := directCall(ctx, weatherCall)
	if err != nil {
		b.Fatal(err)
	}
	if got, err := weather.Call(ctx, weatherCall); err != nil || got != want {
		b.Fatalf("Func tool: %q, %v; direct: %q", got, err, want)
	}
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := directCall(ctx, weatherCall); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := weather.Call(ctx, weatherCall); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Through the execution envelope, as the runtimes call tools: with a context that cannot
	// be cancelled, the call stays on this goroutine.
	b.Run("invoke", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Invoke(ctx, weather, weatherCall); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The machines this runs on are shared, so the two sub-benchmarks above may see different
	// loads. This one alternates batches of both and reports their ratio, which load affects
	// alike.
	b.Run("ratio", func(b *testing.B) {
		benchratio.Run(b, 64, "direct", func() { directCall(ctx, weatherCall) }, "tool", func() { weather.Call(ctx, weatherCall) })
	})
}

// cacheBuster is registered before each Define so that the schemas are inferred again.
type cacheBuster struct{}

// BenchmarkDefine compares building a tool (schema inference for its input and output types
// and the definition) with schema inference alone by jsonschema-go, the baseline; wield's
// per-type cache is dropped before each build, as a type doc registration drops it.
func BenchmarkDefine(b *testing.B) {
	b.Run("inference-alone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jsonschema.For[weatherArgs](nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			RegisterType[cacheBuster](TypeDoc{})
			t, err := Func("currentWeather", "Get the weather in location", currentWeather)
			if err != nil {
				b.Fatal(err)
			}
			_ = t.Definition()
		}
	})
	// Alternating batches of both, for a ratio that load on a shared machine affects alike.
	b.Run("ratio", func(b *testing.B) {
		benchratio.Run(b, 16, "inference", func() { jsonschema.For[weatherArgs](nil) }, "tool", func() {
			RegisterType[cacheBuster](TypeDoc{})
			t, _ := Func("currentWeather", "Get the weather in location", currentWeather)
			_ = t.Definition()
		})
	})
	b.Run("tool-cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t, err := Func("currentWeather", "Get the weather in location", currentWeather)
			if err != nil {
				b.Fatal(err)
			}
			_ = t.Definition()
		}
	})
}
