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
	"github.com/wield-ai/wield/provider"
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

// faults is the model under the fault tables. Retry-After asks for no wait; every attempt says
// which retry it is.
var faults = providertest.FaultTarget{
	Provider: "anthropic",
	New: func(t testing.TB, url string, retries *int) (chat.Model, *providertest.Waits) {
		return newTestModel(t, url, Config{Model: "claude-3-7-sonnet-latest", MaxTokens: 512, Transport: provider.Transport{MaxRetries: providertest.MaxRetries(retries)}}), nil
	},
	Prompt: weatherPrompt(),
	Wraps:  true,
	Answer: func(t testing.TB, resp *chat.Response, last replay.Exchange) {
		checkResponse(t, resp, expectRecorded(t, last))
	},
	Requests: func(t testing.TB, reqs []replay.Request) {
		for i, r := range reqs {
			if got := r.Header.Get("X-Stainless-Retry-Count"); got != strconv.Itoa(i) {
				t.Errorf("request %d: retry count header %q", i+1, got)
			}
		}
	},
}

// TestRetries: 429 and 5xx answers are retried (honouring Retry-After, here zero so the test
// does not wait) and the recorded answer is returned; without retries, or on a 4xx, the error
// is a *chat.ProviderError with the status and Anthropic's message.
func TestRetries(t *testing.T) {
	ok := providertest.Load(t, "sdk-tool-runner-basic")[0]
	okStream := providertest.Load(t, "sdk-tool-runner-next-streaming")[0]
	faults.Faults(t, []providertest.Fault{
		{Name: "429 then 200", Answers: []replay.Exchange{providertest.JSONError(429, rateLimited, "Retry-After", "0"), ok}},
		{Name: "429 then 200, streaming", Stream: true, Answers: []replay.Exchange{providertest.JSONError(429, rateLimited, "Retry-After", "0"), okStream}},
		{Name: "500 twice then 200", Answers: []replay.Exchange{
			providertest.JSONError(500, serverError, "Retry-After-Ms", "1"), providertest.JSONError(500, serverError, "Retry-After-Ms", "1"), ok}},
		{Name: "529 overloaded then 200", Answers: []replay.Exchange{
			providertest.JSONError(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Retry-After", "0"), ok}},
		{Name: "429 without retries", Retries: chat.Ptr(0), Answers: []replay.Exchange{providertest.JSONError(429, rateLimited)},
			Err: &chat.ProviderError{StatusCode: 429, Type: "rate_limit_error", Message: "Number of request tokens has exceeded your per-minute rate limit"}},
		{Name: "500 after the last retry", Retries: chat.Ptr(1), Answers: []replay.Exchange{
			providertest.JSONError(500, serverError, "Retry-After", "0"), providertest.JSONError(500, serverError, "Retry-After", "0")},
			Err: &chat.ProviderError{StatusCode: 500, Type: "api_error", Message: "Internal server error"}},
		{Name: "400 is not retried", Answers: []replay.Exchange{
			providertest.JSONError(400, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}`)},
			Err: &chat.ProviderError{StatusCode: 400, Type: "invalid_request_error", Message: "max_tokens: Field required"}},
		{Name: "prompt too long", Answers: []replay.Exchange{
			providertest.JSONError(400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215341 tokens > 200000 maximum"}}`)},
			Err: &chat.ProviderError{StatusCode: 400, Type: "invalid_request_error", Message: "prompt is too long: 215341 tokens > 200000 maximum"}},
		{Name: "401 streaming", Stream: true, Answers: []replay.Exchange{
			providertest.JSONError(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)},
			Err: &chat.ProviderError{StatusCode: 401, Type: "authentication_error", Message: "invalid x-api-key"}},
		{Name: "502 from a proxy, not JSON", Retries: chat.Ptr(0), Answers: []replay.Exchange{
			{Status: 502, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte("<html>Bad Gateway</html>")}},
			Err: &chat.ProviderError{StatusCode: 502, Message: "<html>Bad Gateway</html>"}},
	})
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
		t.Run(tc.name, func(t *testing.T) { cutUnfinished(t, target, ex, tc.cut) })
	}
}

// cutUnfinished runs tg's StreamCut on ex cut after cut bytes, where the one tool call has come,
// and checks that the partial answer is not passed off as finished.
func cutUnfinished(t *testing.T, tg providertest.Target, ex replay.Exchange, cut int) {
	t.Helper()
	ex.CutAfter = cut
	if g := tg.StreamCut(t, ex, 1).Result(); g == nil || g.FinishReason != "" {
		t.Errorf("partial response = %+v", g)
	}
}

// TestCallCut: a whole-answer body cut short is retried by the SDK, and is an error once the
// retries are spent.
func TestCallCut(t *testing.T) {
	ex := providertest.Load(t, "sdk-tool-runner-basic")[0]
	cut := ex
	cut.CutAfter = len(ex.Body) / 2
	srv := replay.NewServer(t, cut, cut)
	m := newTestModel(t, srv.URL, Config{Transport: provider.Transport{MaxRetries: 1}})
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
		m := newTestModel(t, srv.URL, Config{Transport: provider.Transport{MaxRetries: -1}})
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
