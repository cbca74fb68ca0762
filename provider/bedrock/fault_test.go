package bedrock

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/providertest/awstest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/tool"
)

func weatherPrompt() *chat.Prompt {
	return &chat.Prompt{
		Messages: []chat.Message{chat.User("What is the weather in Barcelona?")},
		Options:  &chat.Options{Tools: []tool.Tool{weatherTool()}},
	}
}

// recordedStream is the recorded ConverseStream answer: text, then a call in fragments.
func recordedStream(t testing.TB) replay.Exchange {
	return providertest.Load(t, "converse", "openllmetry-converse-stream-tool-use-claude-3-sonnet")[0]
}

// target is the model under the shared fault checks; the head of its stream is the recording's
// first frame, messageStart.
func target(t testing.TB) providertest.Target {
	ex := recordedStream(t)
	return providertest.Target{
		New:         func(t testing.TB, url string) chat.Model { return newTestModel(t, url, Config{}) },
		Prompt:      weatherPrompt(),
		ContentType: "application/vnd.amazon.eventstream",
		Head:        string(ex.Body[:awstest.FrameEnds(t, ex.Body)[0]]),
	}
}

// TestCancel: cancelling ends a waiting Call or Stream at once with the context's error, and
// closes the connection; a cancelled context sends nothing.
func TestCancel(t *testing.T) {
	target(t).TestCancel(t)
	t.Run("deadline", func(t *testing.T) {
		srv := providertest.NewHangingServer(t, "", "")
		m := newTestModel(t, srv.URL, Config{MaxAttempts: 1})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, err := m.Call(ctx, weatherPrompt()); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error = %v, want context.DeadlineExceeded", err)
		}
	})
}

// TestStopEarly: breaking out of a stream closes the connection.
func TestStopEarly(t *testing.T) { target(t).StopEarly(t) }

// TestConsumerPanic: a panic in the caller's loop reaches the caller as it was.
func TestConsumerPanic(t *testing.T) {
	srv := replay.NewServer(t, recordedStream(t))
	providertest.ConsumerPanic(t, newTestModel(t, srv.URL, Config{}), weatherPrompt())
}

// TestStreamCut: a stream cut inside a frame, or between frames before the end, is an error
// wrapping io.ErrUnexpectedEOF; the call that arrived is kept, nothing is retried.
func TestStreamCut(t *testing.T) {
	ex := recordedStream(t)
	ends := awstest.FrameEnds(t, ex.Body)
	kinds, _ := decodeEvents(t, ex.Body)
	lastInput := 0 // the frame after which the call has all its input
	for i, k := range kinds {
		if k == "contentBlockDelta" {
			lastInput = i
		}
	}
	tg := target(t)
	for _, tc := range []struct {
		name string
		cut  int
	}{
		{"inside the prelude of a frame", ends[3] + 5},
		{"inside a frame's payload", ends[lastInput] + 60},
		{"between frames, before messageStop", ends[lastInput+1]},
		{"between frames, after messageStop, before metadata", ends[len(ends)-2]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cut := ex
			cut.CutAfter = tc.cut
			calls := 1
			if tc.cut < ends[lastInput] {
				calls = 0
			}
			tg.StreamCut(t, cut, calls)
		})
	}
}

// TestRetries: throttling, a model not ready yet and 5xx answers are retried by the SDK's
// retryer, resending the request unchanged, and the answer returned; other errors are not
// retried, and an error that outlasts the attempts is a *chat.ProviderError with Bedrock's kind
// and message.
func TestRetries(t *testing.T) {
	ok := providertest.Load(t, "converse", "lcgo-converse-tool-loop-nova-2-lite")[1]
	okStream := recordedStream(t)
	throttled := providertest.JSONError(429, `{"message":"Too many requests, please wait before trying again."}`,
		"X-Amzn-Errortype", "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/")
	notReady := providertest.JSONError(429, `{"message":"Model is not ready to serve inference requests."}`, "X-Amzn-Errortype", "ModelNotReadyException")
	unavailable := providertest.JSONError(503, `{"message":"Service unavailable"}`, "X-Amzn-Errortype", "ServiceUnavailableException")
	internal := providertest.JSONError(500, `{"message":"Internal server error"}`, "X-Amzn-Errortype", "InternalServerException")
	invalid := providertest.JSONError(400, `{"message":"The model returned the following errors: messages: roles must alternate"}`, "X-Amzn-Errortype", "ValidationException")
	denied := providertest.JSONError(403, `{"message":"You don't have access to the model with the specified model ID."}`, "X-Amzn-Errortype", "AccessDeniedException")
	throttledErr := &chat.ProviderError{StatusCode: 429, Type: "ThrottlingException", Message: "Too many requests, please wait before trying again."}
	faults := providertest.FaultTarget{
		Provider: "bedrock",
		New: func(t testing.TB, url string, retries *int) (chat.Model, *providertest.Waits) {
			cfg := Config{}
			if retries != nil {
				cfg.MaxAttempts = *retries + 1
			}
			return newTestModel(t, url, cfg), nil
		},
		Prompt: &chat.Prompt{Messages: []chat.Message{chat.User("Calculate 15 * 8")}},
		Wraps:  true,
		Answer: func(t testing.TB, resp *chat.Response, last replay.Exchange) {
			if want := expectRecorded(t, last); resp.Text() != want.text {
				t.Errorf("answer = %q, want %q", resp.Text(), want.text)
			}
		},
	}
	faults.Faults(t, []providertest.Fault{
		{Name: "throttled twice, then the answer", Answers: []replay.Exchange{throttled, throttled, ok}},
		{Name: "throttled, then the stream", Stream: true, Answers: []replay.Exchange{throttled, okStream}},
		{Name: "model not ready, then the answer", Answers: []replay.Exchange{notReady, ok}},
		{Name: "503 and 500, then the answer", Answers: []replay.Exchange{unavailable, internal, ok}},
		{Name: "throttled on every attempt", Answers: []replay.Exchange{throttled, throttled, throttled, throttled}, Err: throttledErr},
		{Name: "retries off", Retries: chat.Ptr(0), Answers: []replay.Exchange{throttled}, Err: throttledErr},
		{Name: "400 is not retried", Answers: []replay.Exchange{invalid},
			Err: &chat.ProviderError{StatusCode: 400, Type: "ValidationException", Message: "The model returned the following errors: messages: roles must alternate"}},
		{Name: "403 is not retried, streaming", Stream: true, Answers: []replay.Exchange{denied},
			Err: &chat.ProviderError{StatusCode: 403, Type: "AccessDeniedException", Message: "You don't have access to the model with the specified model ID."}},
		{Name: "502 from a proxy, not JSON", Retries: chat.Ptr(0), Answers: []replay.Exchange{
			{Status: 502, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte("<html>Bad Gateway</html>")}},
			Err: &chat.ProviderError{StatusCode: 502, Message: "the error answer is not Bedrock's JSON"}},
	})
}

// TestStreamExceptions: an exception frame inside a 200 stream ends it with a *chat.ProviderError
// carrying the exception's kind, message and the status Bedrock documents for it; the stream is
// not retried, and what arrived before stays with the caller.
func TestStreamExceptions(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		status int
	}{
		{"throttlingException", 429},
		{"modelStreamErrorException", 424},
		{"internalServerException", 500},
		{"validationException", 400},
		{"serviceUnavailableException", 503},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			body := append(frames(t, evStart(), evText(0, "Hel")), awstest.ExceptionFrame(t, tc.kind, "stream failed: "+tc.kind)...)
			srv := replay.NewServer(t, streamExchange(body))
			m := newTestModel(t, srv.URL, Config{})
			var text strings.Builder
			var errs []error
			for chunk, err := range m.Stream(context.Background(), weatherPrompt()) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				text.WriteString(chunk.Text())
			}
			var pe *chat.ProviderError
			if len(errs) != 1 || !errors.As(errs[0], &pe) || pe.StatusCode != tc.status || !strings.EqualFold(pe.Type, tc.kind) ||
				pe.Message != "stream failed: "+tc.kind {
				t.Fatalf("errors %v (%+v)", errs, pe)
			}
			if text.String() != "Hel" || srv.Served() != 1 {
				t.Errorf("text %q, %d requests", text.String(), srv.Served())
			}
		})
	}
}

// TestMalformed: answers that are not what Bedrock sends are errors, never panics or silently
// short answers.
func TestMalformed(t *testing.T) {
	for _, tc := range []struct {
		name string
		ex   replay.Exchange
	}{
		{"truncated JSON", jsonExchange([]byte(`{"output":{"message":{"content":[{"text":"hi"`))},
		{"not JSON", jsonExchange([]byte(`this is not json`))},
		{"tool input not an object", jsonExchange([]byte(`{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"t","name":"n","input":[1,2]}}]}},"stopReason":"tool_use","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}`))},
		{"no message", jsonExchange([]byte(`{"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}`))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t, tc.ex)
			m := newTestModel(t, srv.URL, Config{MaxAttempts: 1})
			if resp, err := m.Call(context.Background(), weatherPrompt()); err == nil {
				t.Fatalf("no error; response %+v", resp)
			} else {
				t.Log(err)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		events []types.ConverseStreamOutput
	}{
		{"delta before messageStart", []types.ConverseStreamOutput{evText(0, "x")}},
		{"start before messageStart", []types.ConverseStreamOutput{evToolStart(0, "t", "n")}},
		{"stop before messageStart", []types.ConverseStreamOutput{evStop(0), evStart()}},
		{"input for a text block", []types.ConverseStreamOutput{evStart(), evText(0, "x"), evToolInput(0, "{}")}},
		{"text for a toolUse block", []types.ConverseStreamOutput{evStart(), evToolStart(0, "t", "n"), evText(0, "x")}},
		{"block started twice", []types.ConverseStreamOutput{evStart(), evToolStart(0, "t", "n"), evToolStart(0, "t", "n")}},
		{"delta after the block stopped", []types.ConverseStreamOutput{evStart(), evText(0, "x"), evStop(0), evText(0, "y")}},
		{"index out of range", []types.ConverseStreamOutput{evStart(), evText(1<<20, "x")}},
		{"metadata before messageStop", []types.ConverseStreamOutput{evStart(), evMetadata(tokens(1, 1))}},
		{"second messageStart", []types.ConverseStreamOutput{evStart(), evStart()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t, streamExchange(frames(t, tc.events...)))
			m := newTestModel(t, srv.URL, Config{})
			_, err := chat.Aggregate(m.Stream(context.Background(), weatherPrompt()))
			if err == nil || !strings.Contains(err.Error(), "malformed stream") {
				t.Fatalf("error = %v", err)
			}
		})
	}
	t.Run("stop of a block never started", func(t *testing.T) {
		srv := replay.NewServer(t, streamExchange(frames(t, evStart(), evStop(0), evMessageStop("end_turn"), evMetadata(tokens(1, 1)))))
		resp, err := chat.Aggregate(newTestModel(t, srv.URL, Config{}).Stream(context.Background(), weatherPrompt()))
		// An empty block is harmless: Converse may stop a block it sent nothing for.
		if err != nil || resp.Text() != "" {
			t.Fatalf("response %+v, error %v", resp, err)
		}
	})
}

// TestAuth: the ways New finds credentials and the configurations it refuses.
func TestAuth(t *testing.T) {
	ok := providertest.Load(t, "converse", "lcgo-converse-tool-loop-nova-2-lite")[1]
	prompt := &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}
	awstest.CheckChain(t, ok, func(t *testing.T, url, profile, region string) error {
		m, err := New(context.Background(), Config{Model: "us.amazon.nova-2-lite-v1:0", BaseURL: url, Profile: profile, Region: region, MaxAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Call(context.Background(), prompt)
		return err
	})
	// A bearer token only travels over HTTPS: these tests serve TLS on 127.0.0.1.
	tlsServer := func(t *testing.T) (*httptest.Server, *[]string) {
		var mu sync.Mutex
		var auths []string
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			mu.Lock()
			auths = append(auths, r.Header.Get("Authorization"))
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(ok.Body)
		}))
		t.Cleanup(srv.Close)
		return srv, &auths
	}
	for _, tc := range []struct {
		name, env, key, want string
	}{
		{"API key", "", "bedrock-key", "Bearer bedrock-key"},
		{"API key from the environment", "env-key", "", "Bearer env-key"},
		{"configured API key over the environment's", "env-key", "bedrock-key", "Bearer bedrock-key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			awstest.Isolate(t)
			t.Setenv("AWS_BEARER_TOKEN_BEDROCK", tc.env)
			srv, auths := tlsServer(t)
			m, err := New(context.Background(), Config{Model: "m", APIKey: tc.key, Region: "us-west-2", BaseURL: srv.URL, Transport: provider.Transport{HTTPClient: srv.Client()}, AWS: awstest.Config()})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Call(context.Background(), prompt); err != nil {
				t.Fatal(err)
			}
			if len(*auths) != 1 || (*auths)[0] != tc.want {
				t.Errorf("authorization = %q, want %q", *auths, tc.want)
			}
		})
	}
	t.Run("API key over plain HTTP is refused", func(t *testing.T) {
		awstest.Isolate(t)
		srv := replay.NewServer(t)
		m, err := New(context.Background(), Config{Model: "m", APIKey: "k", Region: "us-west-2", BaseURL: srv.URL, MaxAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Call(context.Background(), prompt); err == nil || !strings.Contains(err.Error(), "HTTPS") {
			t.Fatalf("error = %v", err)
		}
		if srv.Served() != 0 {
			t.Error("a key went out in clear")
		}
	})
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no model", Config{AWS: awstest.Config()}, "Model must be set"},
		{"no region", Config{Model: "m"}, "no AWS region"},
		{"AWS configuration without credentials", Config{Model: "m", AWS: &aws.Config{Region: "us-east-1"}}, "no credentials"},
		{"negative max tokens", Config{Model: "m", AWS: awstest.Config(), MaxTokens: -1}, "negative"},
		{"negative attempts", Config{Model: "m", AWS: awstest.Config(), MaxAttempts: -1}, "negative"},
		{"unknown profile", Config{Model: "m", Region: "us-east-1", Profile: "nobody"}, "nobody"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			awstest.Isolate(t)
			if _, err := New(context.Background(), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// recordingClient sends requests with an http.Client and keeps their bodies.
type recordingClient struct {
	c      *http.Client
	mu     sync.Mutex
	bodies []io.Reader
}

func (r *recordingClient) Do(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.bodies = append(r.bodies, req.Body)
	r.mu.Unlock()
	return r.c.Do(req)
}

// TestRequestBodyAfterResponse: net/http may still read a request's body after the response
// arrived, to check it holds nothing past its Content-Length; the AWS SDK has closed it by then.
// That read must end the body cleanly (no error), or net/http closes the connection under the
// response still being read. The AWS SDK's body, read through its WriteTo, fails with io.EOF
// there; the bodies this package hands to the HTTP client do not.
func TestRequestBodyAfterResponse(t *testing.T) {
	srv := replay.NewServer(t, recordedStream(t))
	rec := &recordingClient{c: http.DefaultClient}
	m := newTestModel(t, srv.URL, Config{ClientOptions: []func(*bedrockruntime.Options){func(o *bedrockruntime.Options) { o.HTTPClient = rec }}})
	if _, err := chat.Aggregate(m.Stream(context.Background(), weatherPrompt())); err != nil {
		t.Fatal(err)
	}
	if len(rec.bodies) != 1 {
		t.Fatalf("%d requests", len(rec.bodies))
	}
	if _, ok := rec.bodies[0].(io.WriterTo); ok {
		t.Error("the request body offers WriteTo")
	}
	if n, err := io.Copy(io.Discard, rec.bodies[0]); n != 0 || err != nil {
		t.Errorf("reading the closed body: %d bytes, error %v; want 0, nil", n, err)
	}
}
