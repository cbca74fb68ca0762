package otelspan

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// With nothing installed, spans of the global default are skipped but for a probe every
// probeEvery; once a provider is installed, none is.
func TestGate(t *testing.T) {
	if globalDefault == nil {
		t.Fatal("the global default tracer provider was not recognized")
	}
	g := New(otel.GetTracerProvider())
	skipped := 0
	for range 2 * probeEvery {
		if g.Skip() {
			skipped++
		}
	}
	if skipped != 2*probeEvery-2 {
		t.Errorf("skipped %d of %d spans, want all but 2 probes", skipped, 2*probeEvery)
	}
	if New(noop.NewTracerProvider()).Skip() {
		t.Error("a span of another provider was skipped")
	}
	var nilGate *Gate
	if nilGate.Skip() {
		t.Error("a nil gate skipped a span")
	}

	sdk := sdktrace.NewTracerProvider()
	defer sdk.Shutdown(context.Background())
	otel.SetTracerProvider(sdk)
	if g.Skip() {
		t.Error("a span was skipped with an SDK installed")
	}
	// The global default now delegates to the SDK, so its spans record.
	_, span := g.tp.Tracer("test").Start(context.Background(), "probe")
	g.Started(span)
	span.End()
	if !g.live.Load() {
		t.Error("a recording span was not noted")
	}
}
