package augment

import (
	"context"
	"testing"

	"github.com/wield-ai/wield/tool"
)

// BenchmarkCall compares a call of an augmented tool with a call of the tool it wraps (the
// baseline); the difference is the augmentation overhead per call.
func BenchmarkCall(b *testing.B) {
	weather := tool.Must(tool.Func("weather", "Get the weather in a city",
		func(_ context.Context, in WeatherIn) (string, error) { return in.City, nil }))
	w, err := Tool(weather, func(context.Context, Event[Thinking]) error { return nil })
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("baseline-unwrapped", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := weather.Call(ctx, `{"city":"Oslo","days":3}`); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("augmented", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := w.Call(ctx, `{"innerThought":"the user is going to Oslo","confidence":"high","city":"Oslo","days":3}`); err != nil {
				b.Fatal(err)
			}
		}
	})
}
