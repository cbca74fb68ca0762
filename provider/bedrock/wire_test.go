package bedrock

// The tests in this file have no recording to replay: no public recording of a ConverseStream
// tool loop, of reasoning, of prompt caching or of renamed tools exists. The answers are written
// by the AWS SDK's own serializers (event-stream frames and JSON bodies in Bedrock's wire
// format, see helpers_test.go) and served from 127.0.0.1; the requests wield sends are checked
// against the Converse request shape of the Bedrock API reference.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/providertest/awstest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

// Event constructors for the test streams.

func evStart() types.ConverseStreamOutput {
	return &types.ConverseStreamOutputMemberMessageStart{Value: types.MessageStartEvent{Role: types.ConversationRoleAssistant}}
}

func evText(i int32, s string) types.ConverseStreamOutput {
	return &types.ConverseStreamOutputMemberContentBlockDelta{Value: types.ContentBlockDeltaEvent{
		ContentBlockIndex: aws.Int32(i), Delta: &types.ContentBlockDeltaMemberText{Value: s}}}
}

func evToolStart(i int32, id, name string) types.ConverseStreamOutput {
	return &types.ConverseStreamOutputMemberContentBlockStart{Value: types.ContentBlockStartEvent{
		ContentBlockIndex: aws.Int32(i), Start: &types.ContentBlockStartMemberToolUse{Value: types.ToolUseBlockStart{ToolUseId: aws.String(id), Name: aws.String(name)}}}}
}

func evToolInput(i int32, s string) types.ConverseStreamOutput {
	return &types.ConverseStreamOutputMemberContentBlockDelta{Value: types.ContentBlockDeltaEvent{
		ContentBlockIndex: aws.Int32(i), Delta: &types.ContentBlockDeltaMemberToolUse{Value: types.ToolUseBlockDelta{Input: aws.String(s)}}}}
}

func evReasoning(i int32, d types.ReasoningContentBlockDelta) types.ConverseStreamOutput {
	return &types.ConverseStreamOutputMemberContentBlockDelta{Value: types.ContentBlockDeltaEvent{
		ContentBlockIndex: aws.Int32(i), Delta: &types.ContentBlockDeltaMemberReasoningContent{Value: d}}}
}

func evStop(i int32) types.ConverseStreamOutput {
	return &types.ConverseStreamOutputMemberContentBlockStop{Value: types.ContentBlockStopEvent{ContentBlockIndex: aws.Int32(i)}}
}

func evMessageStop(r types.StopReason) types.ConverseStreamOutput {
	return &types.ConverseStreamOutputMemberMessageStop{Value: types.MessageStopEvent{StopReason: r}}
}

func evMetadata(u types.TokenUsage) types.ConverseStreamOutput {
	return &types.ConverseStreamOutputMemberMetadata{Value: types.ConverseStreamMetadataEvent{
		Usage: &u, Metrics: &types.ConverseStreamMetrics{LatencyMs: aws.Int64(100)}}}
}

func tokens(in, out int32) types.TokenUsage {
	return types.TokenUsage{InputTokens: aws.Int32(in), OutputTokens: aws.Int32(out), TotalTokens: aws.Int32(in + out)}
}

// answer is a Converse JSON answer with the given content blocks.
func answer(t testing.TB, stop types.StopReason, u types.TokenUsage, blocks ...types.ContentBlock) replay.Exchange {
	t.Helper()
	return jsonExchange(outputBody(t, &bedrockruntime.ConverseOutput{
		Output:     &types.ConverseOutputMemberMessage{Value: types.Message{Role: types.ConversationRoleAssistant, Content: blocks}},
		StopReason: stop, Usage: &u, Metrics: &types.ConverseMetrics{LatencyMs: aws.Int64(120)},
	}))
}

func toolUse(id, name string, input any) types.ContentBlock {
	return &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String(id), Name: aws.String(name), Input: document.NewLazyDocument(input)}}
}

// TestStreamToolLoop runs a streamed tool loop through client.Client: the first answer streams
// text and a call whose input arrives in fragments, the client runs the tool and the second
// request carries the call and its result with the tool configuration; the second answer is the
// final text. Usage sums both, cache reads and writes included.
func TestStreamToolLoop(t *testing.T) {
	first := tokens(12, 30)
	first.CacheWriteInputTokens = aws.Int32(1500)
	second := tokens(20, 9)
	second.CacheReadInputTokens = aws.Int32(1500)
	srv := replay.NewServer(t,
		streamExchange(frames(t, evStart(), evText(0, "Let me "), evText(0, "check."), evStop(0),
			evToolStart(1, "tooluse_1", "get_weather"), evToolInput(1, ""), evToolInput(1, `{"locat`), evToolInput(1, `ion":"Barcelona"}`), evStop(1),
			evMessageStop(types.StopReasonToolUse), evMetadata(first))),
		streamExchange(frames(t, evStart(), evText(0, "It is sunny in Barcelona."), evStop(0),
			evMessageStop(types.StopReasonEndTurn), evMetadata(second))),
	)
	m := newTestModel(t, srv.URL, Config{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0", MaxTokens: 300, Cache: Cache{Tools: true}})
	c := clienttest.New(t, m)
	resp, streamed := providertest.Send(t, c.Prompt("Weather in Barcelona?").System("Be brief.").Tools(weatherTool()), true)
	if resp.Text() != "It is sunny in Barcelona." || streamed != "Let me check.It is sunny in Barcelona." {
		t.Errorf("answer %q, streamed %q", resp.Text(), streamed)
	}
	want := chat.Usage{InputTokens: 12 + 1500 + 20 + 1500, OutputTokens: 39, TotalTokens: 12 + 1500 + 20 + 1500 + 39, CachedInputTokens: 1500, CacheWriteInputTokens: 1500}
	if resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	tools := `{"tools":[{"toolSpec":{"name":"get_weather","description":"Get the current weather for a location",
		"inputSchema":{"json":{"type":"object","properties":{"location":{"type":"string","description":"The city name"}},"required":["location"]}}}},
		{"cachePoint":{"type":"default"}}]}`
	checkBody(t, srv.Requests()[0].Body, `{"inferenceConfig":{"maxTokens":300},"system":[{"text":"Be brief."}],
		"messages":[{"role":"user","content":[{"text":"Weather in Barcelona?"}]}],"toolConfig":`+tools+`}`)
	checkBody(t, srv.Requests()[1].Body, `{"inferenceConfig":{"maxTokens":300},"system":[{"text":"Be brief."}],
		"messages":[
			{"role":"user","content":[{"text":"Weather in Barcelona?"}]},
			{"role":"assistant","content":[{"text":"Let me check."},{"toolUse":{"toolUseId":"tooluse_1","name":"get_weather","input":{"location":"Barcelona"}}}]},
			{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_1","content":[{"text":"Sunny, 24°C in Barcelona"}]}}]}],
		"toolConfig":`+tools+`}`)
	for i, r := range srv.Requests() {
		if r.Path != "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/converse-stream" {
			t.Errorf("request %d: path %s", i+1, r.Path)
		}
	}
}

// nameAPI fakes Converse and ConverseStream for the shared tool-name loops, refusing tool names
// as Bedrock documents them (ToolSpecification.name: [a-zA-Z0-9_-]+, 1 to 64 characters); its
// answers are written by the AWS SDK's serializers.
func nameAPI(t testing.TB) providertest.NameAPI {
	return providertest.NameAPI{
		Rule: regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`),
		Parse: providertest.DecodeNames(func(r *http.Request, req *struct {
			Messages []struct {
				Content []struct {
					ToolUse *struct {
						ToolUseID string `json:"toolUseId"`
						Name      string `json:"name"`
					} `json:"toolUse"`
					ToolResult *struct {
						ToolUseID string `json:"toolUseId"`
						Content   []struct {
							Text string `json:"text"`
						} `json:"content"`
					} `json:"toolResult"`
				} `json:"content"`
			} `json:"messages"`
			ToolConfig struct {
				Tools []struct {
					ToolSpec providertest.NameTool `json:"toolSpec"`
				} `json:"tools"`
			} `json:"toolConfig"`
		}) providertest.NameRequest {
			out := providertest.NameRequest{Stream: strings.HasSuffix(r.URL.Path, "/converse-stream")}
			for _, tl := range req.ToolConfig.Tools {
				out.Tools = append(out.Tools, tl.ToolSpec)
			}
			for _, m := range req.Messages {
				for _, b := range m.Content {
					if u := b.ToolUse; u != nil {
						out.Calls = append(out.Calls, providertest.NameCall{ID: u.ToolUseID, Name: u.Name})
					}
					if res := b.ToolResult; res != nil && len(res.Content) > 0 {
						// Converse results carry the call's id, not the tool's name.
						out.Results = append(out.Results, providertest.NameCall{ID: res.ToolUseID, Content: res.Content[0].Text})
					}
				}
			}
			return out
		}),
		Call: func(w http.ResponseWriter, stream bool, id, wire, args string) {
			if stream {
				serve(w, streamExchange(frames(t, evStart(), evToolStart(0, id, wire), evToolInput(0, args), evStop(0),
					evMessageStop(types.StopReasonToolUse), evMetadata(tokens(10, 5)))))
				return
			}
			var input map[string]any
			_ = json.Unmarshal([]byte(args), &input)
			serve(w, answer(t, types.StopReasonToolUse, tokens(10, 5), toolUse(id, wire, input)))
		},
		Final: func(w http.ResponseWriter, stream bool, text string) {
			if stream {
				serve(w, streamExchange(frames(t, evStart(), evText(0, text), evStop(0), evMessageStop(types.StopReasonEndTurn), evMetadata(tokens(20, 5)))))
				return
			}
			serve(w, answer(t, types.StopReasonEndTurn, tokens(20, 5), &types.ContentBlockMemberText{Value: text}))
		},
	}
}

func serve(w http.ResponseWriter, ex replay.Exchange) {
	w.Header().Set("Content-Type", ex.Header.Get("Content-Type"))
	_, _ = w.Write(ex.Body)
}

// TestToolNames runs dotted, long, unicode and colliding tool names through whole tool loops,
// called and streamed: Bedrock receives names its rule accepts, in tool specs and the history's
// toolUse blocks alike, and the model's calls come back under the tools' own names.
func TestToolNames(t *testing.T) {
	providertest.ToolNameLoop(t, nameAPI(t), func(t testing.TB, url string) chat.Model { return newTestModel(t, url, Config{}) })
}

// TestReasoning: reasoning blocks (text with signature, and redacted) come back as
// chat.Reasoning of this provider, whole in a stream, and go back first in the assistant turn;
// other providers' reasoning is not sent.
func TestReasoning(t *testing.T) {
	redacted := []byte{0xde, 0xad, 0xbe, 0xef}
	want := []chat.Reasoning{
		{Provider: "bedrock", Text: "The user wants the weather.", Signature: "sig-1"},
		{Provider: "bedrock", Encrypted: base64.StdEncoding.EncodeToString(redacted)},
	}
	call := answer(t, types.StopReasonToolUse, tokens(10, 40),
		&types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{Value: types.ReasoningTextBlock{Text: aws.String(want[0].Text), Signature: aws.String("sig-1")}}},
		&types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberRedactedContent{Value: redacted}},
		&types.ContentBlockMemberText{Value: "Checking."},
		toolUse("t1", "get_weather", map[string]any{"location": "Oslo"}))
	streamed := streamExchange(frames(t, evStart(),
		evReasoning(0, &types.ReasoningContentBlockDeltaMemberText{Value: "The user wants "}),
		evReasoning(0, &types.ReasoningContentBlockDeltaMemberText{Value: "the weather."}),
		evReasoning(0, &types.ReasoningContentBlockDeltaMemberSignature{Value: "sig-1"}), evStop(0),
		evReasoning(1, &types.ReasoningContentBlockDeltaMemberRedactedContent{Value: redacted}), evStop(1),
		evText(2, "Checking."), evStop(2),
		evToolStart(3, "t1", "get_weather"), evToolInput(3, `{"location":"Oslo"}`), evStop(3),
		evMessageStop(types.StopReasonToolUse), evMetadata(tokens(10, 40))))
	for _, stream := range []bool{false, true} {
		first := call
		if stream {
			first = streamed
		}
		srv := replay.NewServer(t, first, answer(t, types.StopReasonEndTurn, tokens(1, 1), &types.ContentBlockMemberText{Value: "Cold."}))
		m := newTestModel(t, srv.URL, Config{})
		p := &chat.Prompt{Messages: []chat.Message{chat.User("Oslo?")}, Options: &chat.Options{Tools: []tool.Tool{weatherTool()}}}
		resp, err := providertest.Run(context.Background(), m, p, stream)
		if err != nil {
			t.Fatal(err)
		}
		msg := resp.Message()
		if !reflect.DeepEqual(msg.Reasoning, want) || msg.Content != "Checking." || len(msg.ToolCalls) != 1 {
			t.Fatalf("stream %v: message %+v", stream, msg)
		}
		msg.Reasoning = append(msg.Reasoning, chat.Reasoning{Provider: "anthropic", Text: "foreign", Signature: "x"})
		p.Messages = append(p.Messages, msg, chat.ToolMessage(chat.ToolResult{ID: "t1", Name: "get_weather", Content: "-3°C"}))
		if _, err := m.Call(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		var body struct {
			Messages []struct {
				Content []json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(srv.Requests()[1].Body, &body); err != nil {
			t.Fatal(err)
		}
		got := body.Messages[1].Content
		wantBlocks := []string{
			`{"reasoningContent":{"reasoningText":{"text":"The user wants the weather.","signature":"sig-1"}}}`,
			`{"reasoningContent":{"redactedContent":"` + base64.StdEncoding.EncodeToString(redacted) + `"}}`,
			`{"text":"Checking."}`,
			`{"toolUse":{"toolUseId":"t1","name":"get_weather","input":{"location":"Oslo"}}}`,
		}
		if len(got) != len(wantBlocks) {
			t.Fatalf("assistant turn %s", got)
		}
		for i := range got {
			if !providertest.JSONEqual(t, string(got[i]), wantBlocks[i]) {
				t.Errorf("stream %v: block %d = %s, want %s", stream, i, got[i], wantBlocks[i])
			}
		}
	}
}

// TestToolConfigKept: Converse refuses toolUse and toolResult blocks without toolConfig, so a
// request whose history holds them keeps a tool configuration even when it offers no tool (the
// tool loop's last call without tools) or forbids calls (ToolChoice "none", which Converse cannot
// express): the tools the history used are declared unavailable.
func TestToolConfigKept(t *testing.T) {
	history := []chat.Message{
		chat.User("Weather in Oslo and Rome?"),
		chat.Assistant("", chat.ToolCall{ID: "t1", Name: "get.weather", Arguments: `{"city":"Oslo"}`}, chat.ToolCall{ID: "t2", Name: "get.weather", Arguments: `{"city":"Rome"}`}),
		chat.ToolMessage(chat.ToolResult{ID: "t1", Name: "get.weather", Content: "cold"}, chat.ToolResult{ID: "t2", Name: "get.weather", Content: "failed", IsError: true}),
	}
	unavailable := `{"tools":[{"toolSpec":{"name":"get_weather","description":"Not available in this turn; answer without calling it.","inputSchema":{"json":{"type":"object","properties":{}}}}}]}`
	for _, tc := range []struct {
		name string
		opts *chat.Options
		want string
	}{
		{"no tools", nil, unavailable},
		{"tool choice none", &chat.Options{ToolChoice: "none", Tools: []tool.Tool{calculator()}}, unavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t, answer(t, types.StopReasonEndTurn, tokens(1, 1), &types.ContentBlockMemberText{Value: "ok"}))
			m := newTestModel(t, srv.URL, Config{})
			if _, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: tc.opts}); err != nil {
				t.Fatal(err)
			}
			checkBody(t, srv.Requests()[0].Body, `{"messages":[
				{"role":"user","content":[{"text":"Weather in Oslo and Rome?"}]},
				{"role":"assistant","content":[
					{"toolUse":{"toolUseId":"t1","name":"get_weather","input":{"city":"Oslo"}}},
					{"toolUse":{"toolUseId":"t2","name":"get_weather","input":{"city":"Rome"}}}]},
				{"role":"user","content":[
					{"toolResult":{"toolUseId":"t1","content":[{"text":"cold"}]}},
					{"toolResult":{"toolUseId":"t2","content":[{"text":"failed"}],"status":"error"}}]}],
				"toolConfig":`+tc.want+`}`)
		})
	}
	// Without tool blocks in the history and without tools, no toolConfig is sent.
	srv := replay.NewServer(t, answer(t, types.StopReasonEndTurn, tokens(1, 1), &types.ContentBlockMemberText{Value: "ok"}))
	m := newTestModel(t, srv.URL, Config{})
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: history[:1], Options: &chat.Options{ToolChoice: "none", Tools: []tool.Tool{weatherTool()}}}); err != nil {
		t.Fatal(err)
	}
	checkBody(t, srv.Requests()[0].Body, `{"messages":[{"role":"user","content":[{"text":"Weather in Oslo and Rome?"}]}]}`)
}

// TestRequestMapping: how the options and the conversation become a Converse request.
func TestRequestMapping(t *testing.T) {
	weather := []tool.Tool{weatherTool()}
	conversation := []chat.Message{
		chat.System("Be brief."), chat.User("a"), chat.User("b"), chat.System("Use metric units."),
		chat.Assistant("c"), chat.Assistant("d"), chat.User("e"),
	}
	tests := []struct {
		name string
		cfg  Config
		p    chat.Prompt
		want string
	}{
		{"conversation: system collected, same-role turns merged", Config{}, chat.Prompt{Messages: conversation},
			`{"system":[{"text":"Be brief."},{"text":"Use metric units."}],"messages":[
				{"role":"user","content":[{"text":"a"},{"text":"b"}]},
				{"role":"assistant","content":[{"text":"c"},{"text":"d"}]},
				{"role":"user","content":[{"text":"e"}]}]}`},
		{"inference settings: call over config", Config{MaxTokens: 100, Temperature: chat.Ptr(0.25)},
			chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{MaxTokens: 50, TopP: chat.Ptr(0.5), Stop: []string{"END"}}},
			`{"inferenceConfig":{"maxTokens":50,"temperature":0.25,"topP":0.5,"stopSequences":["END"]},"messages":[{"role":"user","content":[{"text":"hi"}]}]}`},
		{"tool choice required", Config{}, chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{Tools: weather, ToolChoice: "required"}},
			`{"messages":[{"role":"user","content":[{"text":"hi"}]}],"toolConfig":{"toolChoice":{"any":{}},"tools":[` + weatherSpec + `]}}`},
		{"tool choice by name", Config{}, chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{Tools: weather, ToolChoice: "get_weather"}},
			`{"messages":[{"role":"user","content":[{"text":"hi"}]}],"toolConfig":{"toolChoice":{"tool":{"name":"get_weather"}},"tools":[` + weatherSpec + `]}}`},
		{"schema without type or properties", Config{}, chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{Tools: []tool.Tool{
			providertest.RawTool{Name: "ping", InputSchema: json.RawMessage(`{"additionalProperties":false}`)}, providertest.RawTool{Name: "pong"}}}},
			`{"messages":[{"role":"user","content":[{"text":"hi"}]}],"toolConfig":{"tools":[
				{"toolSpec":{"name":"ping","inputSchema":{"json":{"type":"object","properties":{},"additionalProperties":false}}}},
				{"toolSpec":{"name":"pong","inputSchema":{"json":{"type":"object","properties":{}}}}}]}}`},
		{"response format", Config{}, chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{
			ResponseFormat: &chat.ResponseFormat{Name: "answer", Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)}}},
			`{"messages":[{"role":"user","content":[{"text":"hi"}]}],"outputConfig":{"textFormat":{"type":"json_schema",
				"structure":{"jsonSchema":{"name":"answer","schema":"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}"}}}}}`},
		{"additional fields and a request edit", Config{}, chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{Extra: map[string]any{
			ExtraAdditionalFields: map[string]any{"top_k": 40, "thinking": map[string]any{"type": "enabled", "budget_tokens": 2048}},
			ExtraInput:            func(in *bedrockruntime.ConverseInput) { in.RequestMetadata = map[string]string{"team": "search"} },
		}}},
			`{"messages":[{"role":"user","content":[{"text":"hi"}]}],"additionalModelRequestFields":{"top_k":40,"thinking":{"type":"enabled","budget_tokens":2048}},"requestMetadata":{"team":"search"}}`},
		{"model per call", Config{}, chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{Model: "meta.llama3-3-70b-instruct-v1:0"}},
			`{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t, answer(t, types.StopReasonEndTurn, tokens(1, 1), &types.ContentBlockMemberText{Value: "ok"}))
			m := newTestModel(t, srv.URL, tc.cfg)
			resp, err := m.Call(context.Background(), &tc.p)
			if err != nil {
				t.Fatal(err)
			}
			checkBody(t, srv.Requests()[0].Body, tc.want)
			if tc.p.Options != nil && tc.p.Options.Model != "" {
				if p := srv.Requests()[0].Path; p != "/model/"+tc.p.Options.Model+"/converse" || resp.Model != tc.p.Options.Model {
					t.Errorf("path %s, model %q", p, resp.Model)
				}
			}
		})
	}
}

const weatherSpec = `{"toolSpec":{"name":"get_weather","description":"Get the current weather for a location",
	"inputSchema":{"json":{"type":"object","properties":{"location":{"type":"string","description":"The city name"}},"required":["location"]}}}}`

// TestRequestErrors: requests wield cannot send are refused before anything goes out.
func TestRequestErrors(t *testing.T) {
	user := []chat.Message{chat.User("hi")}
	weather := []tool.Tool{weatherTool()}
	for _, tc := range []struct {
		name string
		p    *chat.Prompt
		want string
	}{
		{"nil prompt", nil, "nil prompt"},
		{"several generations", &chat.Prompt{Messages: user, Options: &chat.Options{N: 2}}, "one generation"},
		{"negative max tokens", &chat.Prompt{Messages: user, Options: &chat.Options{MaxTokens: -1}}, "negative"},
		{"unknown role", &chat.Prompt{Messages: []chat.Message{{Role: "critic", Content: "x"}}}, "unknown role"},
		{"call without id", &chat.Prompt{Messages: []chat.Message{chat.Assistant("", chat.ToolCall{Name: "f"})}}, "no id"},
		{"call with broken arguments", &chat.Prompt{Messages: []chat.Message{chat.Assistant("", chat.ToolCall{ID: "1", Name: "f", Arguments: `{"a":`})}}, "not a JSON object"},
		{"call with array arguments", &chat.Prompt{Messages: []chat.Message{chat.Assistant("", chat.ToolCall{ID: "1", Name: "f", Arguments: `[1]`})}}, "not a JSON object"},
		{"result without id", &chat.Prompt{Messages: []chat.Message{chat.ToolMessage(chat.ToolResult{Name: "f", Content: "x"})}}, "no call id"},
		{"redacted reasoning not base64", &chat.Prompt{Messages: []chat.Message{{Role: chat.RoleAssistant, Content: "x",
			Reasoning: []chat.Reasoning{{Provider: "bedrock", Encrypted: "%%%"}}}}}, "not base64"},
		{"tool choice names no tool", &chat.Prompt{Messages: user, Options: &chat.Options{Tools: weather, ToolChoice: "lookup"}}, "names none"},
		{"nil tool", &chat.Prompt{Messages: user, Options: &chat.Options{Tools: []tool.Tool{nil}}}, "nil"},
		{"schema not an object", &chat.Prompt{Messages: user, Options: &chat.Options{Tools: []tool.Tool{
			providertest.RawTool{Name: "s", InputSchema: json.RawMessage(`{"type":"string"}`)}}}}, "requires an object"},
		{"schema an array", &chat.Prompt{Messages: user, Options: &chat.Options{Tools: []tool.Tool{
			providertest.RawTool{Name: "s", InputSchema: json.RawMessage(`[]`)}}}}, "not a JSON object"},
		{"schema not JSON", &chat.Prompt{Messages: user, Options: &chat.Options{Tools: []tool.Tool{
			providertest.RawTool{Name: "s", InputSchema: json.RawMessage(`{`)}}}}, "not JSON"},
		{"response format not an object", &chat.Prompt{Messages: user, Options: &chat.Options{ResponseFormat: &chat.ResponseFormat{Schema: json.RawMessage(`[]`)}}}, "not a JSON object"},
		{"additional fields of the wrong type", &chat.Prompt{Messages: user, Options: &chat.Options{Extra: map[string]any{ExtraAdditionalFields: "x"}}}, "want map[string]any"},
		{"additional fields not encodable", &chat.Prompt{Messages: user, Options: &chat.Options{Extra: map[string]any{ExtraAdditionalFields: map[string]any{"f": func() {}}}}}, "unsupported type"},
		{"input edit of the wrong type", &chat.Prompt{Messages: user, Options: &chat.Options{Extra: map[string]any{ExtraInput: 1}}}, "want func"},
		{"cache of the wrong type", &chat.Prompt{Messages: user, Options: &chat.Options{Extra: map[string]any{ExtraCache: "auto"}}}, "want bedrock.Cache"},
		{"five cache points", &chat.Prompt{Messages: user, Options: &chat.Options{Extra: map[string]any{ExtraCache: Cache{Messages: 5}}}}, "at most 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t)
			m := newTestModel(t, srv.URL, Config{})
			if _, err := m.Call(context.Background(), tc.p); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
			if _, err := chat.Aggregate(m.Stream(context.Background(), tc.p)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("stream error = %v, want one containing %q", err, tc.want)
			}
			if srv.Served() != 0 {
				t.Error("a request went out")
			}
		})
	}
}

// TestCachePoints: where each cache setting puts cachePoint blocks.
func TestCachePoints(t *testing.T) {
	history := []chat.Message{
		chat.System("sys"), chat.User("q1"),
		chat.Assistant("", chat.ToolCall{ID: "t1", Name: "get_weather", Arguments: `{"location":"Oslo"}`}),
		chat.ToolMessage(chat.ToolResult{ID: "t1", Name: "get_weather", Content: "cold"}),
	}
	point := `{"cachePoint":{"type":"default"}}`
	point1h := `{"cachePoint":{"type":"default","ttl":"1h"}}`
	msgs := func(p string, last int) string {
		tail := []string{"", "", ""}
		for i := 3 - last; i < 3; i++ {
			tail[i] = "," + p
		}
		return `[{"role":"user","content":[{"text":"q1"}` + tail[0] + `]},
			{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"get_weather","input":{"location":"Oslo"}}}` + tail[1] + `]},
			{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"text":"cold"}]}}` + tail[2] + `]}]`
	}
	for _, tc := range []struct {
		name  string
		cfg   Cache
		extra any
		want  string
	}{
		{"none", Cache{}, nil, `{"system":[{"text":"sys"}],"messages":` + msgs("", 0) + `,"toolConfig":{"tools":[` + weatherSpec + `]}}`},
		{"auto", CacheAuto, nil, `{"system":[{"text":"sys"},` + point + `],"messages":` + msgs(point, 1) + `,"toolConfig":{"tools":[` + weatherSpec + `,` + point + `]}}`},
		{"auto through Extra", Cache{}, true, `{"system":[{"text":"sys"},` + point + `],"messages":` + msgs(point, 1) + `,"toolConfig":{"tools":[` + weatherSpec + `,` + point + `]}}`},
		{"off for the call", CacheAuto, false, `{"system":[{"text":"sys"}],"messages":` + msgs("", 0) + `,"toolConfig":{"tools":[` + weatherSpec + `]}}`},
		{"three turns, 1h", Cache{Messages: 3, TTL: "1h"}, nil, `{"system":[{"text":"sys"}],"messages":` + msgs(point1h, 3) + `,"toolConfig":{"tools":[` + weatherSpec + `]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t, answer(t, types.StopReasonEndTurn, tokens(1, 1), &types.ContentBlockMemberText{Value: "ok"}))
			m := newTestModel(t, srv.URL, Config{Cache: tc.cfg})
			opts := &chat.Options{Tools: []tool.Tool{weatherTool()}}
			if tc.extra != nil {
				opts.Extra = map[string]any{ExtraCache: tc.extra}
			}
			if _, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: opts}); err != nil {
				t.Fatal(err)
			}
			checkBody(t, srv.Requests()[0].Body, tc.want)
		})
	}
	for _, bad := range []Cache{{Tools: true, System: true, Messages: 3}, {Messages: -1}, {TTL: "2h"}} {
		if _, err := New(context.Background(), Config{Model: "m", AWS: awstest.Config(), Cache: bad}); err == nil {
			t.Errorf("New accepted cache %+v", bad)
		}
	}
}

// TestStopReasons: every stopReason Bedrock documents maps onto a finish reason.
func TestStopReasons(t *testing.T) {
	for reason, want := range map[types.StopReason]chat.FinishReason{
		"end_turn": chat.FinishStop, "stop_sequence": chat.FinishStop, "max_tokens": chat.FinishLength,
		"model_context_window_exceeded": chat.FinishLength, "tool_use": chat.FinishToolCalls,
		"guardrail_intervened": chat.FinishContentFilter, "content_filtered": chat.FinishContentFilter,
		"malformed_model_output": chat.FinishError, "malformed_tool_use": chat.FinishError, "something_new": "something_new",
	} {
		srv := replay.NewServer(t, answer(t, reason, tokens(1, 1), &types.ContentBlockMemberText{Value: "x"}))
		resp, err := newTestModel(t, srv.URL, Config{}).Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}})
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Result().FinishReason; got != want {
			t.Errorf("%s → %q, want %q", reason, got, want)
		}
	}
}
