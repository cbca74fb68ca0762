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
)

// apiCase is one API under fault tests: how to build its model and a recorded success.
type apiCase struct {
	name    string
	newM    func(t testing.TB, url string, cfg Config) chat.Model
	success func(t testing.TB, stream bool) replay.Exchange
}

var apis = []apiCase{
	{
		name: "chat",
		newM: func(t testing.TB, url string, cfg Config) chat.Model { return newTestModel(t, New, url, cfg) },
		success: func(t testing.TB, stream bool) replay.Exchange {
			if stream {
				return providertest.Load(t, "chat", "fantasy-text-stream-gpt-4o")[0]
			}
			return providertest.Load(t, "chat", "fantasy-text-gpt-4o")[0]
		},
	},
	{
		name: "responses",
		newM: func(t testing.TB, url string, cfg Config) chat.Model { return newTestModel(t, NewResponses, url, cfg) },
		success: func(t testing.TB, stream bool) replay.Exchange {
			if stream {
				return providertest.Load(t, "responses", "fantasy-text-stream-gpt-4o")[0]
			}
			return providertest.Load(t, "responses", "fantasy-text-gpt-4o")[0]
		},
	},
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
		m = api.newM(t, srv.URL, Config{Model: "gpt-4o", MaxRetries: ptr(0)})
		_, err = providertest.Run(context.Background(), m, hi, stream)
		var pe *chat.ProviderError
		if !errors.As(err, &pe) || pe.StatusCode != 429 || pe.Message != "Rate limit reached" || pe.Code != "rate_limit_exceeded" || !pe.Temporary() || pe.Provider != "openai" {
			t.Fatalf("error = %#v", err)
		}
	})(t)
}

// TestRetry500: two server errors, then the answer.
func TestRetry500(t *testing.T) {
	modes(func(t *testing.T, api apiCase, stream bool) {
		failing := providertest.JSONError(500, `{"error":{"message":"The server had an error","type":"server_error"}}`)
		srv := replay.NewServer(t, failing, failing, api.success(t, stream))
		// Keep the backoff short; the default starts at half a second.
		m := api.newM(t, srv.URL, Config{Model: "gpt-4o", RequestOptions: []option.RequestOption{option.WithMaxRetryDelay(5 * time.Millisecond)}})
		r, err := providertest.Run(context.Background(), m, hi, stream)
		if err != nil {
			t.Fatal(err)
		}
		if srv.Served() != 3 || r.Text() == "" {
			t.Fatalf("%d requests, text %q", srv.Served(), r.Text())
		}
		// Once retries are exhausted the last error is returned.
		srv = replay.NewServer(t, failing, failing, failing)
		m = api.newM(t, srv.URL, Config{Model: "gpt-4o", RequestOptions: []option.RequestOption{option.WithMaxRetryDelay(5 * time.Millisecond)}})
		_, err = providertest.Run(context.Background(), m, hi, stream)
		var pe *chat.ProviderError
		if !errors.As(err, &pe) || pe.StatusCode != 500 || pe.Type != "server_error" || srv.Served() != 3 {
			t.Fatalf("error = %v after %d requests", err, srv.Served())
		}
	})(t)
}

// TestErrorBodies: 4xx and 5xx answers become *chat.ProviderError with the provider's message,
// whatever shape OpenAI-compatible servers give their error bodies.
func TestErrorBodies(t *testing.T) {
	cases := []struct {
		ex                  replay.Exchange
		status              int
		typ, code, message  string
		temporary, notRetry bool
	}{
		{ex: providertest.JSONError(400, `{"error":{"message":"Invalid schema for function 'weather'","type":"invalid_request_error","param":"tools[0]","code":"invalid_function_parameters"}}`),
			status: 400, typ: "invalid_request_error", code: "invalid_function_parameters", message: "Invalid schema for function 'weather'"},
		{ex: providertest.JSONError(404, `{"error":"model 'llama9' not found"}`), status: 404, message: "model 'llama9' not found"},
		{ex: providertest.JSONError(422, `{"detail":[{"loc":["body","messages"],"msg":"field required"}]}`), status: 422, message: `[{"loc":["body","messages"],"msg":"field required"}]`},
		{ex: providertest.JSONError(400, `{"object":"error","message":"max_tokens is too large","type":"BadRequestError","code":400}`), status: 400, message: "max_tokens is too large"},
		{ex: replay.Exchange{Status: 502, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte("<html>Bad Gateway</html>")}, status: 502, message: "<html>Bad Gateway</html>", temporary: true},
		{ex: providertest.JSONError(401, ``), status: 401},
	}
	modes(func(t *testing.T, api apiCase, stream bool) {
		for _, tc := range cases {
			srv := replay.NewServer(t, tc.ex)
			m := api.newM(t, srv.URL, Config{Model: "m", MaxRetries: ptr(0)})
			_, err := providertest.Run(context.Background(), m, hi, stream)
			var pe *chat.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("%s: error %T %v, want *chat.ProviderError", tc.ex.Body, err, err)
			}
			if pe.StatusCode != tc.status || pe.Type != tc.typ || pe.Code != tc.code || pe.Message != tc.message || pe.Temporary() != tc.temporary {
				t.Errorf("%s: got %+v", tc.ex.Body, pe)
			}
			if pe.Err == nil || !strings.Contains(pe.Error(), "HTTP") {
				t.Errorf("%s: Error() = %q, Err = %v", tc.ex.Body, pe.Error(), pe.Err)
			}
		}
	})(t)
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
					return tc.newM(t, url, Config{Model: "m", MaxRetries: ptr(0)})
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
	heads := map[string]string{
		"chat":      "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Ol\"}}]}\n\n",
		"responses": "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Ol\",\"output_index\":0}\n\n",
	}
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) {
			providertest.Target{
				New:         func(t testing.TB, url string) chat.Model { return api.newM(t, url, Config{Model: "m"}) },
				Prompt:      hi,
				ContentType: "text/event-stream",
				Head:        heads[api.name],
			}.TestCancel(t)
		})
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
			m := api.newM(t, srv.URL, Config{Model: "m", HTTPClient: &http.Client{Transport: rec}})
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
