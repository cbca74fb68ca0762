package gemini

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/provider"
)

var weatherPrompt = &chat.Prompt{Messages: []chat.Message{chat.User("What is the weather in San Francisco?")}}

func geminiError(code int, status, msg string) []byte {
	return []byte(`{"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `","status":"` + status + `"}}`)
}

func jsonHeader() http.Header { return http.Header{"Content-Type": {"application/json"}} }

// faults is the model under the fault tables: its waits between attempts are recorded, not
// taken, and a success is the recorded call of the weather tool.
var faults = providertest.FaultTarget{
	Provider: "gemini",
	New: func(t testing.TB, url string, retries *int) (chat.Model, *providertest.Waits) {
		return newTestModel(t, url, Config{Transport: provider.Transport{MaxRetries: providertest.MaxRetries(retries)}})
	},
	Prompt: weatherPrompt,
	Wraps:  true,
	Answer: func(t testing.TB, resp *chat.Response, _ replay.Exchange) {
		if calls := resp.ToolCalls(); len(calls) == 0 || calls[0].Name != "weather" {
			t.Fatalf("calls %+v", calls)
		}
	},
}

// TestRetries proves 429 and 5xx answers are retried, waiting as the server asks.
func TestRetries(t *testing.T) {
	ok := providertest.Load(t, "vercel-tool-call-gemini-3-pro-preview")[0]
	faults.Faults(t, []providertest.Fault{
		{
			Name: "429 with Retry-After then 200",
			Answers: []replay.Exchange{{Status: 429, Header: http.Header{"Retry-After": {"2"}, "Content-Type": {"application/json"}},
				Body: geminiError(429, "RESOURCE_EXHAUSTED", "quota")}, ok},
			Waits: func(w []time.Duration) bool { return len(w) == 1 && w[0] == 2*time.Second },
		},
		{
			Name: "429 with RetryInfo in the body then 200",
			Answers: []replay.Exchange{{Status: 429, Header: jsonHeader(), Body: []byte(`{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED",` +
				`"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]}}`)}, ok},
			Waits: func(w []time.Duration) bool { return len(w) == 1 && w[0] == 1500*time.Millisecond },
		},
		{
			Name: "500 twice then 200",
			Answers: []replay.Exchange{
				{Status: 500, Header: jsonHeader(), Body: geminiError(500, "INTERNAL", "boom")},
				{Status: 503, Header: jsonHeader(), Body: geminiError(503, "UNAVAILABLE", "overloaded")},
				ok,
			},
			Waits: func(w []time.Duration) bool { return len(w) == 2 && w[0] > 0 && w[1] > 0 },
		},
	})
}

// TestErrors proves API errors arrive as *chat.ProviderError with status and message, after the
// retries for temporary ones, and that client errors are not retried.
func TestErrors(t *testing.T) {
	faults.Faults(t, providertest.BothWays(
		providertest.Fault{
			Name: "400 is not retried",
			Answers: []replay.Exchange{{Status: 400, Header: jsonHeader(), Body: []byte(`{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT",` +
				`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}`)}},
			Err: &chat.ProviderError{StatusCode: 400, Type: "INVALID_ARGUMENT", Message: "API key not valid.", Code: "API_KEY_INVALID"},
		},
		providertest.Fault{
			Name:    "input over the window",
			Answers: []replay.Exchange{{Status: 400, Header: jsonHeader(), Body: geminiError(400, "INVALID_ARGUMENT", "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).")}},
			Err:     &chat.ProviderError{StatusCode: 400, Type: "INVALID_ARGUMENT", Message: "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576)."},
		},
		providertest.Fault{
			Name: "503 after the retries",
			Answers: []replay.Exchange{
				{Status: 503, Header: jsonHeader(), Body: geminiError(503, "UNAVAILABLE", "a")},
				{Status: 503, Header: jsonHeader(), Body: geminiError(503, "UNAVAILABLE", "b")},
				{Status: 503, Header: jsonHeader(), Body: geminiError(503, "UNAVAILABLE", "overloaded")},
			},
			Err: &chat.ProviderError{StatusCode: 503, Type: "UNAVAILABLE", Message: "overloaded"},
		},
		providertest.Fault{
			Name:    "retries disabled",
			Answers: []replay.Exchange{{Status: 429, Header: jsonHeader(), Body: geminiError(429, "RESOURCE_EXHAUSTED", "quota")}},
			Retries: chat.Ptr(0),
			Err:     &chat.ProviderError{StatusCode: 429, Type: "RESOURCE_EXHAUSTED", Message: "quota"},
		},
		providertest.Fault{
			Name:    "plain-text error body",
			Answers: []replay.Exchange{{Status: 404, Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("no such model")}},
			Err:     &chat.ProviderError{StatusCode: 404, Message: "no such model"},
		},
	))
}

// TestStreamCut proves a stream that breaks off yields an error, never a silently truncated
// answer: cut inside the function-call event, right after it, and ending cleanly before the
// finish reason.
func TestStreamCut(t *testing.T) {
	ex := providertest.Load(t, "vercel-tool-call-stream-gemini-3-pro-preview")[0]
	target.StreamCuts(t, ex, bytes.Index(ex.Body, []byte("\r\n\r\n"))+4, "call event")
}

// TestMalformedJSON proves a garbled body is an error, not a panic.
func TestMalformedJSON(t *testing.T) {
	tests := []struct {
		name   string
		ex     replay.Exchange
		stream bool
	}{
		{"call", replay.Exchange{Header: jsonHeader(), Body: []byte(`{"candidates": [{"content": {"parts": [{"text": "hi"`)}, false},
		{"call with wrong types", replay.Exchange{Header: jsonHeader(), Body: []byte(`{"candidates": "nope"}`)}, false},
		{"stream", replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte("data: {\"candidates\": [{\r\n\r\n")}, true},
		{"stream with wrong types", replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte("data: {\"candidates\": 7}\r\n\r\n")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := replay.NewServer(t, tt.ex)
			m, _ := newTestModel(t, srv.URL, Config{})
			_, err := providertest.Run(context.Background(), m, weatherPrompt, tt.stream)
			if err == nil {
				t.Fatal("malformed body accepted")
			}
			var pe *chat.ProviderError
			if errors.As(err, &pe) {
				t.Fatalf("a garbled 200 is not a provider error: %v", err)
			}
		})
	}
}

// TestStreamErrorEvent proves an error sent inside a stream ends it with a ProviderError.
func TestStreamErrorEvent(t *testing.T) {
	body := "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hel\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n" +
		"data: {\"error\": {\"code\": 503, \"message\": \"The model is overloaded.\", \"status\": \"UNAVAILABLE\"}}\r\n\r\n"
	srv := replay.NewServer(t, replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte(body)})
	m, _ := newTestModel(t, srv.URL, Config{})
	resp, err := chat.Aggregate(m.Stream(context.Background(), weatherPrompt))
	var pe *chat.ProviderError
	if !errors.As(err, &pe) || pe.StatusCode != 503 || pe.Message != "The model is overloaded." {
		t.Fatalf("err = %v", err)
	}
	if resp.Text() != "Hel" {
		t.Fatalf("text before the error: %q", resp.Text())
	}
}

// target is the model under the shared fault checks: the stream's head is one event of text.
var target = providertest.Target{
	New: func(t testing.TB, url string) chat.Model {
		m, err := New(context.Background(), Config{APIKey: "k", BaseURL: url})
		if err != nil {
			t.Fatal(err)
		}
		return m
	},
	Prompt:      weatherPrompt,
	ContentType: "text/event-stream",
	Head:        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hel\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n",
}

// TestCancel proves a cancelled context ends a call and a stream promptly.
func TestCancel(t *testing.T) { target.TestCancel(t) }

// TestStopEarlyClosesBody proves that breaking out of a stream closes the connection.
func TestStopEarlyClosesBody(t *testing.T) { target.StopEarly(t) }

// TestConsumerPanicPropagates proves the stream does not swallow a panic of the loop body.
func TestConsumerPanicPropagates(t *testing.T) {
	srv := replay.NewServer(t, providertest.Load(t, "adk-text-stream-gemini-2.5-flash")...)
	m, _ := newTestModel(t, srv.URL, Config{})
	providertest.ConsumerPanic(t, m, weatherPrompt)
}
