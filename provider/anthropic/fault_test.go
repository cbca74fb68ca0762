package anthropic

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
	"github.com/wield-ai/wield/tool"
)

const (
	rateLimited = `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`
	serverError = `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`
)

func weatherPrompt() *chat.Prompt {
	return &chat.Prompt{
		Messages: []chat.Message{chat.User("What's the weather in San Francisco? Use fahrenheit.")},
		Options:  &chat.Options{Tools: []tool.Tool{sdkWeather()}},
	}
}

// TestRetries: 429 and 5xx answers are retried (honouring Retry-After, here zero so the test
// does not wait) and the recorded answer is returned; without retries, or on a 4xx, the error
// is a *chat.ProviderError with the status and Anthropic's message.
func TestRetries(t *testing.T) {
	ok := providertest.Load(t, "sdk-tool-runner-basic")[0]
	okStream := providertest.Load(t, "sdk-tool-runner-next-streaming")[0]
	tests := []struct {
		name       string
		exchanges  []replay.Exchange
		maxRetries *int
		stream     bool
		wantStatus int // 0: success expected
		wantType   string
	}{
		{name: "429 then 200", exchanges: []replay.Exchange{providertest.JSONError(429, rateLimited, "Retry-After", "0"), ok}},
		{name: "429 then 200, streaming", stream: true, exchanges: []replay.Exchange{providertest.JSONError(429, rateLimited, "Retry-After", "0"), okStream}},
		{name: "500 twice then 200", exchanges: []replay.Exchange{
			providertest.JSONError(500, serverError, "Retry-After-Ms", "1"), providertest.JSONError(500, serverError, "Retry-After-Ms", "1"), ok}},
		{name: "529 overloaded then 200", exchanges: []replay.Exchange{
			providertest.JSONError(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Retry-After", "0"), ok}},
		{name: "429 without retries", maxRetries: chat.Ptr(0), exchanges: []replay.Exchange{providertest.JSONError(429, rateLimited)},
			wantStatus: 429, wantType: "rate_limit_error"},
		{name: "500 after the last retry", maxRetries: chat.Ptr(1), exchanges: []replay.Exchange{
			providertest.JSONError(500, serverError, "Retry-After", "0"), providertest.JSONError(500, serverError, "Retry-After", "0")},
			wantStatus: 500, wantType: "api_error"},
		{name: "400 is not retried", exchanges: []replay.Exchange{
			providertest.JSONError(400, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}`)},
			wantStatus: 400, wantType: "invalid_request_error"},
		{name: "401 streaming", stream: true, exchanges: []replay.Exchange{
			providertest.JSONError(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)},
			wantStatus: 401, wantType: "authentication_error"},
		{name: "502 from a proxy, not JSON", maxRetries: chat.Ptr(0), exchanges: []replay.Exchange{
			{Status: 502, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte("<html>Bad Gateway</html>")}},
			wantStatus: 502},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t, tc.exchanges...)
			m := newTestModel(t, srv.URL, Config{Model: "claude-3-7-sonnet-latest", MaxTokens: 512, MaxRetries: tc.maxRetries})
			resp, err := providertest.Run(context.Background(), m, weatherPrompt(), tc.stream)
			if srv.Served() != len(tc.exchanges) {
				t.Errorf("%d requests, want %d", srv.Served(), len(tc.exchanges))
			}
			for i, r := range srv.Requests() {
				if got := r.Header.Get("X-Stainless-Retry-Count"); got != strconv.Itoa(i) {
					t.Errorf("request %d: retry count header %q", i+1, got)
				}
			}
			if tc.wantStatus == 0 {
				if err != nil {
					t.Fatal(err)
				}
				want := ok
				if tc.stream {
					want = okStream
				}
				checkResponse(t, resp, expectRecorded(t, want))
				return
			}
			var pe *chat.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *chat.ProviderError", err, err)
			}
			if pe.Provider != "anthropic" || pe.StatusCode != tc.wantStatus || pe.Type != tc.wantType || pe.Message == "" || pe.Err == nil {
				t.Errorf("provider error = %+v", pe)
			}
			t.Log(err)
		})
	}
}

// TestStreamCut: a connection dropped in the middle of a streamed tool call is an error, and the
// partial answer is not passed off as complete; cut at an event boundary, the missing
// message_stop gives it away.
func TestStreamCut(t *testing.T) {
	ex := providertest.Load(t, "sdk-tool-runner-next-streaming")[0]
	frag := []byte(`"partial_json":"{\"city\": \"Sa"}`)
	afterFrag := bytes.Index(ex.Body, frag) + len(frag)
	boundary := bytes.Index(ex.Body, []byte("event: message_delta"))
	for _, tc := range []struct {
		name string
		cut  int
	}{
		{"inside an event after a tool-call fragment", afterFrag},
		{"at an event boundary before message_delta", boundary},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cut := ex
			cut.CutAfter = tc.cut
			resp := target.StreamCut(t, cut, 1)
			if g := resp.Result(); g == nil || g.FinishReason != "" {
				t.Errorf("partial response = %+v", g)
			}
		})
	}
}

// TestCallCut: a whole-answer body cut short is retried by the SDK, and is an error once the
// retries are spent.
func TestCallCut(t *testing.T) {
	ex := providertest.Load(t, "sdk-tool-runner-basic")[0]
	cut := ex
	cut.CutAfter = len(ex.Body) / 2
	srv := replay.NewServer(t, cut, cut)
	m := newTestModel(t, srv.URL, Config{MaxRetries: chat.Ptr(1)})
	if _, err := m.Call(context.Background(), weatherPrompt()); err == nil {
		t.Fatal("no error for a cut body")
	}
	if srv.Served() != 2 {
		t.Errorf("%d requests, want 2", srv.Served())
	}

	srv = replay.NewServer(t, cut, ex)
	m = newTestModel(t, srv.URL, Config{Model: "claude-3-7-sonnet-latest", MaxTokens: 512})
	resp, err := m.Call(context.Background(), weatherPrompt())
	if err != nil {
		t.Fatal(err)
	}
	checkResponse(t, resp, expectRecorded(t, ex))
}

// target is the model under the shared fault checks: the stream's head is message_start.
var target = providertest.Target{
	New:         func(t testing.TB, url string) chat.Model { return newTestModel(t, url, Config{}) },
	Prompt:      weatherPrompt(),
	ContentType: "text/event-stream",
	Head:        string(providertest.SSE(evStart)),
}

// TestCancel: cancelling the context ends a waiting Call or Stream with the context's error
// instead of waiting for the server (which never answers).
func TestCancel(t *testing.T) {
	target.TestCancel(t)
	t.Run("deadline", func(t *testing.T) {
		srv := providertest.NewHangingServer(t, "", "")
		m := newTestModel(t, srv.URL, Config{MaxRetries: chat.Ptr(0)})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, err := m.Call(ctx, weatherPrompt()); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error = %v, want context.DeadlineExceeded", err)
		}
	})
}

// TestMalformedResponse: bodies that are not what the API sends are errors, never panics.
func TestMalformedResponse(t *testing.T) {
	jsonHeader := http.Header{"Content-Type": {"application/json"}}
	for _, tc := range []struct {
		name string
		body string
	}{
		{"truncated JSON", `{"id":"msg_1","type":"message","content":[{"type":"text","text":"hi"`},
		{"not JSON", `this is not json`},
		{"tool_use input not an object", `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t","name":"n","input":[1,2]}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Exchange{Header: jsonHeader, Body: []byte(tc.body)})
			m := newTestModel(t, srv.URL, Config{})
			resp, err := m.Call(context.Background(), weatherPrompt())
			if err == nil {
				t.Fatalf("no error; response %+v", resp)
			}
			t.Log(err)
		})
	}
}
