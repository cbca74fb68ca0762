package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/tool"
)

// recordedAnswer is what a recorded Chat Completions answer (JSON or stream) says, read with
// plain encoding/json, independently of the package: the first choice's text, tool calls and
// reasoning, and the usage.
type recordedAnswer struct {
	text      string
	calls     []chat.ToolCall
	reasoning []chat.Reasoning
	usage     chat.Usage
}

type recordedUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens     int `json:"cached_tokens"`
		CacheWriteTokens int `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

type recordedMessage struct {
	Content          *string          `json:"content"`
	ReasoningContent *string          `json:"reasoning_content"`
	Reasoning        *string          `json:"reasoning"`
	ReasoningDetails []map[string]any `json:"reasoning_details"`
	ToolCalls        []struct {
		Index    int    `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type recordedChoice struct {
	Message recordedMessage `json:"message"`
	Delta   recordedMessage `json:"delta"`
}

// readRecorded reads a recorded answer. The reasoning_details fragments of a stream are joined
// by a rule of its own: consecutive fragments of one type are one entry, their text, summary,
// signature and data concatenated, other members taken from the first.
func readRecorded(t testing.TB, ex replay.Exchange) recordedAnswer {
	t.Helper()
	var out recordedAnswer
	var plainField string
	var plain strings.Builder
	var details []map[string]any
	addDetail := func(f map[string]any, stream bool) {
		if n := len(details); stream && n > 0 && details[n-1]["type"] == f["type"] {
			for _, k := range []string{"text", "summary", "signature", "data"} {
				if s, ok := f[k].(string); ok {
					prev, _ := details[n-1][k].(string)
					details[n-1][k] = prev + s
				}
			}
			return
		}
		details = append(details, f)
	}
	var usage *recordedUsage
	msg := func(m recordedMessage, stream bool) {
		if m.Content != nil {
			out.text += *m.Content
		}
		for _, d := range m.ReasoningDetails {
			addDetail(d, stream)
		}
		if m.ReasoningContent != nil && *m.ReasoningContent != "" {
			plainField = FieldReasoningContent
			plain.WriteString(*m.ReasoningContent)
		} else if m.Reasoning != nil && *m.Reasoning != "" && plainField != FieldReasoningContent {
			plainField = FieldReasoning
			plain.WriteString(*m.Reasoning)
		}
		for _, tc := range m.ToolCalls {
			if !stream || tc.ID != "" {
				out.calls = append(out.calls, chat.ToolCall{ID: tc.ID, Name: tc.Function.Name, Index: len(out.calls)})
			}
			out.calls[len(out.calls)-1].Arguments += tc.Function.Arguments
		}
	}
	if strings.HasPrefix(ex.Header.Get("Content-Type"), "text/event-stream") {
		for _, d := range replay.SSEData(ex.Body) {
			var c struct {
				Choices []recordedChoice `json:"choices"`
				Usage   *recordedUsage   `json:"usage"`
			}
			if err := json.Unmarshal(d, &c); err != nil {
				t.Fatalf("recorded chunk: %v", err)
			}
			for _, ch := range c.Choices {
				msg(ch.Delta, true)
			}
			if c.Usage != nil {
				usage = c.Usage
			}
		}
	} else {
		var c struct {
			Choices []recordedChoice `json:"choices"`
			Usage   *recordedUsage   `json:"usage"`
		}
		if err := json.Unmarshal(ex.Body, &c); err != nil {
			t.Fatalf("recorded answer: %v", err)
		}
		msg(c.Choices[0].Message, false)
		usage = c.Usage
	}
	for _, d := range details {
		enc, _ := json.Marshal(d)
		r := chat.Reasoning{Provider: ReasoningProvider(FieldReasoningDetails), Encrypted: string(enc)}
		r.ID, _ = d["id"].(string)
		r.Signature, _ = d["signature"].(string)
		r.Text, _ = d["text"].(string)
		if d["type"] == "reasoning.summary" {
			r.Text, _ = d["summary"].(string)
		}
		out.reasoning = append(out.reasoning, r)
	}
	if len(details) == 0 && plain.Len() > 0 {
		out.reasoning = []chat.Reasoning{{Provider: ReasoningProvider(plainField), Text: plain.String()}}
	}
	if usage != nil {
		out.usage = chat.Usage{InputTokens: usage.PromptTokens, OutputTokens: usage.CompletionTokens, TotalTokens: usage.TotalTokens,
			CachedInputTokens: usage.PromptTokensDetails.CachedTokens, CacheWriteInputTokens: usage.PromptTokensDetails.CacheWriteTokens,
			ReasoningTokens: usage.CompletionTokensDetails.ReasoningTokens}
	}
	return out
}

// assertReasoning compares reasoning entries, the JSON of reasoning_details entries as JSON.
func assertReasoning(t testing.TB, got, want []chat.Reasoning) {
	t.Helper()
	norm := func(rs []chat.Reasoning) []chat.Reasoning {
		out := make([]chat.Reasoning, len(rs))
		for i, r := range rs {
			if r.Encrypted != "" {
				var v any
				if err := json.Unmarshal([]byte(r.Encrypted), &v); err != nil {
					t.Fatalf("entry %d: Encrypted is not JSON: %v", i, err)
				}
				b, _ := json.Marshal(v)
				r.Encrypted = string(b)
			}
			out[i] = r
		}
		return out
	}
	if !providertest.Same(t, "the reasoning and the recorded one", norm(got), norm(want)) {
		t.FailNow()
	}
}

// compatLoop is a recorded tool loop of an OpenAI-compatible server (testdata/compatible).
type compatLoop struct {
	name   string
	cfg    Config
	stream bool
	// prompt defaults to the fantasy recordings' system and user messages; tool to the weather
	// tool.
	prompt []chat.Message
	tool   *testTool
	extra  map[string]any
	// noChoice leaves ToolChoice unset; the other recordings sent "auto".
	noChoice bool
	norms    []normalizer
	// check, when set, checks more of the second request.
	check func(t *testing.T, second map[string]any, first *chat.Response)
}

// runCompatLoops replays each loop: the first answer's tool calls, reasoning and usage must be
// what the recording says, the tool's result must reach the second request, both requests must
// mean what the recorded ones meant, and the final text and usage must be the recording's.
func runCompatLoops(t *testing.T, loops []compatLoop) {
	for _, lc := range loops {
		t.Run(lc.name, func(t *testing.T) {
			exs := providertest.Load(t, "compatible", lc.name)
			srv := replay.NewServer(t, exs...)
			cfg := lc.cfg
			if cfg.Model == "" {
				var first struct{ Model string }
				if err := json.Unmarshal(exs[0].RequestBody, &first); err != nil {
					t.Fatal(err)
				}
				cfg.Model = first.Model
			}
			m := newTestModel(t, New, srv.URL+"/v1", cfg)
			tl := lc.tool
			if tl == nil {
				tl = weatherTool()
			}
			history := lc.prompt
			if history == nil {
				history = fantasyPrompt("What's the weather in Florence,Italy?", nil).Messages
			}
			opts := &chat.Options{Tools: []tool.Tool{tl}, Extra: lc.extra}
			if !lc.noChoice {
				opts.ToolChoice = "auto"
			}
			first := providertest.Answer(t, m, &chat.Prompt{Messages: history, Options: opts}, lc.stream)
			want := readRecorded(t, exs[0])
			if got := first.ToolCalls(); !reflect.DeepEqual(got, want.calls) {
				t.Fatalf("tool calls %+v, want %+v", got, want.calls)
			}
			assertReasoning(t, first.Result().Message.Reasoning, want.reasoning)
			if first.Usage != want.usage || first.Result().FinishReason != chat.FinishToolCalls {
				t.Fatalf("usage %+v finish %q, want %+v", first.Usage, first.Result().FinishReason, want.usage)
			}
			history = runTools(t, history, first, tl)
			final := providertest.Answer(t, m, &chat.Prompt{Messages: history, Options: opts}, lc.stream)
			want = readRecorded(t, exs[1])
			if final.Text() != want.text || final.Usage != want.usage || final.Result().FinishReason != chat.FinishStop {
				t.Fatalf("final answer %q usage %+v finish %q, want %q %+v", final.Text(), final.Usage, final.Result().FinishReason, want.text, want.usage)
			}
			assertReasoning(t, final.Result().Message.Reasoning, want.reasoning)
			reqs := srv.Requests()
			norms := append([]normalizer{dropFalseStrict}, lc.norms...)
			for i := range exs {
				assertSameRequest(t, reqs[i].Body, exs[i].RequestBody, norms...)
			}
			if lc.check != nil {
				var second map[string]any
				if err := json.Unmarshal(reqs[1].Body, &second); err != nil {
					t.Fatal(err)
				}
				lc.check(t, second, first)
			}
		})
	}
}

// messagesNorm applies fn to every message of a chat request body.
func messagesNorm(fn func(m map[string]any)) normalizer {
	return func(body map[string]any) {
		for _, m := range asList(body["messages"]) {
			if mm, ok := m.(map[string]any); ok {
				fn(mm)
			}
		}
	}
}

// The recording clients' habits that wield does not share, each harmless to the server:
var (
	// dropEmptyContent: an assistant message with tool calls was sent with content "";
	// wield leaves content out when there is none.
	dropEmptyContent = messagesNorm(func(m map[string]any) {
		if m["role"] == "assistant" && m["content"] == "" {
			delete(m, "content")
		}
	})
	// dropToolName: tool messages carried the tool's name, which the Chat Completions API does
	// not define for them (the call id links result and call).
	dropToolName = messagesNorm(func(m map[string]any) {
		if m["role"] == "tool" {
			delete(m, "name")
		}
	})
	// dropPlainReasoning: the assistant message repeated its reasoning_details text in
	// "reasoning"; wield sends reasoning_details alone, as OpenRouter's other recordings do
	// (kimi, glm, grok, gemini), which OpenRouter accepted.
	dropPlainReasoning = messagesNorm(func(m map[string]any) {
		if m["role"] == "assistant" && m["reasoning_details"] != nil {
			delete(m, "reasoning")
		}
	})
	// dropCacheControl: message-level cache_control breakpoints, an OpenRouter prompt-caching
	// setting this test does not set.
	dropCacheControl = messagesNorm(func(m map[string]any) {
		delete(m, "cache_control")
		for _, c := range asList(m["tool_calls"]) {
			if cm, ok := c.(map[string]any); ok {
				delete(cm, "cache_control")
			}
		}
	})
)

// dropDetails leaves reasoning_details out of the comparison, for recordings whose client sent
// them back altered; sentBackAsReceived then checks what wield sent.
var dropDetails = messagesNorm(func(m map[string]any) { delete(m, "reasoning_details") })

// sentBackAsReceived checks that the assistant message of the second request carries the
// reasoning_details entries of the first answer, as they came.
func sentBackAsReceived(t *testing.T, second map[string]any, first *chat.Response) {
	t.Helper()
	var got []chat.Reasoning
	for _, d := range asList(asList(second["messages"])[2].(map[string]any)["reasoning_details"]) {
		b, _ := json.Marshal(d)
		r, _ := detailEntry(b)
		got = append(got, r)
	}
	assertReasoning(t, got, first.Result().Message.Reasoning)
}

// claudePrompt is the question of the OpenRouter Claude recordings.
var claudePrompt = fantasyPrompt("What's the weather in Florence, Italy?", nil).Messages

// openRouterUsage is the OpenRouter request field the recordings set to get usage accounting.
var openRouterUsage = map[string]any{ExtraBody: map[string]any{"usage": map[string]any{"include": true}}}

// TestCompatibleReasoningLoops replays the recorded tool loops of OpenAI-compatible servers that
// return reasoning: reasoning_content (Z.ai, Moonshot, Avian), reasoning and reasoning_details
// (OpenRouter in front of Claude, Gemini, Grok, Kimi and GLM). The reasoning arrives in
// chat.Reasoning, in order, whole (streams are joined), and goes back on the next request in
// the field and shape the server expects; usage, cached tokens included, is the recording's.
func TestCompatibleReasoningLoops(t *testing.T) {
	mt := Config{MaxTokens: 4000}
	runCompatLoops(t, []compatLoop{
		{name: "fantasy-zai-reasoning-content-tool-loop-glm-4.7-flash", cfg: mt},
		{name: "fantasy-zai-reasoning-content-tool-loop-streaming-glm-4.7-flash", cfg: mt, stream: true},
		{name: "lcgo-moonshot-reasoning-content-tool-loop-kimi-k2.5",
			cfg:    Config{Model: "kimi-k2.5", MaxTokens: 4096, MaxTokensField: "max_completion_tokens", Temperature: ptr(1.0)},
			prompt: []chat.Message{chat.User("What is the weather in Beijing?")},
			tool: &testTool{def: newTool("get_weather", "Get current weather for a location",
				`{"properties":{"location":{"description":"The city name","type":"string"}},"required":["location"],"type":"object"}`).def,
				fn: func(context.Context, string) (string, error) {
					return `{"temperature": "22°C", "condition": "sunny"}`, nil
				}},
			noChoice: true, norms: []normalizer{dropEmptyContent, dropToolName}},
		// Avian sends reasoning_content and reasoning_details with the same text; the recording
		// client sent reasoning_content back, which ReasoningField selects.
		{name: "fantasy-avian-reasoning-tool-loop-streaming-kimi-k2.5", cfg: Config{MaxTokens: 4000, ReasoningField: FieldReasoningContent}, stream: true},
		{name: "fantasy-openrouter-reasoning-details-tool-loop-kimi-k2.5", cfg: mt, extra: openRouterUsage},
		// The recording client lost the first streamed fragment ("The") of the reasoning it sent
		// back; wield sends all of it. The rest of the request is compared as recorded.
		{name: "fantasy-openrouter-reasoning-details-tool-loop-streaming-glm-5-turbo", cfg: mt, stream: true, extra: openRouterUsage,
			norms: []normalizer{dropDetails}, check: sentBackAsReceived},
		{name: "fantasy-openrouter-reasoning-details-tool-loop-gemini-3.1-flash-lite", cfg: mt, extra: openRouterUsage,
			check: func(t *testing.T, second map[string]any, _ *chat.Response) {
				// The thought signature of Gemini 3 goes back tied to its tool call.
				d := asList(asList(second["messages"])[2].(map[string]any)["reasoning_details"])
				if len(d) != 1 || d[0].(map[string]any)["type"] != "reasoning.encrypted" || d[0].(map[string]any)["id"] != "tool_weather_fRoXur7LpnOd7IAx6Tad" {
					t.Fatalf("reasoning_details sent back: %v", d)
				}
			}},
		{name: "fantasy-openrouter-thinking-signature-claude-haiku-4.5", prompt: claudePrompt,
			extra: map[string]any{ExtraBody: map[string]any{"usage": map[string]any{"include": true}, "reasoning": map[string]any{"effort": "medium"}}},
			norms: []normalizer{dropPlainReasoning}},
		{name: "fantasy-openrouter-thinking-signature-streaming-claude-haiku-4.5", stream: true, prompt: claudePrompt,
			extra: map[string]any{ExtraBody: map[string]any{"usage": map[string]any{"include": true}, "reasoning": map[string]any{"effort": "medium"}}},
			norms: []normalizer{dropPlainReasoning}},
		// The recording client sent Grok's summary back merged into one reasoning.text entry of
		// format "unknown", without the encrypted entry; wield sends the entries as they came, as
		// OpenRouter's documentation asks. The rest of the request is compared as recorded.
		{name: "fantasy-openrouter-reasoning-details-tool-loop-streaming-grok-4.1-fast", cfg: mt, stream: true, extra: openRouterUsage,
			norms: []normalizer{dropDetails},
			check: func(t *testing.T, second map[string]any, first *chat.Response) {
				sentBackAsReceived(t, second, first)
				if rs := first.Result().Message.Reasoning; len(rs) != 2 || !strings.Contains(rs[1].Encrypted, "reasoning.encrypted") {
					t.Fatalf("reasoning read: %+v", rs)
				}
			}},
		{name: "fantasy-openrouter-cache-control-tool-loop-claude-haiku-4.5", cfg: mt, extra: openRouterUsage, norms: []normalizer{dropCacheControl}},
		{name: "fantasy-cerebras-tool-loop-qwen-3-coder-480b", cfg: mt},
		{name: "fantasy-cerebras-tool-loop-streaming-qwen-3-coder-480b", cfg: mt, stream: true},
	})
}

// TestDeepSeekReasoningContent replays DeepSeek's recorded streamed first step (deepseek-reasoner:
// reasoning_content deltas, then a tool call; only the answer was recorded) and checks that the
// next request sends the reasoning back in reasoning_content on the assistant message, which
// DeepSeek requires for turns with tool calls. The second answer is made up.
func TestDeepSeekReasoningContent(t *testing.T) {
	exs := providertest.Load(t, "compatible", "vercel-deepseek-reasoner-tool-call-stream")
	final := replay.Exchange{Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(
		`{"id":"x","object":"chat.completion","model":"deepseek-reasoner","choices":[{"index":0,"message":{"role":"assistant","content":"Sunny."},"finish_reason":"stop"}]}`)}
	srv := replay.NewServer(t, exs[0], final)
	m := newTestModel(t, New, srv.URL, Config{Model: "deepseek-reasoner"})
	weather := newTool("weather", "Get the weather in a location", `{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`)
	weather.fn = func(context.Context, string) (string, error) { return "sunny", nil }
	history := []chat.Message{chat.User("What is the weather in San Francisco?")}
	opts := &chat.Options{Tools: []tool.Tool{weather}}
	first, err := chat.Aggregate(m.Stream(context.Background(), &chat.Prompt{Messages: history, Options: opts}))
	if err != nil {
		t.Fatal(err)
	}
	want := readRecorded(t, exs[0])
	assertReasoning(t, first.Result().Message.Reasoning, want.reasoning)
	if !reflect.DeepEqual(first.ToolCalls(), want.calls) || first.Usage != want.usage || want.usage.CachedInputTokens != 320 || want.usage.ReasoningTokens != 39 {
		t.Fatalf("calls %+v usage %+v", first.ToolCalls(), first.Usage)
	}
	history = runTools(t, history, first, weather)
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: opts}); err != nil {
		t.Fatal(err)
	}
	var second struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[1].Body, &second); err != nil {
		t.Fatal(err)
	}
	if a := second.Messages[1]; a["reasoning_content"] != want.reasoning[0].Text || a["reasoning_details"] != nil || a["reasoning"] != nil {
		t.Fatalf("assistant message sent back: %v", a)
	}
}

// TestReasoningField checks each way of sending reasoning back, on a history holding reasoning
// from each field and from another provider.
func TestReasoningField(t *testing.T) {
	details := `{"type":"reasoning.encrypted","data":"SIG","format":"google-gemini-v1","id":"call_1","index":0}`
	msg := chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "f", Arguments: "{}"}}, Reasoning: []chat.Reasoning{
		{Provider: ReasoningProvider(FieldReasoningContent), Text: "first "},
		{Provider: ReasoningProvider(FieldReasoning), Text: "second "},
		{Provider: ReasoningProvider(FieldReasoningDetails), ID: "call_1", Encrypted: details},
		{Provider: "anthropic", Text: "not sent", Signature: "x"},
		{Provider: Provider, ID: "rs_1", Text: "a Responses API summary, not sent"},
	}}
	for _, tc := range []struct {
		field string
		want  string
	}{
		{"", `{"reasoning_content":"first ","reasoning":"second ","reasoning_details":[` + details + `]}`},
		{FieldReasoningContent, `{"reasoning_content":"first second "}`},
		{FieldReasoning, `{"reasoning":"first second "}`},
		{FieldReasoningDetails, `{"reasoning_details":[{"type":"reasoning.text","text":"first ","format":"unknown","index":0},{"type":"reasoning.text","text":"second ","format":"unknown","index":1},` + details + `]}`},
		{FieldNone, `{}`},
	} {
		msgs, err := chatWire{reasoningField: tc.field}.messages([]chat.Message{chat.User("hi"), msg})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(msgs[1])
		var got map[string]any
		json.Unmarshal(b, &got)
		for _, k := range []string{"role", "tool_calls"} {
			delete(got, k)
		}
		var want map[string]any
		json.Unmarshal([]byte(tc.want), &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ReasoningField %q: sent %s, want %s", tc.field, b, tc.want)
		}
	}
	if _, err := New(Config{ReasoningField: "thoughts"}); err == nil {
		t.Error("an unknown ReasoningField was accepted")
	}
	bad := msg
	bad.Reasoning = []chat.Reasoning{{Provider: ReasoningProvider(FieldReasoningDetails), Encrypted: "not json"}}
	if _, err := (chatWire{}).messages([]chat.Message{bad}); err == nil {
		t.Error("a reasoning_details entry without its JSON was sent")
	}
}

// TestChatUsage checks the normalisation of xAI's usage, which counts reasoning tokens apart from
// completion_tokens (no recording of api.x.ai exists: the numbers are made up in its shape,
// total = prompt + completion + reasoning), next to OpenAI's, which counts them inside, and
// OpenRouter's cache writes (its recordings have none but zeros).
func TestChatUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want chat.Usage
	}{
		{"xai", `{"prompt_tokens":30,"completion_tokens":10,"total_tokens":140,"completion_tokens_details":{"reasoning_tokens":100}}`,
			chat.Usage{InputTokens: 30, OutputTokens: 110, TotalTokens: 140, ReasoningTokens: 100}},
		{"openai", `{"prompt_tokens":30,"completion_tokens":110,"total_tokens":140,"prompt_tokens_details":{"cached_tokens":20},"completion_tokens_details":{"reasoning_tokens":100}}`,
			chat.Usage{InputTokens: 30, OutputTokens: 110, TotalTokens: 140, CachedInputTokens: 20, ReasoningTokens: 100}},
		{"openrouter", `{"prompt_tokens":2000,"completion_tokens":50,"total_tokens":2050,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":1900}}`,
			chat.Usage{InputTokens: 2000, OutputTokens: 50, TotalTokens: 2050, CacheWriteInputTokens: 1900}},
	} {
		srv := replay.NewServer(t, providertest.JSONError(200,
			`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":`+tc.body+`}`))
		r, err := newTestModel(t, New, srv.URL, Config{Model: "m"}).Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Usage != tc.want {
			t.Errorf("%s: usage %+v, want %+v", tc.name, r.Usage, tc.want)
		}
	}
}

// TestChatPromptCaching replays OpenAI's recorded automatic prompt caching: the same long prompt
// twice, cached_tokens 0 and then 1024 in CachedInputTokens.
func TestChatPromptCaching(t *testing.T) {
	exs := providertest.Load(t, "chat", "openllmetry-prompt-caching-hit-gpt-4o-mini")
	srv := replay.NewServer(t, exs...)
	m := newTestModel(t, New, srv.URL+"/v1", Config{Model: "gpt-4o-mini"})
	var recorded struct {
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(exs[0].RequestBody, &recorded); err != nil {
		t.Fatal(err)
	}
	p := &chat.Prompt{Messages: []chat.Message{chat.System(recorded.Messages[0].Content), chat.User(recorded.Messages[1].Content)}}
	for i, cached := range []int{0, 1024} {
		r, err := m.Call(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		want := readRecorded(t, exs[i])
		if r.Usage != want.usage || r.Usage.CachedInputTokens != cached || r.Text() != want.text {
			t.Fatalf("answer %d: usage %+v, want %+v", i+1, r.Usage, want.usage)
		}
		assertSameRequest(t, srv.Requests()[i].Body, exs[i].RequestBody)
	}
}

// TestChatInvalidImageURL replays OpenAI's recorded 400 for an image it could not download: the
// image URL part is sent as recorded, and the answer is a chat.ProviderError with the status,
// code and message.
func TestChatInvalidImageURL(t *testing.T) {
	exs := providertest.Load(t, "chat", "openllmetry-image-url-download-error-gpt-4o-mini")
	srv := replay.NewServer(t, exs...)
	_, err := newTestModel(t, New, srv.URL, Config{Model: "gpt-4o-mini", Transport: provider.Transport{MaxRetries: -1}}).Call(context.Background(),
		&chat.Prompt{Messages: []chat.Message{chat.User("What is in this image?", content.ImageURL("https://source.unsplash.com/8xznAGy4HcY/800x400"))}})
	var pe *chat.ProviderError
	if !errors.As(err, &pe) || pe.StatusCode != 400 || pe.Code != "invalid_image_url" || !strings.Contains(pe.Message, "Error while downloading") {
		t.Fatalf("error = %#v", err)
	}
	assertSameRequest(t, srv.Requests()[0].Body, exs[0].RequestBody)
}
