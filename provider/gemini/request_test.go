package gemini

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/tool"
)

var (
	sig1 = base64.StdEncoding.EncodeToString([]byte("signature one"))
	sig2 = base64.StdEncoding.EncodeToString([]byte("signature two"))
)

func TestContents(t *testing.T) {
	msgs := []chat.Message{
		chat.System("be brief"),
		chat.User("weather in Paris and Rome?"),
		{
			Role: chat.RoleAssistant, Content: "Checking.",
			Reasoning: []chat.Reasoning{
				{Provider: "anthropic", Text: "not for gemini", Signature: "x"},
				{Provider: "gemini", Text: "I should call the tool."},
				{Provider: "gemini", Signature: sig1},
			},
			ToolCalls: []chat.ToolCall{
				{ID: "real-id", Name: "weather", Arguments: `{"city":"Paris"}`, Signature: sig2},
				{ID: syntheticIDPrefix + "r-0-1", Name: "weather", Arguments: ``, Index: 1},
			},
		},
		chat.ToolMessage(chat.ToolResult{ID: "real-id", Content: `{"temp": 21}`}),
		chat.ToolMessage(chat.ToolResult{ID: syntheticIDPrefix + "r-0-1", Name: "weather", Content: "no data for Rome", IsError: true}),
		chat.System("answer in French"),
		chat.User("and tomorrow?"),
	}
	system, contents, err := backend{}.contents(msgs)
	if err != nil {
		t.Fatal(err)
	}
	wantSystem := &genai.Content{Role: "user", Parts: []*genai.Part{{Text: "be brief"}, {Text: "answer in French"}}}
	want := []*genai.Content{
		{Role: "user", Parts: []*genai.Part{{Text: "weather in Paris and Rome?"}}},
		{Role: "model", Parts: []*genai.Part{
			{Text: "I should call the tool.", Thought: true},
			{Text: "Checking.", ThoughtSignature: []byte("signature one")},
			{FunctionCall: &genai.FunctionCall{ID: "real-id", Name: "weather", Args: map[string]any{"city": "Paris"}}, ThoughtSignature: []byte("signature two")},
			{FunctionCall: &genai.FunctionCall{Name: "weather", Args: map[string]any{}}},
		}},
		{Role: "user", Parts: []*genai.Part{
			{FunctionResponse: &genai.FunctionResponse{ID: "real-id", Name: "weather", Response: map[string]any{"temp": 21.0}}},
			{FunctionResponse: &genai.FunctionResponse{Name: "weather", Response: map[string]any{"error": "no data for Rome"}}},
		}},
		{Role: "user", Parts: []*genai.Part{{Text: "and tomorrow?"}}},
	}
	if !reflect.DeepEqual(system, wantSystem) {
		t.Errorf("system = %s", providertest.Indent(system))
	}
	if !reflect.DeepEqual(contents, want) {
		t.Errorf("contents:\n got %s\nwant %s", providertest.Indent(contents), providertest.Indent(want))
	}
}

func TestContentsErrors(t *testing.T) {
	tests := []struct {
		name string
		msgs []chat.Message
		want string
	}{
		{"unknown role", []chat.Message{{Role: "robot", Content: "x"}}, `unknown role "robot"`},
		{"empty user message", []chat.Message{chat.User("")}, "empty user message"},
		{"result for no call", []chat.Message{chat.ToolMessage(chat.ToolResult{ID: "x", Content: "1"})}, "names no tool"},
		{"arguments not an object", []chat.Message{chat.Assistant("", chat.ToolCall{ID: "a", Name: "f", Arguments: `[1]`})}, "not a JSON object"},
		{"garbled arguments", []chat.Message{chat.Assistant("", chat.ToolCall{ID: "a", Name: "f", Arguments: `{"a":`})}, "not a JSON object"},
		{"call without name", []chat.Message{chat.Assistant("", chat.ToolCall{ID: "a"})}, "has no name"},
		{"signature not base64", []chat.Message{chat.Assistant("", chat.ToolCall{ID: "a", Name: "f", Signature: "%%%"})}, "not base64"},
	}
	for _, tt := range tests {
		if _, _, err := (backend{}).contents(tt.msgs); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestResultObject(t *testing.T) {
	tests := []struct {
		content string
		isError bool
		want    map[string]any
	}{
		{"40 C", false, map[string]any{"result": "40 C"}},
		{`{"sum": 5}`, false, map[string]any{"sum": 5.0}},
		{` [1, 2] `, false, map[string]any{"result": []any{1.0, 2.0}}},
		{"42", false, map[string]any{"result": "42"}},
		{"", false, map[string]any{"result": ""}},
		{`{"broken":`, false, map[string]any{"result": `{"broken":`}},
		{"tool failed", true, map[string]any{"error": "tool failed"}},
		{`{"code": 7}`, true, map[string]any{"error": map[string]any{"code": 7.0}}},
	}
	for _, tt := range tests {
		if got := resultObject(tt.content, tt.isError); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("resultObject(%q, %v) = %v, want %v", tt.content, tt.isError, got, tt.want)
		}
	}
}

// requestFor builds the SDK request for opts against a model configured with cfg.
func requestFor(t *testing.T, cfg Config, opts *chat.Options) (*request, error) {
	t.Helper()
	cfg.APIKey = "k"
	m, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m.request(&chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: opts})
}

func TestOptions(t *testing.T) {
	weather := fantasyWeather(t)
	var order []string
	cfg := Config{Model: "gemini-base", Temperature: chat.Ptr(0.5), MaxTokens: 100,
		Configure: func(c *genai.GenerateContentConfig) { order = append(order, "config") }}
	r, err := requestFor(t, cfg, &chat.Options{
		Temperature: chat.Ptr(0.25), TopP: chat.Ptr(0.9), Seed: chat.Ptr(int64(7)), Stop: []string{"END"}, N: 2,
		Tools: []tool.Tool{weather}, ToolChoice: "weather",
		Extra: map[string]any{
			ExtraTopK: 40, ExtraThinkingBudget: 1024.0, ExtraIncludeThoughts: true, ExtraThinkingLevel: "high",
			ExtraCachedContent:  "cachedContents/abc",
			ExtraSafetySettings: []*genai.SafetySetting{{Category: genai.HarmCategoryHarassment, Threshold: genai.HarmBlockThresholdBlockNone}},
			ExtraConfigure: func(c *genai.GenerateContentConfig) {
				order = append(order, "extra")
				c.PresencePenalty = genai.Ptr[float32](0.1)
			},
			"openai.something": "ignored",
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := r.config
	if r.model != "gemini-base" || *c.Temperature != 0.25 || *c.TopP != 0.9 || *c.Seed != 7 || c.MaxOutputTokens != 100 ||
		!reflect.DeepEqual(c.StopSequences, []string{"END"}) || c.CandidateCount != 2 {
		t.Errorf("settings: %s", providertest.Indent(c))
	}
	if *c.TopK != 40 || *c.ThinkingConfig.ThinkingBudget != 1024 || !c.ThinkingConfig.IncludeThoughts ||
		c.ThinkingConfig.ThinkingLevel != genai.ThinkingLevelHigh || c.CachedContent != "cachedContents/abc" ||
		len(c.SafetySettings) != 1 || *c.PresencePenalty != 0.1 {
		t.Errorf("extra: %s", providertest.Indent(c))
	}
	if !reflect.DeepEqual(order, []string{"config", "extra"}) {
		t.Errorf("configure order %v", order)
	}
	fc := c.ToolConfig.FunctionCallingConfig
	if fc.Mode != genai.FunctionCallingConfigModeAny || !reflect.DeepEqual(fc.AllowedFunctionNames, []string{"weather"}) {
		t.Errorf("tool config %s", providertest.Indent(c.ToolConfig))
	}
	decl := c.Tools[0].FunctionDeclarations[0]
	if decl.Name != "weather" || decl.Description != "Get weather information for a location" || decl.Parameters != nil ||
		!reflect.DeepEqual(decl.ParametersJsonSchema, mustJSON(t, weather.Definition().InputSchema)) {
		t.Errorf("declaration %s", providertest.Indent(decl))
	}

	// Defaults from the configuration; model per call.
	r, err = requestFor(t, cfg, &chat.Options{Model: "gemini-other"})
	if err != nil {
		t.Fatal(err)
	}
	if r.model != "gemini-other" || *r.config.Temperature != 0.5 || r.config.MaxOutputTokens != 100 || r.config.ToolConfig != nil || r.config.Tools != nil {
		t.Errorf("defaults: %s %s", r.model, providertest.Indent(r.config))
	}
}

func mustJSON(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestToolChoice(t *testing.T) {
	weather := fantasyWeather(t)
	for choice, want := range map[string]genai.FunctionCallingConfigMode{
		"auto": genai.FunctionCallingConfigModeAuto, "none": genai.FunctionCallingConfigModeNone, "required": genai.FunctionCallingConfigModeAny,
	} {
		r, err := requestFor(t, Config{}, &chat.Options{Tools: []tool.Tool{weather}, ToolChoice: choice})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.config.ToolConfig.FunctionCallingConfig; got.Mode != want || got.AllowedFunctionNames != nil {
			t.Errorf("%s: %s", choice, providertest.Indent(got))
		}
	}
}

func TestResponseFormat(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)
	r, err := requestFor(t, Config{}, &chat.Options{ResponseFormat: &chat.ResponseFormat{Name: "city", Schema: schema}})
	if err != nil {
		t.Fatal(err)
	}
	if r.config.ResponseMIMEType != "application/json" || !reflect.DeepEqual(r.config.ResponseJsonSchema, mustJSON(t, schema)) || r.config.ResponseSchema != nil {
		t.Errorf("json mode: %s", providertest.Indent(r.config))
	}
	r, err = requestFor(t, Config{SchemaMode: SchemaSubset}, &chat.Options{ResponseFormat: &chat.ResponseFormat{Schema: schema}})
	if err != nil {
		t.Fatal(err)
	}
	want := &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString}}, Required: []string{"city"}}
	if !reflect.DeepEqual(r.config.ResponseSchema, want) || r.config.ResponseJsonSchema != nil {
		t.Errorf("subset mode: %s", providertest.Indent(r.config))
	}
	r, err = requestFor(t, Config{}, &chat.Options{ResponseFormat: &chat.ResponseFormat{}})
	if err != nil || r.config.ResponseMIMEType != "application/json" || r.config.ResponseJsonSchema != nil {
		t.Errorf("schemaless JSON: %v %s", err, providertest.Indent(r.config))
	}
}

func TestRequestErrors(t *testing.T) {
	weather := fantasyWeather(t)
	bad := providertest.RawTool{Name: "bad", InputSchema: json.RawMessage(`[1]`)}
	tests := []struct {
		name string
		cfg  Config
		opts *chat.Options
		want string
	}{
		{"unknown tool choice", Config{}, &chat.Options{Tools: []tool.Tool{weather}, ToolChoice: "time"}, "names no tool"},
		{"duplicate tools", Config{}, &chat.Options{Tools: []tool.Tool{weather, weather}}, "two tools are named"},
		{"nil tool", Config{}, &chat.Options{Tools: []tool.Tool{nil}}, "is nil"},
		{"schema not an object", Config{}, &chat.Options{Tools: []tool.Tool{bad}}, "must be a JSON object"},
		{"subset schema not an object", Config{SchemaMode: SchemaSubset}, &chat.Options{Tools: []tool.Tool{bad}}, "expected an object"},
		{"seed too large", Config{}, &chat.Options{Seed: chat.Ptr(int64(1) << 40)}, "32-bit"},
		{"bad top k", Config{}, &chat.Options{Extra: map[string]any{ExtraTopK: "many"}}, "must be a number"},
		{"bad budget", Config{}, &chat.Options{Extra: map[string]any{ExtraThinkingBudget: 1.5}}, "32-bit integer"},
		{"bad include", Config{}, &chat.Options{Extra: map[string]any{ExtraIncludeThoughts: "yes"}}, "must be a bool"},
		{"bad level", Config{}, &chat.Options{Extra: map[string]any{ExtraThinkingLevel: 3}}, "must be a string"},
		{"bad safety", Config{}, &chat.Options{Extra: map[string]any{ExtraSafetySettings: "none"}}, "SafetySetting"},
		{"bad cache", Config{}, &chat.Options{Extra: map[string]any{ExtraCachedContent: 1}}, "must be a string"},
		{"bad configure", Config{}, &chat.Options{Extra: map[string]any{ExtraConfigure: func() {}}}, "func(*genai.GenerateContentConfig)"},
	}
	for _, tt := range tests {
		if _, err := requestFor(t, tt.cfg, tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	m, _ := New(context.Background(), Config{APIKey: "k"})
	if _, err := m.request(nil); err == nil {
		t.Error("nil prompt accepted")
	}
}

// TestEchoOnSamePart proves a model turn goes back part for part: the thought with its
// signature, each text part with its own signature (or none) in its place, each function call
// with its own id and signature.
func TestEchoOnSamePart(t *testing.T) {
	answer := `{"candidates":[{"content":{"role":"model","parts":[
		{"text":"Let me think about Paris.","thought":true,"thoughtSignature":"` + sig1 + `"},
		{"text":"I'll check."},
		{"text":" One moment.","thoughtSignature":"` + sig2 + `"},
		{"functionCall":{"id":"fc-1","name":"weather","args":{"location":"Paris"}},"thoughtSignature":"` + sig1 + `"},
		{"functionCall":{"id":"fc-2","name":"weather","args":{"location":"Rome"}}}]},
		"finishReason":"STOP","index":0}],
		"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"thoughtsTokenCount":7,"cachedContentTokenCount":4,"totalTokenCount":22},
		"modelVersion":"gemini-3-pro-preview","responseId":"r1"}`
	final := `{"candidates":[{"content":{"role":"model","parts":[{"text":"Sunny."}]},"finishReason":"STOP","index":0}],"responseId":"r2"}`
	srv := replay.NewServer(t,
		replay.Exchange{Header: jsonHeader(), Body: []byte(answer)},
		replay.Exchange{Header: jsonHeader(), Body: []byte(final)})
	m, _ := newTestModel(t, srv.URL, Config{})
	opts := &chat.Options{Tools: []tool.Tool{fantasyWeather(t)}}
	history := []chat.Message{chat.User("Weather in Paris and Rome?")}
	resp, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	g := resp.Generations[0]
	wantMsg := chat.Message{
		Role: chat.RoleAssistant, Content: "I'll check.",
		Parts:     []content.Part{{Kind: content.KindText, Text: " One moment.", Signature: sig2}},
		Reasoning: []chat.Reasoning{{Provider: "gemini", Text: "Let me think about Paris.", Signature: sig1}},
		ToolCalls: []chat.ToolCall{
			{Index: 0, ID: "fc-1", Name: "weather", Arguments: `{"location":"Paris"}`, Signature: sig1},
			{Index: 1, ID: "fc-2", Name: "weather", Arguments: `{"location":"Rome"}`},
		},
	}
	if !reflect.DeepEqual(g.Message, wantMsg) || g.FinishReason != chat.FinishToolCalls {
		t.Fatalf("message %s finish %q", providertest.Indent(g.Message), g.FinishReason)
	}
	if resp.Usage != (chat.Usage{InputTokens: 10, OutputTokens: 12, TotalTokens: 22, CachedInputTokens: 4, ReasoningTokens: 7}) {
		t.Fatalf("usage %+v", resp.Usage)
	}
	if _, ok := resp.Raw.(*genai.GenerateContentResponse); !ok {
		t.Fatalf("raw is %T", resp.Raw)
	}
	history = providertest.Execute(t, &chat.Prompt{Messages: history, Options: opts}, resp)
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: opts}); err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(srv.Requests()[1].Body, &sent); err != nil {
		t.Fatal(err)
	}
	wantModel := `{"parts":[
		{"text":"Let me think about Paris.","thought":true,"thoughtSignature":"` + sig1 + `"},
		{"text":"I'll check."},
		{"text":" One moment.","thoughtSignature":"` + sig2 + `"},
		{"functionCall":{"id":"fc-1","name":"weather","args":{"location":"Paris"}},"thoughtSignature":"` + sig1 + `"},
		{"functionCall":{"id":"fc-2","name":"weather","args":{"location":"Rome"}}}],"role":"model"}`
	wantResults := `{"parts":[
		{"functionResponse":{"id":"fc-1","name":"weather","response":{"result":"40 C"}}},
		{"functionResponse":{"id":"fc-2","name":"weather","response":{"result":"40 C"}}}],"role":"user"}`
	if len(sent.Contents) != 3 || !providertest.JSONEqual(t, string(sent.Contents[1]), wantModel) || !providertest.JSONEqual(t, string(sent.Contents[2]), wantResults) {
		t.Fatalf("sent contents: %s", srv.Requests()[1].Body)
	}
}

func TestFinishReasons(t *testing.T) {
	tests := []struct {
		in    genai.FinishReason
		calls bool
		want  chat.FinishReason
	}{
		{genai.FinishReasonStop, false, chat.FinishStop},
		{genai.FinishReasonStop, true, chat.FinishToolCalls},
		{genai.FinishReasonMaxTokens, true, chat.FinishLength},
		{genai.FinishReasonSafety, false, chat.FinishContentFilter},
		{genai.FinishReasonRecitation, false, chat.FinishContentFilter},
		{genai.FinishReasonProhibitedContent, false, chat.FinishContentFilter},
		{genai.FinishReasonSPII, false, chat.FinishContentFilter},
		{genai.FinishReasonBlocklist, false, chat.FinishContentFilter},
		{genai.FinishReasonMalformedFunctionCall, false, chat.FinishError},
		{genai.FinishReasonUnexpectedToolCall, false, chat.FinishError},
		{genai.FinishReasonOther, false, "OTHER"},
		{"SOMETHING_NEW", false, "SOMETHING_NEW"},
	}
	for _, tt := range tests {
		if got := finishReason(tt.in, tt.calls); got != tt.want {
			t.Errorf("finishReason(%s, %v) = %q, want %q", tt.in, tt.calls, got, tt.want)
		}
	}
}

// TestBlockedPrompt proves a prompt refused before generation reads as a content-filter finish.
func TestBlockedPrompt(t *testing.T) {
	body := `{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}`
	for _, stream := range []bool{false, true} {
		ex := replay.Exchange{Header: jsonHeader(), Body: []byte(body)}
		if stream {
			ex = replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte("data: " + body + "\r\n\r\n")}
		}
		srv := replay.NewServer(t, ex)
		m, _ := newTestModel(t, srv.URL, Config{})
		resp, err := providertest.Run(context.Background(), m, weatherPrompt, stream)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Generations) != 1 || resp.Generations[0].FinishReason != chat.FinishContentFilter || resp.Usage.InputTokens != 8 {
			t.Fatalf("stream %v: %+v", stream, resp)
		}
	}
}

func TestAPIKeyFromEnvironment(t *testing.T) {
	tests := []struct {
		gemini, google, want string
	}{
		{"g-key", "o-key", "g-key"},
		{"", "o-key", "o-key"},
		{"", "", ""},
	}
	for _, tt := range tests {
		t.Setenv("GEMINI_API_KEY", tt.gemini)
		t.Setenv("GOOGLE_API_KEY", tt.google)
		srv := replay.NewServer(t, providertest.Load(t, "vercel-tool-call-gemini-3-pro-preview")...)
		m, err := New(context.Background(), Config{BaseURL: srv.URL})
		if tt.want == "" {
			if err == nil || !strings.Contains(err.Error(), "GEMINI_API_KEY") {
				t.Fatalf("no key: err = %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Call(context.Background(), weatherPrompt); err != nil {
			t.Fatal(err)
		}
		if got := srv.Requests()[0].Header.Get("X-Goog-Api-Key"); got != tt.want {
			t.Fatalf("key sent %q, want %q", got, tt.want)
		}
	}
}

func TestInfo(t *testing.T) {
	m, err := New(context.Background(), Config{APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Info() != (chat.Info{Provider: "gcp.gemini", Model: DefaultModel}) || m.Client() == nil {
		t.Fatalf("info %+v", m.Info())
	}
	v, err := New(context.Background(), Config{Model: "gemini-2.5-pro", ClientConfig: &genai.ClientConfig{
		Backend: genai.BackendVertexAI, APIKey: "vertex-express-key",
	}})
	if err != nil {
		t.Fatal(err)
	}
	if v.Info() != (chat.Info{Provider: "gcp.vertex_ai", Model: "gemini-2.5-pro"}) {
		t.Fatalf("vertex info %+v", v.Info())
	}
	if _, err := NewWithClient(nil, Config{}); err == nil {
		t.Fatal("nil client accepted")
	}
	w, err := NewWithClient(m.Client(), Config{})
	if err != nil || w.Info().Model != DefaultModel {
		t.Fatalf("NewWithClient: %v %+v", err, w)
	}
}

// TestClientErrorHidesKey proves a configuration the SDK rejects is reported without the API key
// the SDK's message dumps.
func TestClientErrorHidesKey(t *testing.T) {
	_, err := New(context.Background(), Config{APIKey: "secret-key-123", ClientConfig: &genai.ClientConfig{Project: "p", Location: "l", Backend: genai.BackendGeminiAPI}})
	if err == nil || strings.Contains(err.Error(), "secret-key-123") || !strings.Contains(err.Error(), "project and location are not supported") {
		t.Fatalf("err = %v", err)
	}
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	m, err := New(context.Background(), Config{BaseURL: "http://127.0.0.1:1", Transport: provider.Transport{HTTPClient: http.DefaultClient}})
	if err != nil || m.Info().Provider != "gcp.vertex_ai" {
		t.Fatalf("vertex from the environment: %v", err)
	}
}
