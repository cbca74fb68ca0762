package toolcall

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/wield-ai/wield/engine"
	"github.com/wield-ai/wield/internal/redact"
)

// instrumentationName names the tracer and meter of this package.
const instrumentationName = "github.com/wield-ai/wield/toolcall"

// Values of the error.type attribute on failed calls: a small, fixed set, so metrics stay
// low-cardinality.
const (
	errTypeUnknownTool      = "unknown_tool"
	errTypeInvalidArguments = "invalid_arguments"
	errTypeTool             = "tool_error"
	errTypePanic            = "panic"
	errTypeTimeout          = "timeout"
	errTypeLimit            = "limit_exceeded"
	errTypeCanceled         = "canceled"
	errTypeFatal            = "fatal"
	errTypeRejected         = "rejected"
)

// durationBuckets are the bucket boundaries the GenAI semantic conventions advise for
// gen_ai.client.operation.duration.
var durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}

var (
	attrOperation = semconv.GenAIOperationNameExecuteTool
	attrToolType  = semconv.GenAIToolTypeKey.String("function")
	// Built once: options are interfaces, and a variadic list of them would escape per span.
	spanOptions = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}
)

// startSpan starts the execute_tool span of one call as a child of the span in ctx, or returns
// a nil span when it could not record (no tracing SDK installed). The span starts under a
// constant name and gets its full name and attributes only if it records.
func (m *Manager) startSpan(ctx context.Context, c *callState) (context.Context, trace.Span) {
	if m.spans.Skip() || engine.Replaying(ctx) {
		// Without a tracer no span; in a durable engine's replay, the span was made already.
		return ctx, nil
	}
	ctx, span := m.tracer.Start(ctx, "execute_tool", spanOptions...)
	m.spans.Started(span)
	if !span.IsRecording() {
		return ctx, span
	}
	span.SetName("execute_tool " + c.call.Name)
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs,
		attrOperation,
		semconv.GenAIToolName(c.call.Name),
		attrToolType,
	)
	if c.call.ID != "" {
		attrs = append(attrs, semconv.GenAIToolCallID(c.call.ID))
	}
	if c.description != "" {
		attrs = append(attrs, semconv.GenAIToolDescription(c.description))
	}
	if m.cfg.RecordContent {
		attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(c.call.Arguments))
	}
	span.SetAttributes(attrs...)
	return ctx, span
}

// endSpan records the outcome of a call on its span, if it has one, and in the duration metric,
// then ends the span.
func (m *Manager) endSpan(ctx context.Context, span trace.Span, c *callState, elapsed time.Duration) {
	if span != nil {
		if span.IsRecording() {
			if m.cfg.RecordContent {
				// What the model reads, error texts included.
				span.SetAttributes(semconv.GenAIToolCallResultKey.String(c.result.Content))
			}
			if c.errType != "" {
				span.SetAttributes(semconv.ErrorTypeKey.String(c.errType))
				span.SetStatus(codes.Error, c.errText)
			}
		}
		span.End()
	}

	if m.duration.Enabled(ctx) && !engine.Replaying(ctx) {
		attrs := []attribute.KeyValue{attrOperation, semconv.GenAIToolName(c.call.Name)}
		if c.errType != "" {
			attrs = append(attrs, semconv.ErrorTypeKey.String(c.errType))
		}
		m.duration.Record(ctx, elapsed.Seconds(), metric.WithAttributes(attrs...))
	}
}

// failureText is the text of a failed call's error for its span status and debug log. With
// RecordContent it is the error's own; otherwise it quotes nothing the tool was given or
// returned: a tool's error text is the result the model reads, and an argument error quotes the
// values. Unknown tools and limits keep their texts (names and numbers).
func (m *Manager) failureText(errType string, err error) string {
	switch {
	case m.cfg.RecordContent:
		return err.Error()
	case errType == errTypeUnknownTool, errType == errTypeLimit:
		return err.Error()
	case errType == errTypeRejected:
		return "the call was rejected"
	case errType == errTypeCanceled:
		return redact.Error(err) // another call's failure may have ended the turn
	}
	return redact.Cause(err)
}

// panicValue is a panic's value for an error log: with RecordContent its text; otherwise the
// runtime's own message (an index out of range, a nil map), or else only the value's type, since
// a program's value often quotes what the tool was given ("bad ssn …"), as an error's text does.
func (m *Manager) panicValue(v any) string {
	if re, ok := v.(runtime.Error); m.cfg.RecordContent || ok {
		if ok {
			return re.Error()
		}
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("a value of type %T (content not recorded)", v)
}

// errorText is err's text for a debug log: without content unless RecordContent.
func (m *Manager) errorText(err error) string {
	if m.cfg.RecordContent {
		return err.Error()
	}
	return redact.Error(err)
}
