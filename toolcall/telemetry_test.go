package toolcall

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/tool"
)

type telemetry struct {
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
}

func newTelemetry(t *testing.T) *telemetry {
	tel := &telemetry{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tel.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tel.spans))
	tel.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(tel.reader))
	t.Cleanup(func() {
		_ = tel.tp.Shutdown(context.Background())
		_ = tel.mp.Shutdown(context.Background())
	})
	return tel
}

func attrMap(kvs []attribute.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

func TestTelemetry(t *testing.T) {
	for _, recordContent := range []bool{false, true} {
		name := map[bool]string{false: "content off", true: "content on"}[recordContent]
		t.Run(name, func(t *testing.T) {
			tel := newTelemetry(t)
			m := New(Config{TracerProvider: tel.tp, MeterProvider: tel.mp, RecordContent: recordContent})
			failing := newTool("failing", func(context.Context, string) (string, error) { return "", errors.New("bad city") })
			p := prompt(echoTool("weather"), failing)

			// The caller's span (the client's loop or chat span) is the parent of every tool span.
			ctx, parent := tel.tp.Tracer("test").Start(context.Background(), "invoke_agent")
			_, err := m.Execute(ctx, p, response(
				call("c1", "weather", `{"city":"Paris"}`), call("c2", "failing", "{}"), call("c3", "ghost", "{}")))
			parent.End()
			if err != nil {
				t.Fatal(err)
			}

			byName := map[string]sdktrace.ReadOnlySpan{}
			for _, s := range tel.spans.Ended() {
				byName[s.Name()] = s
			}
			if len(byName) != 4 {
				t.Fatalf("spans: %v", byName)
			}
			want := map[string]map[string]string{
				"execute_tool weather": {
					"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "weather", "gen_ai.tool.call.id": "c1",
					"gen_ai.tool.type": "function", "gen_ai.tool.description": "the weather tool",
				},
				"execute_tool failing": {
					"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "failing", "gen_ai.tool.call.id": "c2",
					"gen_ai.tool.type": "function", "gen_ai.tool.description": "the failing tool", "error.type": "tool_error",
				},
				"execute_tool ghost": {
					"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "ghost", "gen_ai.tool.call.id": "c3",
					"gen_ai.tool.type": "function", "error.type": "unknown_tool",
				},
			}
			if recordContent {
				want["execute_tool weather"]["gen_ai.tool.call.arguments"] = `{"city":"Paris"}`
				want["execute_tool weather"]["gen_ai.tool.call.result"] = `weather:{"city":"Paris"}`
				want["execute_tool failing"]["gen_ai.tool.call.arguments"] = `{}`
				want["execute_tool failing"]["gen_ai.tool.call.result"] = `bad city`
				want["execute_tool ghost"]["gen_ai.tool.call.arguments"] = `{}`
				want["execute_tool ghost"]["gen_ai.tool.call.result"] = `unknown tool "ghost"; the available tools are: weather, failing`
			}
			for spanName, attrs := range want {
				s, ok := byName[spanName]
				if !ok {
					t.Errorf("no span %q", spanName)
					continue
				}
				if got := attrMap(s.Attributes()); !reflect.DeepEqual(got, attrs) {
					t.Errorf("%s attributes:\n got %v\nwant %v", spanName, got, attrs)
				}
				if s.Parent().SpanID() != parent.SpanContext().SpanID() || s.SpanContext().TraceID() != parent.SpanContext().TraceID() {
					t.Errorf("%s is not a child of the caller's span", spanName)
				}
				if s.SpanKind() != trace.SpanKindInternal {
					t.Errorf("%s kind %v", spanName, s.SpanKind())
				}
				_, failed := attrs["error.type"]
				if st := s.Status(); failed != (st.Code == codes.Error) {
					t.Errorf("%s status %+v", spanName, st)
				}
			}
			// The tool's error text is what the model reads: content, recorded only when content is.
			wantStatus := "the tool failed"
			if recordContent {
				wantStatus = "bad city"
			}
			if st := byName["execute_tool failing"].Status(); st.Description != wantStatus {
				t.Errorf("failing status description %q, want %q", st.Description, wantStatus)
			}

			var rm metricdata.ResourceMetrics
			if err := tel.reader.Collect(context.Background(), &rm); err != nil {
				t.Fatal(err)
			}
			hist := findHistogram(t, rm, "gen_ai.client.operation.duration")
			if hist == nil {
				return
			}
			wantPoints := map[string]string{ // tool name -> error.type
				"weather": "", "failing": "tool_error", "ghost": "unknown_tool",
			}
			if len(hist.DataPoints) != len(wantPoints) {
				t.Errorf("%d data points, want %d", len(hist.DataPoints), len(wantPoints))
			}
			for _, dp := range hist.DataPoints {
				attrs := attrMap(dp.Attributes.ToSlice())
				name := attrs["gen_ai.tool.name"]
				errType, ok := wantPoints[name]
				if !ok || attrs["gen_ai.operation.name"] != "execute_tool" || attrs["error.type"] != errType {
					t.Errorf("data point attributes %v", attrs)
				}
				if dp.Count != 1 || dp.Sum < 0 {
					t.Errorf("data point for %s: count %d sum %v", name, dp.Count, dp.Sum)
				}
				if !reflect.DeepEqual(dp.Bounds, durationBuckets) {
					t.Errorf("bucket bounds %v", dp.Bounds)
				}
			}
		})
	}
}

func findHistogram(t *testing.T, rm metricdata.ResourceMetrics, name string) *metricdata.Histogram[float64] {
	t.Helper()
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			if mt.Name != name {
				continue
			}
			if sm.Scope.Name != instrumentationName || mt.Unit != "s" {
				t.Errorf("metric %s: scope %q unit %q", name, sm.Scope.Name, mt.Unit)
			}
			h, ok := mt.Data.(metricdata.Histogram[float64])
			if !ok {
				t.Fatalf("metric %s is a %T, want a float64 histogram", name, mt.Data)
			}
			return &h
		}
	}
	t.Errorf("no metric %s in %+v", name, rm)
	return nil
}

func TestTelemetryTurnEnding(t *testing.T) {
	tel := newTelemetry(t)
	m := New(Config{TracerProvider: tel.tp, MeterProvider: tel.mp, Logger: debugLogger(&testenv.Buffer{})})
	started := make(chan struct{})
	block := newTool("block", func(ctx context.Context, _ string) (string, error) {
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	})
	panicked, rejected := make(chan struct{}), make(chan struct{})
	fatal := newTool("fatal", func(context.Context, string) (string, error) {
		<-started
		<-panicked // the failures are reported as such, not as consequences of the turn ending
		<-rejected
		return "", tool.Fatal(errors.New("stop everything"))
	})
	panics := newTool("panics", func(context.Context, string) (string, error) { panic("boom") })
	p := prompt(block, fatal, panics, weatherFunc())
	p.Messages = append(p.Messages, chat.ToolMessage(chat.ToolResult{Name: "panics"}))
	m.cfg.Limits = Limits{Tools: map[string]int{"panics": 2}, OnExceeded: LimitTellModel}
	ctx := context.Background()
	_, err := m.ExecuteTurn(ctx, &Turn{Observer: finishObserver{"1": panicked, "5": rejected}}, p, response(
		call("1", "panics", "{}"), call("2", "panics", "{}"), call("3", "block", "{}"), call("4", "fatal", "{}"),
		call("5", "weather", `{"city":1}`)))
	if !tool.IsFatal(err) {
		t.Fatalf("Execute error %v, want the fatal error", err)
	}
	got := map[string]string{}
	for _, s := range tel.spans.Ended() {
		attrs := attrMap(s.Attributes())
		got[attrs["gen_ai.tool.call.id"]] = attrs["error.type"]
		if s.Status().Code != codes.Error {
			t.Errorf("span %s (call %s) status %+v", s.Name(), attrs["gen_ai.tool.call.id"], s.Status())
		}
	}
	want := map[string]string{"1": "panic", "2": "limit_exceeded", "3": "canceled", "4": "fatal", "5": "invalid_arguments"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("error types by call: %v, want %v", got, want)
	}
}

func TestTelemetryDefaultsToGlobalProviders(t *testing.T) {
	// With no providers configured, the global ones (no-op unless the application sets them) are
	// used and Execute works.
	m := New(Config{})
	res, err := m.Execute(context.Background(), prompt(echoTool("a")), response(call("1", "a", "{}")))
	if err != nil || res.ToolResults()[0].Content != "a:{}" {
		t.Fatalf("Execute = %v, %v", res, err)
	}
}

// finishObserver closes the channel of a call id when that call finishes.
type finishObserver map[string]chan struct{}

func (finishObserver) ToolStarted(context.Context, chat.ToolCall) {}
func (o finishObserver) ToolFinished(_ context.Context, c chat.ToolCall, _ chat.ToolResult, _ time.Duration) {
	if ch, ok := o[c.ID]; ok {
		close(ch)
	}
}
