package attack

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
)

// recorder keeps everything a program under attack tells its operators: every span (names,
// attributes, status, events) and every log record at every level.
type recorder struct {
	spans *tracetest.SpanRecorder
	tp    *sdktrace.TracerProvider
	logs  testenv.Buffer
	log   *slog.Logger
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{spans: tracetest.NewSpanRecorder()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	t.Cleanup(func() { _ = r.tp.Shutdown(context.Background()) })
	r.log = slog.New(slog.NewJSONHandler(&r.logs, &slog.HandlerOptions{Level: slog.LevelDebug - 4}))
	return r
}

// text renders every ended span and every log record, for searching.
func (r *recorder) text() string {
	var b strings.Builder
	for _, s := range r.spans.Ended() {
		fmt.Fprintf(&b, "span %q status %v %q\n", s.Name(), s.Status().Code, s.Status().Description)
		for _, a := range s.Attributes() {
			fmt.Fprintf(&b, "  %s=%s\n", a.Key, a.Value.String())
		}
		for _, e := range s.Events() {
			fmt.Fprintf(&b, "  event %q\n", e.Name)
			for _, a := range e.Attributes {
				fmt.Fprintf(&b, "    %s=%s\n", a.Key, a.Value.String())
			}
		}
	}
	b.WriteString(r.logs.String())
	return b.String()
}

// spanCount is the number of spans ended so far.
func (r *recorder) spanCount() int { return len(r.spans.Ended()) }

// inMemory is a configuration reaching s over the SDK's in-memory transport.
func inMemory(name string, s *mcp.Server) mcp.ServerConfig { return mcptest.InMemory(name, s.SDK()) }

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// newHTTPServer serves h on 127.0.0.1 until the test ends and returns its URL.
func newHTTPServer(t *testing.T, h http.Handler) string {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
