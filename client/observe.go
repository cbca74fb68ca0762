package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/engine"
	"github.com/wield-ai/wield/internal/otelspan"
	"github.com/wield-ai/wield/internal/redact"
)

// scope is the instrumentation scope of the client's spans and metrics.
const scope = "github.com/wield-ai/wield/client"

// GenAI semantic-convention attribute keys.
const (
	attrOperation     = attribute.Key("gen_ai.operation.name")
	attrProvider      = attribute.Key("gen_ai.provider.name")
	attrRequestModel  = attribute.Key("gen_ai.request.model")
	attrResponseModel = attribute.Key("gen_ai.response.model")
	attrResponseID    = attribute.Key("gen_ai.response.id")
	attrFinish        = attribute.Key("gen_ai.response.finish_reasons")
	attrInputTokens   = attribute.Key("gen_ai.usage.input_tokens")
	attrOutputTokens  = attribute.Key("gen_ai.usage.output_tokens")
	attrTokenType     = attribute.Key("gen_ai.token.type")
	attrErrorType     = attribute.Key("error.type")
	attrIterations    = attribute.Key("wield.tool_loop.iterations")
	attrModelCalls    = attribute.Key("wield.tool_loop.model_calls")
	attrOutcome       = attribute.Key("wield.tool_loop.outcome")
)

// Start options built once: each, and a variadic list of them, would allocate per span.
var (
	chatSpanOptions = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}
	loopSpanOptions = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}
)

// telemetry holds the client's tracer, instruments and logger.
type telemetry struct {
	tracer   trace.Tracer
	spans    *otelspan.Gate
	duration metric.Float64Histogram
	tokens   metric.Int64Histogram
	logger   *slog.Logger
	provider string
	model    string
}

var noTelemetry = newTelemetry(nil, nil, nil, nil)

func (rt *runtime) telemetry() *telemetry {
	if rt == nil || rt.obs == nil {
		return noTelemetry
	}
	return rt.obs
}

func newTelemetry(model chat.Model, tp trace.TracerProvider, mp metric.MeterProvider, logger *slog.Logger) *telemetry {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	if logger == nil {
		logger = slog.Default()
	}
	t := &telemetry{tracer: tp.Tracer(scope), spans: otelspan.New(tp), logger: logger}
	if d, ok := model.(chat.Describer); ok {
		info := d.Info()
		t.provider, t.model = info.Provider, info.Model
	}
	meter := mp.Meter(scope)
	var err error
	t.duration, err = meter.Float64Histogram("gen_ai.client.operation.duration",
		metric.WithDescription("GenAI operation duration."), metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92))
	if err != nil {
		otel.Handle(err)
	}
	t.tokens, err = meter.Int64Histogram("gen_ai.client.token.usage",
		metric.WithDescription("Number of input and output tokens used."), metric.WithUnit("{token}"),
		metric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864))
	if err != nil {
		otel.Handle(err)
	}
	return t
}

// chatCall is one model call being observed.
type chatCall struct {
	t        *telemetry
	span     trace.Span
	start    time.Time
	model    string
	stream   bool
	untraced bool
	replay   bool // a durable engine replays the call: no metrics, no log
}

// startChat starts the span of one model call, named "chat {model}".
//
// untraced is set inside a loop whose own span showed that no tracer provider is installed (a
// span that neither records nor has a valid context): a child span could not record either, so
// it is not created at all.
func (t *telemetry) startChat(ctx context.Context, p *chat.Prompt, stream, untraced, replay bool) (context.Context, chatCall) {
	model := t.model
	if p.Options != nil && p.Options.Model != "" {
		model = p.Options.Model
	}
	var span trace.Span
	if untraced {
		span = trace.SpanFromContext(ctx)
	} else {
		name := "chat"
		if model != "" {
			name = "chat " + model
		}
		ctx, span = t.tracer.Start(ctx, name, chatSpanOptions...)
	}
	if span.IsRecording() {
		attrs := make([]attribute.KeyValue, 0, 3)
		attrs = append(attrs, attrOperation.String("chat"))
		if model != "" {
			attrs = append(attrs, attrRequestModel.String(model))
		}
		if t.provider != "" {
			attrs = append(attrs, attrProvider.String(t.provider))
		}
		span.SetAttributes(attrs...)
	}
	return ctx, chatCall{t: t, span: span, start: time.Now(), model: model, stream: stream, untraced: untraced, replay: replay}
}

// end finishes the model call's span, records its metrics and logs it.
func (c chatCall) end(ctx context.Context, resp *chat.Response, err error) {
	elapsed := time.Since(c.start)
	var respModel string
	var usage chat.Usage
	if resp != nil {
		respModel, usage = resp.Model, resp.Usage
	}
	var errType string
	if err != nil {
		errType = errorType(err)
	}
	if c.span.IsRecording() {
		attrs := make([]attribute.KeyValue, 0, 6)
		if resp != nil {
			if resp.Model != "" {
				attrs = append(attrs, attrResponseModel.String(resp.Model))
			}
			if resp.ID != "" {
				attrs = append(attrs, attrResponseID.String(resp.ID))
			}
			if usage.InputTokens != 0 {
				attrs = append(attrs, attrInputTokens.Int(usage.InputTokens))
			}
			if usage.OutputTokens != 0 {
				attrs = append(attrs, attrOutputTokens.Int(usage.OutputTokens))
			}
			var reasons []string
			for _, g := range resp.Generations {
				if g.FinishReason != "" {
					reasons = append(reasons, string(g.FinishReason))
				}
			}
			if len(reasons) > 0 {
				attrs = append(attrs, attrFinish.StringSlice(reasons))
			}
		}
		if err != nil {
			attrs = append(attrs, attrErrorType.String(errType))
			recordError(c.span, err)
		}
		c.span.SetAttributes(attrs...)
	}
	if !c.untraced {
		c.span.End()
	}

	t := c.t
	if c.replay {
		return
	}
	if t.duration != nil && t.duration.Enabled(ctx) {
		t.duration.Record(ctx, elapsed.Seconds(), metric.WithAttributes(c.metricAttrs(respModel, errType)...))
	}
	if t.tokens != nil && err == nil && t.tokens.Enabled(ctx) {
		attrs := c.metricAttrs(respModel, "")
		if usage.InputTokens != 0 {
			t.tokens.Record(ctx, int64(usage.InputTokens), metric.WithAttributes(append(attrs, attrTokenType.String("input"))...))
		}
		if usage.OutputTokens != 0 {
			t.tokens.Record(ctx, int64(usage.OutputTokens), metric.WithAttributes(append(attrs, attrTokenType.String("output"))...))
		}
	}
	if t.logger.Enabled(ctx, slog.LevelDebug) {
		args := []any{"model", c.model, "stream", c.stream, "elapsed", elapsed}
		if resp != nil {
			args = append(args, "tool_calls", len(resp.ToolCalls()), "input_tokens", usage.InputTokens, "output_tokens", usage.OutputTokens)
		}
		if err != nil {
			args = append(args, "error", redact.Error(err))
		}
		t.logger.DebugContext(ctx, "wield: model call", args...)
	}
}

func (c chatCall) metricAttrs(respModel, errType string) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, attrOperation.String("chat"))
	if c.t.provider != "" {
		attrs = append(attrs, attrProvider.String(c.t.provider))
	}
	if c.model != "" {
		attrs = append(attrs, attrRequestModel.String(c.model))
	}
	if respModel != "" {
		attrs = append(attrs, attrResponseModel.String(respModel))
	}
	if errType != "" {
		attrs = append(attrs, attrErrorType.String(errType))
	}
	return attrs
}

// recordError records err on span, as an exception event and the span's status, as
// span.RecordError and SetStatus do, but with the text of a tool call's failure in it described
// without content (internal/redact): the client never records what tools were given or
// returned; the execute_tool spans have that when the tool-call manager records content.
func recordError(span trace.Span, err error) {
	msg := redact.Error(err)
	if msg == err.Error() {
		span.RecordError(err)
	} else {
		span.AddEvent("exception", trace.WithAttributes(
			attribute.String("exception.type", fmt.Sprintf("%T", err)),
			attribute.String("exception.message", msg),
		))
	}
	span.SetStatus(codes.Error, msg)
}

// errorType is the low-cardinality error.type of err.
func errorType(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return fmt.Sprintf("%T", err)
		}
		err = u
	}
}

// loopSpan is the span of one tool loop: the parent of its chat and execute_tool spans.
type loopSpan struct {
	t     *telemetry
	ctx   context.Context
	span  trace.Span
	start time.Time
	// off reports that no tracer provider is installed: the span neither records nor has a valid
	// context, and neither would its children.
	off bool
	// skipped: no span was started (span is ctx's, not the loop's own).
	skipped bool
	// replay: a durable engine replays the turn; nothing is recorded.
	replay bool
}

// startLoop starts the loop's span, an invoke_agent span in GenAI terms: one run of the model
// and its tools until an answer. With no tracer provider installed, none is started.
func (t *telemetry) startLoop(ctx context.Context, req *Request) (context.Context, loopSpan) {
	if t.spans.Skip() {
		return ctx, loopSpan{t: t, ctx: ctx, span: trace.SpanFromContext(ctx), start: time.Now(), off: true, skipped: true}
	}
	if engine.Replaying(ctx) {
		// A durable engine replays a turn's steps: their spans were made when they ran.
		return ctx, loopSpan{t: t, ctx: ctx, span: trace.SpanFromContext(ctx), start: time.Now(), off: true, skipped: true, replay: true}
	}
	ctx, span := t.tracer.Start(ctx, "invoke_agent", loopSpanOptions...)
	t.spans.Started(span)
	if span.IsRecording() {
		attrs := make([]attribute.KeyValue, 0, 3)
		attrs = append(attrs, attrOperation.String("invoke_agent"))
		model := t.model
		if o := req.Prompt.Options; o != nil && o.Model != "" {
			model = o.Model
		}
		if model != "" {
			attrs = append(attrs, attrRequestModel.String(model))
		}
		if t.provider != "" {
			attrs = append(attrs, attrProvider.String(t.provider))
		}
		span.SetAttributes(attrs...)
	}
	off := !span.IsRecording() && !span.SpanContext().IsValid()
	return ctx, loopSpan{t: t, ctx: ctx, span: span, start: time.Now(), off: off}
}

func (l loopSpan) end(resp *Response, err error) {
	if !l.skipped {
		l.record(resp, err)
		l.span.End()
	}
	if l.t.logger.Enabled(l.ctx, slog.LevelDebug) {
		args := []any{"elapsed", time.Since(l.start)}
		if resp != nil {
			args = append(args, "outcome", resp.Outcome.String(), "model_calls", resp.ModelCalls,
				"input_tokens", resp.Usage.InputTokens, "output_tokens", resp.Usage.OutputTokens)
		}
		if err != nil {
			args = append(args, "error", redact.Error(err))
		}
		l.t.logger.DebugContext(l.ctx, "wield: tool loop done", args...)
	}
}

// record sets the outcome of the turn on the loop's span, if it records.
func (l loopSpan) record(resp *Response, err error) {
	if !l.span.IsRecording() {
		return
	}
	if resp != nil {
		l.span.SetAttributes(
			attrModelCalls.Int(resp.ModelCalls),
			attrIterations.Int(max(resp.ModelCalls-1, 0)),
			attrOutcome.String(resp.Outcome.String()),
			attrInputTokens.Int(resp.Usage.InputTokens),
			attrOutputTokens.Int(resp.Usage.OutputTokens),
		)
	}
	if err != nil {
		l.span.SetAttributes(attrErrorType.String(errorType(err)))
		recordError(l.span, err)
	}
}

// logRound logs the tool calls about to run; never their arguments, which may hold user data.
func (t *telemetry) logRound(ctx context.Context, turn *Turn, resp *chat.Response) {
	if !t.logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	calls := resp.ToolCalls()
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	t.logger.DebugContext(ctx, "wield: tool round", "iteration", turn.Iteration, "tools", names)
}
