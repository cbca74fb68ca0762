package openai

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/provider"
)

// apiCase is one API under fault tests: its name, the folder of its recordings, how to build
// its model, and the head of a streamed answer, which a stalling server sends before it holds
// the stream open.
type apiCase struct {
	name string
	newM func(t testing.TB, url string, cfg Config) chat.Model
	head string
}

var apis = []apiCase{{
	name: "chat",
	newM: func(t testing.TB, url string, cfg Config) chat.Model { return newTestModel(t, New, url, cfg) },
	head: "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Ol\"}}]}\n\n",
}, {
	name: "responses",
	newM: func(t testing.TB, url string, cfg Config) chat.Model { return newTestModel(t, NewResponses, url, cfg) },
	head: "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Ol\",\"output_index\":0}\n\n",
}}

// target is the API under the shared fault checks: a model on its defaults, sent hi, streaming
// head before a server stalls.
func (api apiCase) target() providertest.Target {
	return providertest.Target{
		New:         func(t testing.TB, url string) chat.Model { return api.newM(t, url, Config{Model: "m"}) },
		Prompt:      hi,
		ContentType: "text/event-stream",
		Head:        api.head,
	}
}

// success is a recorded answer of the API, streamed or not.
func (api apiCase) success(t testing.TB, stream bool) replay.Exchange {
	if stream {
		return providertest.Load(t, api.name, "fantasy-text-stream-gpt-4o")[0]
	}
	return providertest.Load(t, api.name, "fantasy-text-gpt-4o")[0]
}

var hi = &chat.Prompt{Messages: []chat.Message{chat.User("Say hi in Portuguese")}}

func modes(f func(t *testing.T, api apiCase, stream bool)) func(t *testing.T) {
	return func(t *testing.T) {
		for _, api := range apis {
			for _, stream := range []bool{false, true} {
				name := api.name + "/call"
				if stream {
					name = api.name + "/stream"
				}
				t.Run(name, func(t *testing.T) { f(t, api, stream) })
			}
		}
	}
}

// TestRetryAfter429: a rate-limited request is retried after the time Retry-After asks for.
func TestRetryAfter429(t *testing.T) {
	modes(func(t *testing.T, api apiCase, stream bool) {
		limited := providertest.JSONError(429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "Retry-After", "0.1")
		srv := replay.NewServer(t, limited, api.success(t, stream))
		m := api.newM(t, srv.URL, Config{Model: "gpt-4o"})
		start := time.Now()
		r, err := providertest.Run(context.Background(), m, hi, stream)
		if err != nil {
			t.Fatal(err)
		}
		if elapsed := time.Since(start); elapsed < 100*time.Millisecond {
			t.Errorf("retried after %v, before the 100ms Retry-After asked for", elapsed)
		}
		if srv.Served() != 2 || !strings.HasPrefix(r.Text(), "O") {
			t.Fatalf("%d requests, text %q", srv.Served(), r.Text())
		}

		// Without retries the 429 is returned, typed.
		srv = replay.NewServer(t, limited)
		m = api.newM(t, srv.URL, Config{Model: "gpt-4o", Transport: provider.Transport{MaxRetries: -1}})
		_, err = providertest.Run(context.Background(), m, hi, stream)
		var pe *chat.ProviderError
		if !errors.As(err, &pe) || pe.StatusCode != 429 || pe.Message != "Rate limit reached" || pe.Code != "rate_limit_exceeded" || !pe.Temporary() || pe.Provider != "openai" {
			t.Fatalf("error = %#v", err)
		}
	})(t)
}

// faults is api's model under the fault tables, its retries waiting 5ms at most (the default
// starts at half a second).
func (api apiCase) faults() providertest.FaultTarget {
	return providertest.FaultTarget{
		Provider: "openai",
		New: func(t testing.TB, url string, retries *int) (chat.Model, *providertest.Waits) {
			return api.newM(t, url, Config{Model: "gpt-4o", Transport: provider.Transport{MaxRetries: providertest.MaxRetries(retries)},
				RequestOptions: []option.RequestOption{option.WithMaxRetryDelay(5 * time.Millisecond)}}), nil
		},
		Prompt: hi,
		Wraps:  true,
		Answer: func(t testing.TB, resp *chat.Response, _ replay.Exchange) {
			if resp.Text() == "" {
				t.Fatal("no text")
			}
		},
	}
}

// TestRetry500: two server errors, then the answer; once retries are exhausted the last error is
// returned.
func TestRetry500(t *testing.T) {
	failing := providertest.JSONError(500, `{"error":{"message":"The server had an error","type":"server_error"}}`)
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) {
			var rows []providertest.Fault
			for _, stream := range []bool{false, true} {
				mode := "call/"
				if stream {
					mode = "stream/"
				}
				rows = append(rows,
					providertest.Fault{Name: mode + "500 twice, then the answer", Stream: stream, Answers: []replay.Exchange{failing, failing, api.success(t, stream)}},
					providertest.Fault{Name: mode + "500 after the retries", Stream: stream, Answers: []replay.Exchange{failing, failing, failing},
						Err: &chat.ProviderError{StatusCode: 500, Type: "server_error", Message: "The server had an error"}})
			}
			api.faults().Faults(t, rows)
		})
	}
}

// TestErrorBodies: 4xx and 5xx answers become *chat.ProviderError with the provider's message,
// whatever shape OpenAI-compatible servers give their error bodies.
func TestErrorBodies(t *testing.T) {
	failure := func(name string, ex replay.Exchange, want chat.ProviderError) providertest.Fault {
		return providertest.Fault{Name: name, Answers: []replay.Exchange{ex}, Retries: ptr(0), Err: &want}
	}
	rows := providertest.BothWays(
		failure("OpenAI's error", providertest.JSONError(400, `{"error":{"message":"Invalid schema for function 'weather'","type":"invalid_request_error","param":"tools[0]","code":"invalid_function_parameters"}}`),
			chat.ProviderError{StatusCode: 400, Type: "invalid_request_error", Code: "invalid_function_parameters", Message: "Invalid schema for function 'weather'"}),
		failure("context length", providertest.JSONError(400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130514 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`),
			chat.ProviderError{StatusCode: 400, Type: "invalid_request_error", Code: "context_length_exceeded", Message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130514 tokens. Please reduce the length of the messages."}),
		failure("error as a string", providertest.JSONError(404, `{"error":"model 'llama9' not found"}`),
			chat.ProviderError{StatusCode: 404, Message: "model 'llama9' not found"}),
		failure("detail", providertest.JSONError(422, `{"detail":[{"loc":["body","messages"],"msg":"field required"}]}`),
			chat.ProviderError{StatusCode: 422, Message: `[{"loc":["body","messages"],"msg":"field required"}]`}),
		failure("error object", providertest.JSONError(400, `{"object":"error","message":"max_tokens is too large","type":"BadRequestError","code":400}`),
			chat.ProviderError{StatusCode: 400, Message: "max_tokens is too large"}),
		failure("proxy's page", replay.Exchange{Status: 502, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte("<html>Bad Gateway</html>")},
			chat.ProviderError{StatusCode: 502, Message: "<html>Bad Gateway</html>"}),
		failure("empty body", providertest.JSONError(401, ``), chat.ProviderError{StatusCode: 401}),
	)
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) { api.faults().Faults(t, rows) })
	}
}

// TestStreamCut: a connection dropped after a tool-call fragment is an error, never a truncated
// answer passed off as complete; the fragments that did arrive are still there.
func TestStreamCut(t *testing.T) {
	for _, tc := range []struct {
		api, name, after string
		newM             func(t testing.TB, url string, cfg Config) chat.Model
	}{
		{"chat", "fantasy-tool-loop-streaming-gpt-4o", `"arguments":"location"`, apis[0].newM},
		{"responses", "vercel-reasoning-tool-loop-stream-gpt-5.1-codex-max", `"delta":"12"`, apis[1].newM},
	} {
		t.Run(tc.api, func(t *testing.T) {
			ex := providertest.Load(t, tc.api, tc.name)[0]
			i := bytes.Index(ex.Body, []byte(tc.after))
			if i < 0 {
				t.Fatal("fragment not in the recording")
			}
			// Cut just after the event holding the fragment.
			ex.CutAfter = i + bytes.Index(ex.Body[i:], []byte("\n\n")) + 2
			target := providertest.Target{
				New: func(t testing.TB, url string) chat.Model {
					return tc.newM(t, url, Config{Model: "m", Transport: provider.Transport{MaxRetries: -1}})
				},
				Prompt: hi,
			}
			calls := target.StreamCut(t, ex, 1).ToolCalls()
			if calls[0].ID == "" || !strings.HasPrefix(calls[0].Arguments, `{"`) {
				t.Errorf("partial answer lost the fragments that arrived: %+v", calls)
			}
		})
	}
}

// TestStreamEndsEarly: a stream that ends cleanly but before its end (a proxy closing it at an
// event boundary) fails with ErrTruncated.
func TestStreamEndsEarly(t *testing.T) {
	for _, tc := range []struct {
		api, name, before string
		newM              func(t testing.TB, url string, cfg Config) chat.Model
	}{
		{"chat", "fantasy-tool-loop-streaming-gpt-4o", `"finish_reason":"tool_calls"`, apis[0].newM},
		{"responses", "fantasy-tool-loop-streaming-gpt-4o", `event: response.completed`, apis[1].newM},
	} {
		t.Run(tc.api, func(t *testing.T) {
			ex := providertest.Load(t, tc.api, tc.name)[0]
			i := bytes.Index(ex.Body, []byte(tc.before))
			ex.Body = ex.Body[:bytes.LastIndex(ex.Body[:i], []byte("\n\n"))+2]
			srv := replay.NewServer(t, ex)
			m := tc.newM(t, srv.URL, Config{Model: "m"})
			_, _, err := collect(t, m, hi)
			if !errors.Is(err, ErrTruncated) {
				t.Fatalf("error = %v, want ErrTruncated", err)
			}
		})
	}
}

// TestMalformedJSON: broken JSON in an answer is an error, not a panic or an empty answer.
func TestMalformedJSON(t *testing.T) {
	bodies := map[string][][]byte{
		"chat": {
			[]byte(`{"id":"x","choices":[{"index":0,"message":{"content":"hi"`),
			[]byte("data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: {\"id\":\"x\",\"choices\":[{\"ind\n\n"),
		},
		"responses": {
			[]byte(`{"id":"resp_x","output":[{"type":"message","content":[`),
			[]byte("event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}\n\nevent: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\n\n"),
		},
	}
	modes(func(t *testing.T, api apiCase, stream bool) {
		body := bodies[api.name][0]
		ct := "application/json"
		if stream {
			body, ct = bodies[api.name][1], "text/event-stream"
		}
		srv := replay.NewServer(t, replay.Exchange{Header: http.Header{"Content-Type": {ct}}, Body: body})
		m := api.newM(t, srv.URL, Config{Model: "m"})
		r, err := providertest.Run(context.Background(), m, hi, stream)
		if err == nil {
			t.Fatalf("malformed JSON accepted: %+v", r)
		}
	})(t)
}

// TestCancel: cancelling the context stops a request waiting for its answer, and a stream in the
// middle, at once.
func TestCancel(t *testing.T) {
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) { api.target().TestCancel(t) })
	}
}

// closeRecorder counts response bodies opened and closed.
type closeRecorder struct {
	opened, closed atomic.Int32
}

func (c *closeRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	c.opened.Add(1)
	res.Body = &recordedBody{ReadCloser: res.Body, rec: c}
	return res, nil
}

type recordedBody struct {
	io.ReadCloser
	rec  *closeRecorder
	once atomic.Bool
}

func (b *recordedBody) Close() error {
	if b.once.CompareAndSwap(false, true) {
		b.rec.closed.Add(1)
	}
	return b.ReadCloser.Close()
}

// TestStreamStopEarly: stopping the iteration closes the response body.
func TestStreamStopEarly(t *testing.T) {
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) {
			srv := replay.NewServer(t, api.success(t, true))
			rec := &closeRecorder{}
			m := api.newM(t, srv.URL, Config{Model: "m", Transport: provider.Transport{HTTPClient: &http.Client{Transport: rec}}})
			for r, err := range m.Stream(context.Background(), hi) {
				if err != nil || r == nil {
					t.Fatal(err)
				}
				break
			}
			if rec.opened.Load() != 1 || rec.closed.Load() != 1 {
				t.Fatalf("%d bodies opened, %d closed", rec.opened.Load(), rec.closed.Load())
			}
		})
	}
}

// TestErrorsInStream: errors the API reports inside a stream, or in a failed response, are
// *ResponseError values.
func TestErrorsInStream(t *testing.T) {
	cases := []struct {
		name      string
		api       int
		ex        replay.Exchange
		want      ResponseError
		temporary bool
	}{{
		name: "chat error object",
		api:  0,
		ex: replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte(
			"data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Ol\"}}]}\n\n" +
				"data: {\"error\":{\"message\":\"The server is overloaded\",\"type\":\"server_error\",\"code\":null}}\n\n")},
		want:      ResponseError{Event: "error", Type: "server_error", Message: "The server is overloaded"},
		temporary: true,
	}, {
		name: "responses error event",
		api:  1,
		ex: replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: providertest.SSE(
			`{"type":"response.created","response":{"id":"r","model":"m","status":"in_progress","output":[]}}`,
			`{"type":"error","code":"rate_limit_exceeded","message":"Too many tokens","param":null,"sequence_number":2}`)},
		want:      ResponseError{Event: "error", Code: "rate_limit_exceeded", Message: "Too many tokens"},
		temporary: true,
	}, {
		name: "responses failed",
		api:  1,
		ex: replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: providertest.SSE(
			`{"type":"response.created","response":{"id":"r","model":"m","status":"in_progress","output":[]}}`,
			`{"type":"response.failed","response":{"id":"r","model":"m","status":"failed","output":[],"error":{"code":"invalid_prompt","message":"The prompt was flagged"}}}`)},
		want: ResponseError{Event: "response.failed", Code: "invalid_prompt", Message: "The prompt was flagged"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t, tc.ex)
			m := apis[tc.api].newM(t, srv.URL, Config{Model: "m"})
			_, _, err := collect(t, m, hi)
			var re *ResponseError
			if !errors.As(err, &re) {
				t.Fatalf("error %T %v, want *ResponseError", err, err)
			}
			if *re != tc.want || re.Temporary() != tc.temporary || !strings.Contains(re.Error(), tc.want.Message) {
				t.Fatalf("got %+v (%v)", *re, re)
			}
		})
	}
	t.Run("responses failed, not streamed", func(t *testing.T) {
		srv := replay.NewServer(t, providertest.JSONError(200, `{"id":"r","object":"response","model":"m","status":"failed","output":[],"error":{"code":"server_error","message":"boom"}}`))
		m := newTestModel(t, NewResponses, srv.URL, Config{Model: "m"})
		_, err := m.Call(context.Background(), hi)
		var re *ResponseError
		if !errors.As(err, &re) || *re != (ResponseError{Event: "response", Code: "server_error", Message: "boom"}) || !re.Temporary() {
			t.Fatalf("error = %v", err)
		}
	})
}
