package client_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
)

type otelHarness struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	logs   *bytes.Buffer
	opts   []client.Option
}

func newOtel() *otelHarness {
	h := &otelHarness{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader(), logs: &bytes.Buffer{}}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	logger := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h.opts = []client.Option{client.WithTracerProvider(tp), client.WithMeterProvider(mp), client.WithLogger(logger)}
	return h
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestTelemetryOfALoop(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "call"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			h := newOtel()
			m := chattest.New(
				chattest.Calls(chattest.Call("weather", `{"city":"Paris"}`)).WithUsage(10, 5),
				chattest.Text("Sunny.").WithUsage(30, 7),
			).WithInfo(chat.Info{Provider: "openai", Model: "gpt-test"})
			c := clienttest.New(t, m, h.opts...)
			spec := c.Prompt("Weather?").Tools(constTool("weather", "sunny")).ToolContext(tool.Context{"secret": "s3cr3t"})
			if stream {
				for _, err := range spec.Stream(context.Background()).Events() {
					if err != nil {
						t.Fatal(err)
					}
				}
			} else if err := spec.Call(context.Background()).Err(); err != nil {
				t.Fatal(err)
			}

			spans := h.spans.Ended()
			byName := map[string][]sdktrace.ReadOnlySpan{}
			for _, s := range spans {
				byName[s.Name()] = append(byName[s.Name()], s)
			}
			loops, chats, tools := byName["invoke_agent"], byName["chat gpt-test"], byName["execute_tool weather"]
			if len(loops) != 1 || len(chats) != 2 || len(tools) != 1 || len(spans) != 4 {
				t.Fatalf("spans: %v", byName)
			}
			loop := loops[0]
			for _, s := range append(chats, tools...) {
				if s.Parent().SpanID() != loop.SpanContext().SpanID() || s.SpanContext().TraceID() != loop.SpanContext().TraceID() {
					t.Fatalf("span %s is not a child of the loop span", s.Name())
				}
			}
			la := attrs(loop)
			if la["gen_ai.operation.name"].AsString() != "invoke_agent" || la["wield.tool_loop.model_calls"].AsInt64() != 2 ||
				la["gen_ai.usage.input_tokens"].AsInt64() != 40 || la["wield.tool_loop.outcome"].AsString() != "answer" {
				t.Fatalf("loop attributes = %v", la)
			}
			first, second := attrs(chats[0]), attrs(chats[1])
			want := map[attribute.Key]string{
				"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-test",
				"gen_ai.provider.name": "openai", "gen_ai.response.model": "gpt-test",
			}
			for k, v := range want {
				if first[k].AsString() != v {
					t.Errorf("chat span %s = %q, want %q", k, first[k].AsString(), v)
				}
			}
			if first["gen_ai.usage.input_tokens"].AsInt64() != 10 || first["gen_ai.usage.output_tokens"].AsInt64() != 5 ||
				strings.Join(first["gen_ai.response.finish_reasons"].AsStringSlice(), ",") != "tool_calls" ||
				strings.Join(second["gen_ai.response.finish_reasons"].AsStringSlice(), ",") != "stop" {
				t.Fatalf("chat span attributes = %v / %v", first, second)
			}
			for _, s := range spans {
				for _, kv := range s.Attributes() {
					if strings.Contains(kv.Value.String(), "s3cr3t") {
						t.Fatalf("span %s carries the tool context", s.Name())
					}
				}
			}

			var rm metricdata.ResourceMetrics
			if err := h.reader.Collect(context.Background(), &rm); err != nil {
				t.Fatal(err)
			}
			var durations uint64
			tokens := map[string]int64{}
			for _, sm := range rm.ScopeMetrics {
				if sm.Scope.Name != "github.com/wield-ai/wield/client" {
					continue
				}
				for _, mt := range sm.Metrics {
					switch mt.Name {
					case "gen_ai.client.operation.duration":
						for _, dp := range mt.Data.(metricdata.Histogram[float64]).DataPoints {
							durations += dp.Count
							if v, _ := dp.Attributes.Value("gen_ai.provider.name"); v.AsString() != "openai" {
								t.Errorf("duration point without provider: %v", dp.Attributes)
							}
						}
					case "gen_ai.client.token.usage":
						for _, dp := range mt.Data.(metricdata.Histogram[int64]).DataPoints {
							v, _ := dp.Attributes.Value("gen_ai.token.type")
							tokens[v.AsString()] += dp.Sum
						}
					}
				}
			}
			if durations != 2 || tokens["input"] != 40 || tokens["output"] != 12 {
				t.Fatalf("metrics: %d durations, tokens %v", durations, tokens)
			}
			logs := h.logs.String()
			for _, want := range []string{"wield: model call", "wield: tool round", "wield: tool loop done"} {
				if !strings.Contains(logs, want) {
					t.Errorf("debug logs lack %q:\n%s", want, logs)
				}
			}
			if strings.Contains(logs, "s3cr3t") || strings.Contains(logs, "Paris") {
				t.Fatalf("logs carry tool context or arguments:\n%s", logs)
			}
		})
	}
}

func TestTelemetryOfAFailure(t *testing.T) {
	h := newOtel()
	m := chattest.New(chattest.Fail(&chat.ProviderError{Provider: "openai", StatusCode: 429}))
	c := clienttest.New(t, m, h.opts...)
	if err := c.Prompt("x").Options(&chat.Options{Model: "asked"}).Call(context.Background()).Err(); err == nil {
		t.Fatal("no error")
	}
	var chatSpan, loop sdktrace.ReadOnlySpan
	for _, s := range h.spans.Ended() {
		switch s.Name() {
		case "chat asked":
			chatSpan = s
		case "invoke_agent":
			loop = s
		}
	}
	if chatSpan == nil || loop == nil {
		t.Fatalf("spans: %v", h.spans.Ended())
	}
	for _, s := range []sdktrace.ReadOnlySpan{chatSpan, loop} {
		if s.Status().Code != codes.Error || attrs(s)["error.type"].AsString() != "*chat.ProviderError" {
			t.Fatalf("%s: status %v, attributes %v", s.Name(), s.Status(), attrs(s))
		}
	}
	if attrs(chatSpan)["gen_ai.request.model"].AsString() != "asked" {
		t.Fatal("request model")
	}
}

func TestTelemetryCancelled(t *testing.T) {
	h := newOtel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := clienttest.New(t, chattest.New(chattest.Text("x")), h.opts...).Prompt("x").Call(ctx).Err()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	for _, s := range h.spans.Ended() {
		if attrs(s)["error.type"].AsString() != "canceled" {
			t.Fatalf("%s error.type = %v", s.Name(), attrs(s)["error.type"])
		}
	}
}
