package anthropic

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/providertest/awstest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/tool"
)

// bedrockEvents decodes a recorded InvokeModelWithResponseStream body: each event-stream frame
// (CRCs checked by the AWS decoder) carries {"bytes":"<base64>"}, one Anthropic stream event.
func bedrockEvents(t testing.TB, body []byte) [][]byte {
	t.Helper()
	var out [][]byte
	dec := eventstream.NewDecoder()
	r := bytes.NewReader(body)
	for r.Len() > 0 {
		msg, err := dec.Decode(r, nil)
		if err != nil {
			t.Fatalf("recorded event stream: %v", err)
		}
		if h := msg.Headers.Get(":event-type"); h == nil || h.String() != "chunk" {
			t.Fatalf("recorded frame of type %v, want chunk", h)
		}
		var chunk struct {
			Bytes string `json:"bytes"`
		}
		if err := json.Unmarshal(msg.Payload, &chunk); err != nil {
			t.Fatal(err)
		}
		ev, err := base64.StdEncoding.DecodeString(chunk.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func newBedrockModel(t testing.TB, url string, cfg BedrockConfig) *Model {
	t.Helper()
	cfg.BaseURL = url
	if cfg.AWS == nil && cfg.APIKey == "" {
		cfg.AWS = awstest.Config()
	}
	if cfg.Model == "" {
		cfg.Model = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
	}
	m, err := NewBedrock(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// cloudCase is a recorded conversation with Claude on a cloud platform.
type cloudCase struct {
	replayCase
	model string
}

var bedrockCases = []cloudCase{
	{model: "us.anthropic.claude-haiku-4-5-20251001-v1:0", replayCase: replayCase{
		name: "fantasy-bedrock-invoke-tool-loop-claude-haiku-4-5", system: "You are a helpful assistant",
		opts: chat.Options{MaxTokens: 4000, ToolChoice: "auto"}, tools: fantasyWeather,
		user: "What's the weather in Florence,Italy?",
		wantText: "The weather in Florence, Italy is currently **40°C (104°F)**, which is quite hot! It's a warm summer day " +
			"in Florence. Make sure to stay hydrated and use sun protection if you're planning to visit or are currently there.",
	}},
	{model: "us.anthropic.claude-opus-4-6-v1", replayCase: replayCase{
		name: "fantasy-bedrock-invoke-tool-loop-claude-opus-4-6", system: "You are a helpful assistant",
		opts: chat.Options{MaxTokens: 4000, ToolChoice: "auto"}, tools: fantasyWeather,
		user: "What's the weather in Florence,Italy?",
		wantText: "The current weather in **Florence, Italy** is **40°C** (104°F). That's extremely hot! 🌡️☀️\n\nMake sure " +
			"to stay hydrated, wear sunscreen, and try to stay in the shade or indoors during the hottest parts of the day " +
			"if you're visiting. Is there anything else you'd like to know?",
	}},
	{model: "us.anthropic.claude-haiku-4-5-20251001-v1:0", replayCase: replayCase{
		name: "fantasy-bedrock-invoke-stream-tool-loop-claude-haiku-4-5", stream: true, system: "You are a helpful assistant",
		opts: chat.Options{MaxTokens: 4000, ToolChoice: "auto"}, tools: fantasyWeather,
		user: "What's the weather in Florence,Italy?",
	}},
	{model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0", replayCase: replayCase{
		name: "fantasy-bedrock-invoke-stream-tool-loop-claude-sonnet-4-5", stream: true, system: "You are a helpful assistant",
		opts: chat.Options{MaxTokens: 4000, ToolChoice: "auto"}, tools: fantasyWeather,
		user: "What's the weather in Florence,Italy?",
	}},
	{model: "anthropic.claude-3-sonnet-20240229-v1:0", replayCase: replayCase{
		name: "openllmetry-boto3-invoke-stream-text-claude-3-sonnet", stream: true,
		opts: chat.Options{MaxTokens: 200, Temperature: chat.Ptr(0.5)},
		user: "Tell me a joke about opentelemetry",
	}},
	{model: "anthropic.claude-3-haiku-20240307-v1:0", replayCase: replayCase{
		name: "openllmetry-anthropic-python-sdk-invoke-claude-3-haiku",
		opts: chat.Options{MaxTokens: 1024}, user: "Tell me a joke about OpenTelemetry",
		wantText: "Here's an OpenTelemetry-themed joke for you:\n\nWhy did the developer have trouble instrumenting their " +
			"application with OpenTelemetry?\n\nBecause they were constantly getting tripped up by all the Spans!",
	}},
}

// TestBedrockReplay runs the recorded Bedrock InvokeModel conversations through NewBedrock: each
// request is the recorded one (the Messages body without model and stream, with
// anthropic_version), sent to /model/{id}/invoke or /invoke-with-response-stream and signed with
// SigV4; each answer, JSON or event stream, reads as the recording says.
func TestBedrockReplay(t *testing.T) {
	for _, tc := range bedrockCases {
		t.Run(tc.name, func(t *testing.T) {
			exs := providertest.Load(t, "bedrock", tc.name)
			srv := replay.NewServer(t, exs...)
			m := newBedrockModel(t, srv.URL, BedrockConfig{Config: Config{Model: tc.model}})
			if info := m.Info(); info != (chat.Info{Provider: "aws.bedrock", Model: tc.model}) {
				t.Errorf("info = %+v", info)
			}
			resp := runLoop(t, m, tc.replayCase, exs, srv)
			want := tc.wantText
			if want == "" {
				want = expectRecorded(t, exs[len(exs)-1]).text
			}
			if resp.Text() != want || resp.HasToolCalls() {
				t.Errorf("final answer = %q, calls %+v; want %q", resp.Text(), resp.ToolCalls(), want)
			}
			if srv.Served() != len(exs) {
				t.Errorf("served %d of %d exchanges", srv.Served(), len(exs))
			}
			for i, r := range srv.Requests() {
				checkCloudPath(t, i, r, exs[i])
				auth := r.Header.Get("Authorization")
				if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDTEST/") || !strings.Contains(auth, "/us-east-1/bedrock/aws4_request") ||
					r.Header.Get("X-Amz-Date") == "" {
					t.Errorf("request %d: not signed for bedrock in us-east-1: %q", i+1, auth)
				}
				if r.Header.Get("X-Api-Key") != "" {
					t.Errorf("request %d: sent an Anthropic API key to Bedrock", i+1)
				}
			}
		})
	}
}

// checkCloudPath asserts that a request went to the recorded method and path; recordings keep
// the path percent-encoded as sent (`%3A` for the colon of a model version).
func checkCloudPath(t testing.TB, i int, r replay.Request, ex replay.Exchange) {
	t.Helper()
	want, err := url.PathUnescape(ex.Path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != ex.Method || r.Path != want {
		t.Errorf("request %d: %s %s, want %s %s", i+1, r.Method, r.Path, ex.Method, want)
	}
}

// TestBedrockClientLoops: the recorded tool loops through client.Client, as applications run them.
func TestBedrockClientLoops(t *testing.T) {
	for _, tc := range bedrockCases {
		exs := providertest.Load(t, "bedrock", tc.name)
		if len(exs) < 2 {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t, exs...)
			m := newBedrockModel(t, srv.URL, BedrockConfig{Config: Config{Model: tc.model}})
			resp := clientLoop(t, m, tc.replayCase, exs, srv)
			if want := expectRecorded(t, exs[len(exs)-1]).text; resp.Text() != want {
				t.Errorf("answer = %q, want %q", resp.Text(), want)
			}
		})
	}
}

// TestBedrockAccessDenied: Bedrock's error answer (a {"message"} body, the kind in the
// X-Amzn-Errortype header) becomes a *chat.ProviderError with both, and is not retried.
func TestBedrockAccessDenied(t *testing.T) {
	exs := providertest.Load(t, "bedrock", "lcgo-invoke-access-denied-error-claude-3-haiku")
	srv := replay.NewServer(t, exs...)
	m := newBedrockModel(t, srv.URL, BedrockConfig{Config: Config{Model: "anthropic.claude-3-haiku-20240307-v1:0", MaxTokens: 512}})
	weather := providertest.RawTool{
		Name: "get_weather", Description: "Get the current weather for a location",
		InputSchema: json.RawMessage(`{"properties":{"location":{"description":"The city and state, e.g. San Francisco, CA","type":"string"},"unit":{"description":"The unit of temperature","enum":["celsius","fahrenheit"],"type":"string"}},"required":["location"],"type":"object"}`),
	}
	p := &chat.Prompt{Messages: []chat.Message{chat.User("What's the weather like in New York?")}, Options: &chat.Options{Tools: toolsOf(weather)}}
	_, err := m.Call(context.Background(), p)
	var pe *chat.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *chat.ProviderError", err, err)
	}
	if pe.StatusCode != 403 || pe.Type != "AccessDeniedException" || pe.Message != "You don't have access to the model with the specified model ID." || pe.Temporary() {
		t.Errorf("provider error = %+v", pe)
	}
	if srv.Served() != 1 {
		t.Errorf("%d requests: a 403 must not be retried", srv.Served())
	}
	checkRequest(t, srv.Requests()[0].Body, exs[0].RequestBody)
	checkCloudPath(t, 0, srv.Requests()[0], exs[0])
}

// TestBedrockThrottling: a ThrottlingException (429) is retried by the SDK and the recorded answer
// returned; every attempt is signed anew.
func TestBedrockThrottling(t *testing.T) {
	ok := providertest.Load(t, "bedrock", "openllmetry-anthropic-python-sdk-invoke-claude-3-haiku")[0]
	throttled := providertest.JSONError(429, `{"message":"Too many requests, please wait before trying again."}`,
		"X-Amzn-Errortype", "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/", "Retry-After", "0")
	unavailable := providertest.JSONError(503, `{"message":"Bedrock is unable to process your request."}`,
		"X-Amzn-Errortype", "ServiceUnavailableException", "Retry-After", "0")
	srv := replay.NewServer(t, throttled, unavailable, ok)
	m := newBedrockModel(t, srv.URL, BedrockConfig{Config: Config{Model: "anthropic.claude-3-haiku-20240307-v1:0", MaxTokens: 1024}})
	resp, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("Tell me a joke about OpenTelemetry")}})
	if err != nil {
		t.Fatal(err)
	}
	checkResponse(t, resp, expectRecorded(t, ok))
	if srv.Served() != 3 {
		t.Fatalf("%d requests, want 3", srv.Served())
	}
	providertest.SameRequests(t, srv)

	srv = replay.NewServer(t, throttled)
	m = newBedrockModel(t, srv.URL, BedrockConfig{Config: Config{Model: "anthropic.claude-3-haiku-20240307-v1:0", Transport: provider.Transport{MaxRetries: -1}}})
	_, err = m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}})
	var pe *chat.ProviderError
	if !errors.As(err, &pe) || pe.StatusCode != 429 || pe.Type != "ThrottlingException" || !pe.Temporary() {
		t.Fatalf("error = %v (%+v)", err, pe)
	}
}

// bedrockTarget is the Bedrock model under the shared fault checks; the stream's head is the
// first event-stream frame of a recording, message_start.
func bedrockTarget(t testing.TB) providertest.Target {
	ex := providertest.Load(t, "bedrock", "fantasy-bedrock-invoke-stream-tool-loop-claude-haiku-4-5")[0]
	return providertest.Target{
		New: func(t testing.TB, url string) chat.Model {
			return newBedrockModel(t, url, BedrockConfig{})
		},
		Prompt:      weatherPrompt(),
		ContentType: "application/vnd.amazon.eventstream",
		Head:        string(ex.Body[:awstest.FrameEnds(t, ex.Body)[0]]),
	}
}

// TestBedrockFaults: the shared checks (cancellation, early stop, a panicking consumer) and cut
// event streams, inside a frame and between frames.
func TestBedrockFaults(t *testing.T) {
	tg := bedrockTarget(t)
	tg.TestCancel(t)
	t.Run("stop early", func(t *testing.T) { tg.StopEarly(t) })
	ex := providertest.Load(t, "bedrock", "fantasy-bedrock-invoke-stream-tool-loop-claude-haiku-4-5")[0]
	t.Run("consumer panic", func(t *testing.T) {
		srv := replay.NewServer(t, ex)
		providertest.ConsumerPanic(t, newBedrockModel(t, srv.URL, BedrockConfig{}), weatherPrompt())
	})
	ends := awstest.FrameEnds(t, ex.Body)
	events := bedrockEvents(t, ex.Body)
	var lastDelta int // the frame of the last input_json_delta: the call has all its arguments
	for i, ev := range events {
		if bytes.Contains(ev, []byte(`"input_json_delta"`)) {
			lastDelta = i
		}
	}
	for _, tc := range []struct {
		name string
		cut  int
	}{
		{"inside a frame", ends[lastDelta] + 7},
		{"between frames, before message_delta", ends[lastDelta+1]},
	} {
		t.Run("cut "+tc.name, func(t *testing.T) { cutUnfinished(t, tg, ex, tc.cut) })
	}
}

// TestBedrockStreamException: an exception frame inside a 200 stream (Bedrock's throttling in
// the middle of an answer) ends the stream with a *chat.ProviderError carrying its kind and the
// status Bedrock documents for it.
func TestBedrockStreamException(t *testing.T) {
	ex := providertest.Load(t, "bedrock", "fantasy-bedrock-invoke-stream-tool-loop-claude-haiku-4-5")[0]
	head := ex.Body[:awstest.FrameEnds(t, ex.Body)[1]]
	body := append(append([]byte(nil), head...), awstest.ExceptionFrame(t, "throttlingException", "Too many tokens, please wait before trying again.")...)
	srv := replay.NewServer(t, replay.Exchange{Header: ex.Header, Body: body})
	m := newBedrockModel(t, srv.URL, BedrockConfig{})
	_, err := chat.Aggregate(m.Stream(context.Background(), weatherPrompt()))
	var pe *chat.ProviderError
	if !errors.As(err, &pe) || pe.StatusCode != 429 || pe.Type != "throttlingException" || !strings.Contains(pe.Message, "Too many tokens") {
		t.Fatalf("error = %v (%+v)", err, pe)
	}
}

// TestBedrockAuth: the ways NewBedrock finds credentials, and the configurations it refuses.
func TestBedrockAuth(t *testing.T) {
	ok := providertest.Load(t, "bedrock", "openllmetry-anthropic-python-sdk-invoke-claude-3-haiku")[0]
	prompt := &chat.Prompt{Messages: []chat.Message{chat.User("Tell me a joke about OpenTelemetry")}}
	call := func(t *testing.T, url string, cfg BedrockConfig) error {
		cfg.BaseURL, cfg.Model, cfg.MaxRetries = url, "anthropic.claude-3-haiku-20240307-v1:0", -1
		m, err := NewBedrock(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Call(context.Background(), prompt)
		return err
	}
	send := func(t *testing.T, cfg BedrockConfig) replay.Request {
		t.Helper()
		srv := replay.NewServer(t, ok)
		if err := call(t, srv.URL, cfg); err != nil {
			t.Fatal(err)
		}
		return srv.Requests()[0]
	}
	awstest.CheckChain(t, ok, func(t *testing.T, url, profile, region string) error {
		return call(t, url, BedrockConfig{Profile: profile, Region: region})
	})
	t.Run("Bedrock API key", func(t *testing.T) {
		awstest.Isolate(t)
		r := send(t, BedrockConfig{Config: Config{APIKey: "bedrock-api-key"}, Region: "us-west-2"})
		if auth := r.Header.Get("Authorization"); auth != "Bearer bedrock-api-key" {
			t.Errorf("authorization = %q", auth)
		}
	})
	t.Run("Bedrock API key from the environment", func(t *testing.T) {
		awstest.Isolate(t)
		t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "env-key")
		r := send(t, BedrockConfig{AWS: awstest.Config()})
		if auth := r.Header.Get("Authorization"); auth != "Bearer env-key" {
			t.Errorf("authorization = %q", auth)
		}
	})
	for _, tc := range []struct {
		name string
		env  map[string]string
		cfg  BedrockConfig
		want string
	}{
		{"no model", nil, BedrockConfig{AWS: awstest.Config()}, "Model must be set"},
		{"no region", nil, BedrockConfig{Config: Config{Model: "m"}}, "no AWS region"},
		{"AWS config without credentials", nil, BedrockConfig{Config: Config{Model: "m"}, AWS: &aws.Config{Region: "us-east-1"}}, "no credentials"},
		{"two different API keys", map[string]string{"AWS_BEARER_TOKEN_BEDROCK": "other"}, BedrockConfig{Config: Config{Model: "m", APIKey: "k"}, AWS: awstest.Config()}, "differ"},
		{"negative max tokens", nil, BedrockConfig{Config: Config{Model: "m", MaxTokens: -1}, AWS: awstest.Config()}, "negative"},
		{"unknown profile", nil, BedrockConfig{Config: Config{Model: "m"}, Region: "us-east-1", Profile: "nobody"}, "nobody"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			awstest.Isolate(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if _, err := NewBedrock(context.Background(), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// vertexCredentials are Google credentials with a fixed token, so no request leaves the machine
// to get one.
func vertexCredentials(project string) *google.Credentials {
	return &google.Credentials{ProjectID: project, TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "vertex-token"})}
}

func newVertexModel(t testing.TB, url string, cfg VertexConfig) *Model {
	t.Helper()
	cfg.BaseURL = url
	if cfg.Region == "" {
		cfg.Region = "us-east5"
	}
	if cfg.Credentials == nil {
		cfg.Credentials = vertexCredentials("fantasy-playground-472418")
	}
	if cfg.Model == "" {
		cfg.Model = "claude-3-7-sonnet@20250219"
	}
	m, err := NewVertex(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var vertexCases = []replayCase{
	{
		name: "fantasy-vertex-anthropic-tool-loop-claude-3-7-sonnet", system: "You are a helpful assistant",
		opts:  chat.Options{MaxTokens: 4000, ToolChoice: "auto", ParallelToolCalls: chat.Ptr(true)},
		tools: fantasyWeather, user: "What's the weather in Florence,Italy?",
	},
	{
		name: "fantasy-vertex-anthropic-tool-loop-streaming-claude-3-7-sonnet", stream: true, system: "You are a helpful assistant",
		opts:  chat.Options{MaxTokens: 4000, ToolChoice: "auto", ParallelToolCalls: chat.Ptr(true)},
		tools: fantasyWeather, user: "What's the weather in Florence,Italy?",
	},
}

// TestVertexReplay runs the recorded Vertex AI conversations through NewVertex: requests go to
// the project's rawPredict or streamRawPredict endpoint with the credentials' token, bodies are
// the recorded ones (no model, anthropic_version vertex-2023-10-16).
func TestVertexReplay(t *testing.T) {
	for _, tc := range vertexCases {
		t.Run(tc.name, func(t *testing.T) {
			exs := providertest.Load(t, "vertex", tc.name)
			srv := replay.NewServer(t, exs...)
			m := newVertexModel(t, srv.URL, VertexConfig{Credentials: vertexCredentials(""), ProjectID: "fantasy-playground-472418"})
			if info := m.Info(); info != (chat.Info{Provider: "gcp.vertex_ai", Model: "claude-3-7-sonnet@20250219"}) {
				t.Errorf("info = %+v", info)
			}
			resp := runLoop(t, m, tc, exs, srv)
			if want := expectRecorded(t, exs[len(exs)-1]).text; resp.Text() != want {
				t.Errorf("final answer = %q, want %q", resp.Text(), want)
			}
			for i, r := range srv.Requests() {
				checkCloudPath(t, i, r, exs[i])
				if r.Header.Get("Authorization") != "Bearer vertex-token" || r.Header.Get("X-Api-Key") != "" {
					t.Errorf("request %d: authorization %q, x-api-key %q", i+1, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"))
				}
			}
			// And through the client's tool loop, with the project taken from the credentials.
			srv = replay.NewServer(t, exs...)
			m = newVertexModel(t, srv.URL, VertexConfig{})
			clientLoop(t, m, tc, exs, srv)
			for i, r := range srv.Requests() {
				checkCloudPath(t, i, r, exs[i])
			}
		})
	}
}

// TestVertexErrors: Google's error envelope (here the recorded 401 of an unauthenticated Vertex
// call) becomes a *chat.ProviderError with its status and message; settings Vertex cannot use
// are refused by NewVertex.
func TestVertexErrors(t *testing.T) {
	ex := providertest.Load(t, "vertex", "adk-vertex-global-endpoint-unauthenticated-error-gemini-2.0-flash")[0]
	srv := replay.NewServer(t, ex)
	m := newVertexModel(t, srv.URL, VertexConfig{Region: "global"})
	_, err := m.Call(context.Background(), weatherPrompt())
	var pe *chat.ProviderError
	if !errors.As(err, &pe) || pe.StatusCode != 401 || pe.Type != "UNAUTHENTICATED" || !strings.HasPrefix(pe.Message, "API keys are not supported by this API.") {
		t.Fatalf("error = %v (%+v)", err, pe)
	}
	if p := srv.Requests()[0].Path; p != "/v1/projects/fantasy-playground-472418/locations/global/publishers/anthropic/models/claude-3-7-sonnet@20250219:rawPredict" {
		t.Errorf("path = %s", p)
	}

	creds := vertexCredentials("p")
	for _, tc := range []struct {
		name string
		cfg  VertexConfig
		want string
	}{
		{"no model", VertexConfig{Region: "us-east5", Credentials: creds}, "Model must be set"},
		{"no region", VertexConfig{Config: Config{Model: "m"}, Credentials: creds}, "Region must be set"},
		{"API key", VertexConfig{Config: Config{Model: "m", APIKey: "k"}, Region: "us-east5", Credentials: creds}, "APIKey"},
		{"no project", VertexConfig{Config: Config{Model: "m"}, Region: "us-east5", Credentials: vertexCredentials("")}, "no project"},
		{"bad cache setting", VertexConfig{Config: Config{Model: "m", Cache: Cache{TTL: "2h"}}, Region: "us-east5", Credentials: creds}, "TTL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewVertex(context.Background(), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
	t.Run("no credentials found", func(t *testing.T) {
		t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(t.TempDir(), "missing.json"))
		_, err := NewVertex(context.Background(), VertexConfig{Config: Config{Model: "m"}, Region: "us-east5", ProjectID: "p"})
		if err == nil || !strings.Contains(err.Error(), "Google credentials") {
			t.Fatalf("error = %v", err)
		}
	})
}

func toolsOf(ts ...tool.Tool) []tool.Tool { return ts }
