// Package otelspan spares spans that cannot record. With no OpenTelemetry SDK installed, the
// global tracer provider hands out spans that record nothing, yet starting one allocates the
// span and a context for it; a Gate tells when that is all a span would be, so that callers
// can skip it and keep their context as it is.
package otelspan

import (
	"reflect"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
)

// globalDefault is the provider otel.GetTracerProvider returns before any is installed: it
// delegates to the one installed later. Nil if something was installed before this package
// was initialized, or if it cannot be recognized; then no span is ever skipped.
var globalDefault = func() trace.TracerProvider {
	tp := otel.GetTracerProvider()
	t := reflect.TypeOf(tp)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().PkgPath() != "go.opentelemetry.io/otel/internal/global" ||
		t.Elem().Name() != "tracerProvider" {
		return nil
	}
	return tp
}()

// probeEvery is how often a Gate lets a span start although it would skip it: OpenTelemetry's
// automatic instrumentation can attach to a running process and make the global provider's
// spans record without installing a provider, and the started span shows that it has.
const probeEvery = 64

// A Gate says whether spans of one tracer provider may be skipped. It is safe for concurrent
// use.
type Gate struct {
	tp    trace.TracerProvider // the global default, or nil: spans are never skipped
	calls atomic.Uint32
	live  atomic.Bool // a started span recorded
}

// New returns the gate of spans started by tracers of tp.
func New(tp trace.TracerProvider) *Gate {
	g := &Gate{}
	if globalDefault != nil && tp == globalDefault {
		g.tp = tp
	}
	return g
}

// Skip reports whether a span about to start would record nothing and carry no context of its
// own: tp is the global default and still delegates to nothing. A span that is started anyway
// should be reported to [Gate.Started].
func (g *Gate) Skip() bool {
	if g == nil || g.tp == nil || g.live.Load() {
		return false
	}
	if otel.GetTracerProvider() != g.tp {
		return false // a provider was installed: the global default delegates to it
	}
	return g.calls.Add(1)%probeEvery != 0
}

// Started notes a span the gate let start; once one records, no span is skipped again.
func (g *Gate) Started(span trace.Span) {
	if g != nil && g.tp != nil && span.IsRecording() {
		g.live.Store(true)
	}
}
