package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/wield-ai/wield/chat"
)

// ErrTruncated is returned (wrapped) when a stream ends before the response is complete: a Chat
// Completions stream without a finish reason for every generation, or a Responses stream without
// its final event. A connection dropped mid-body yields the transport's error instead.
var ErrTruncated = errors.New("openai: stream ended before the response was complete")

// ResponseError is a failure the API reports after the HTTP request succeeded: an "error" or
// "response.failed" event in a Responses stream, a response whose status is "failed", or an
// error object in a Chat Completions stream. HTTP failures are [*chat.ProviderError].
type ResponseError struct {
	// Event is the stream event that carried the error ("error", "response.failed"), or
	// "response" for a failed non-streamed response.
	Event string
	// Code, Type, Param and Message are the API's description of the error, as far as it sent
	// one.
	Code, Type, Param, Message string
}

func (e *ResponseError) Error() string {
	var b strings.Builder
	b.WriteString("openai: ")
	b.WriteString(e.Event)
	b.WriteString(": ")
	if e.Code != "" {
		b.WriteString(e.Code)
		b.WriteString(": ")
	}
	if e.Message != "" {
		b.WriteString(e.Message)
	} else {
		b.WriteString("the response failed")
	}
	return b.String()
}

// Temporary reports whether retrying the request later may succeed: server errors and rate
// limits.
func (e *ResponseError) Temporary() bool {
	switch e.Code {
	case "server_error", "rate_limit_exceeded", "server_is_overloaded", "overloaded", "internal_error":
		return true
	}
	return e.Type == "server_error"
}

// failureKey keys the *httpFailure of one call in its context.
type failureKey struct{}

// httpFailure records the status of the last HTTP attempt of a call and, for a 4xx or 5xx, the
// start of its body. The SDK turns error bodies into its error type only when they have the
// OpenAI shape ({"error": {...}}); OpenAI-compatible servers answer {"error": "text"},
// {"detail": ...} or plain text, which the SDK cannot parse, losing the status.
type httpFailure struct {
	status int
	body   []byte
}

// maxErrorBody bounds how much of an error body is kept for the error message.
const maxErrorBody = 64 << 10

func withFailure(ctx context.Context) (context.Context, *httpFailure) {
	f := &httpFailure{}
	return context.WithValue(ctx, failureKey{}, f), f
}

// captureFailure is SDK middleware recording each attempt's status and error body.
func captureFailure(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	f, _ := req.Context().Value(failureKey{}).(*httpFailure)
	if f == nil || res == nil {
		return res, err
	}
	f.status, f.body = res.StatusCode, nil
	if res.StatusCode >= 400 && res.Body != nil {
		body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		f.body = body
		res.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), res.Body), res.Body}
	}
	return res, err
}

// wrapError turns an error of the SDK into wield's: a *chat.ProviderError for HTTP failures, a
// *ResponseError for errors reported in a stream, and otherwise the error wrapped with the
// package's prefix (context errors stay matchable with errors.Is).
func wrapError(err error, f *httpFailure) error {
	if err == nil {
		return nil
	}
	var apiErr *oai.Error
	if errors.As(err, &apiErr) {
		pe := &chat.ProviderError{Provider: Provider, StatusCode: apiErr.StatusCode, Type: apiErr.Type,
			Code: apiErr.Code, Message: apiErr.Message, Err: err}
		if pe.Message == "" && f != nil {
			fillFromBody(pe, f.body)
		}
		return pe
	}
	if f != nil && f.status >= 400 {
		pe := &chat.ProviderError{Provider: Provider, StatusCode: f.status, Err: err}
		fillFromBody(pe, f.body)
		return pe
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return streamError(se)
	}
	return fmt.Errorf("openai: %w", err)
}

// streamError describes an {"error": ...} payload the SDK found in a stream.
func streamError(se *ssestream.StreamError) *ResponseError {
	re := &ResponseError{Event: se.Event.Type, Message: se.Message}
	if re.Event == "" {
		re.Event = "error"
	}
	var payload struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(se.Event.Data, &payload) == nil {
		var obj struct {
			Code    any    `json:"code"`
			Type    string `json:"type"`
			Param   any    `json:"param"`
			Message string `json:"message"`
		}
		var text string
		switch {
		case json.Unmarshal(payload.Error, &obj) == nil:
			re.Code, re.Type, re.Param = stringish(obj.Code), obj.Type, stringish(obj.Param)
			if obj.Message != "" {
				re.Message = obj.Message
			}
		case json.Unmarshal(payload.Error, &text) == nil:
			re.Message = text
		}
	}
	return re
}

// fillFromBody takes the message (and, for OpenAI-shaped bodies, type and code) from an error
// body: {"error": {"message": ...}}, {"error": "..."}, {"message": ...}, {"detail": ...}, or
// the text itself.
func fillFromBody(pe *chat.ProviderError, body []byte) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) == nil {
		if raw, ok := obj["error"]; ok {
			var inner struct {
				Message string `json:"message"`
				Type    string `json:"type"`
				Code    any    `json:"code"`
			}
			var text string
			switch {
			case json.Unmarshal(raw, &text) == nil:
				pe.Message = text
				return
			case json.Unmarshal(raw, &inner) == nil && inner.Message != "":
				pe.Message, pe.Type, pe.Code = inner.Message, inner.Type, stringish(inner.Code)
				return
			}
		}
		for _, key := range []string{"message", "detail"} {
			if raw, ok := obj[key]; ok {
				var text string
				if json.Unmarshal(raw, &text) == nil {
					pe.Message = text
				} else {
					pe.Message = string(raw)
				}
				return
			}
		}
	}
	const maxMessage = 1000
	msg := body
	if len(msg) > maxMessage {
		msg = append(msg[:maxMessage:maxMessage], "…"...)
	}
	pe.Message = strings.ToValidUTF8(string(msg), "\uFFFD")
}

// stringish renders a code that may be a string, a number or null.
func stringish(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return fmt.Sprint(x)
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}
