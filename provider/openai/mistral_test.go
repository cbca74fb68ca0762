package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

// mistralValid is the id rule Mistral enforces on tool calls sent back.
var mistralValid = regexp.MustCompile(`^[a-zA-Z0-9]{9}$`)

// TestMistralToolLoop replays Mistral's recorded tool call (only the answers were recorded: a
// 9-character id, no type on the call, no content key; streamed whole in one chunk with the
// finish reason and usage), called and streamed, then continues the loop with a made-up final
// answer: the second request sends the call back with its id, and the result with the same id
// and the tool's name, without the stream_options Mistral's schema does not define.
func TestMistralToolLoop(t *testing.T) {
	final := providertest.JSONError(http.StatusOK, `{"id":"f","object":"chat.completion","model":"mistral-small-latest","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"It is sunny in San Francisco."}}],"usage":{"prompt_tokens":160,"completion_tokens":8,"total_tokens":168}}`)
	for _, tc := range []struct {
		name   string
		stream bool
	}{{"vercel-tool-call-mistral-small-latest", false}, {"vercel-tool-call-stream-mistral-small-latest", true}} {
		t.Run(tc.name, func(t *testing.T) {
			exs := providertest.Load(t, "mistral", tc.name)
			last := final
			if tc.stream {
				last = replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte(
					`data: {"id":"f","object":"chat.completion.chunk","model":"mistral-small-latest","choices":[{"index":0,"delta":{"role":"assistant","content":"It is sunny."},"finish_reason":"stop"}],"usage":{"prompt_tokens":160,"completion_tokens":8,"total_tokens":168}}` + "\n\ndata: [DONE]\n\n")}
			}
			srv := replay.NewServer(t, exs[0], last)
			m := newTestModel(t, NewMistral, srv.URL+"/v1", Config{Model: "mistral-small-latest"})
			weather := newTool("weather", "Get the weather in a location", `{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`)
			weather.fn = func(context.Context, string) (string, error) { return "sunny", nil }
			opts := &chat.Options{Tools: []tool.Tool{weather}}
			history := []chat.Message{chat.User("What is the weather in San Francisco?")}
			first, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: history, Options: opts}, tc.stream)
			if err != nil {
				t.Fatal(err)
			}
			want := callResponse("b3999b8c93e04e11bcbff7bcab829667", "mistral-small-latest", usage(124, 22),
				chat.ToolCall{ID: "gSIMJiOkT", Name: "weather", Arguments: `{"location": "San Francisco"}`})
			assertResponse(t, first, want)
			history = runTools(t, history, first, weather)
			if _, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: history, Options: opts}, tc.stream); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			var second map[string]any
			if err := json.Unmarshal(reqs[1].Body, &second); err != nil {
				t.Fatal(err)
			}
			msgs := asList(second["messages"])
			call := asList(msgs[1].(map[string]any)["tool_calls"])[0].(map[string]any)
			result := msgs[2].(map[string]any)
			if call["id"] != "gSIMJiOkT" || result["tool_call_id"] != "gSIMJiOkT" || result["name"] != "weather" || result["content"] != "sunny" {
				t.Fatalf("call %v, result %v", call, result)
			}
			for i, r := range reqs {
				if r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" || strings.Contains(string(r.Body), "stream_options") {
					t.Errorf("request %d: %s %v %s", i+1, r.Path, r.Header.Get("Authorization"), r.Body)
				}
			}
		})
	}
}

// TestMistralToolCallIDs checks that a history with other providers' ids (and calls without
// one) goes to Mistral with ids of 9 letters and digits, each result with its call's id, the
// same ids on every request, and Mistral's own ids unchanged.
func TestMistralToolCallIDs(t *testing.T) {
	history := []chat.Message{
		chat.User("weather?"),
		chat.Assistant("", chat.ToolCall{ID: "call_Z8ofZnYOCeOnpu0h2auwOgeR", Name: "weather", Arguments: `{}`},
			chat.ToolCall{ID: "get_weather:0", Name: "weather", Arguments: `{}`},
			chat.ToolCall{ID: "gSIMJiOkT", Name: "weather", Arguments: `{}`},
			chat.ToolCall{Name: "time"}),
		chat.ToolMessage(chat.ToolResult{ID: "call_Z8ofZnYOCeOnpu0h2auwOgeR", Name: "weather", Content: "a"},
			chat.ToolResult{ID: "get_weather:0", Content: "b"},
			chat.ToolResult{ID: "gSIMJiOkT", Name: "weather", Content: "c"},
			chat.ToolResult{Name: "time", Content: "d"}),
	}
	var sent [][]any
	for range 2 {
		msgs, err := (chatWire{mistral: true}).messages(history)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(msgs)
		var got []map[string]any
		json.Unmarshal(b, &got)
		var ids []any
		for _, c := range asList(got[1]["tool_calls"]) {
			ids = append(ids, c.(map[string]any)["id"])
		}
		for i, r := range got[2:] {
			if r["tool_call_id"] != ids[i] {
				t.Fatalf("result %d answers %v, the call's id is %v", i, r["tool_call_id"], ids[i])
			}
			if r["name"] == nil {
				t.Errorf("result %d has no name", i)
			}
		}
		for _, id := range ids {
			if !mistralValid.MatchString(id.(string)) {
				t.Errorf("id %v breaks Mistral's rule", id)
			}
		}
		if ids[2] != "gSIMJiOkT" || ids[0] == ids[1] {
			t.Errorf("ids %v", ids)
		}
		sent = append(sent, ids)
	}
	if b0, b1 := sent[0], sent[1]; strings.Join(strs(b0), ",") != strings.Join(strs(b1), ",") {
		t.Errorf("ids differ between requests: %v %v", b0, b1)
	}
	ids := newMistralIDs()
	ids.taken["abcdefghi"] = true
	if w := ids.id("abcdefghi"); w == "abcdefghi" || !mistralValid.MatchString(w) {
		t.Errorf("an id taken already kept: %q", w)
	}
}

func strs(v []any) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i], _ = x.(string)
	}
	return out
}

// TestMistralAnswers covers answer shapes of Mistral's API description that no recording has:
// two whole tool calls in one streamed delta without index, Magistral's content chunks (thinking
// and text), called and streamed, the finish reason model_length, and num_cached_tokens.
func TestMistralAnswers(t *testing.T) {
	sse := func(chunks ...string) replay.Exchange {
		var b strings.Builder
		for _, c := range chunks {
			b.WriteString("data: " + c + "\n\n")
		}
		b.WriteString("data: [DONE]\n\n")
		return replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte(b.String())}
	}
	t.Run("unindexed calls", func(t *testing.T) {
		srv := replay.NewServer(t, sse(
			`{"id":"a","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
			`{"id":"a","model":"m","choices":[{"index":0,"delta":{"content":null,"tool_calls":[{"id":"AAAAAAAA1","function":{"name":"weather","arguments":"{\"location\": \"Rome\"}"}},{"id":"AAAAAAAA2","function":{"name":"weather","arguments":"{\"location\": \"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"total_tokens":30,"completion_tokens":20}}`))
		r, err := chat.Aggregate(newTestModel(t, NewMistral, srv.URL, Config{Model: "m"}).Stream(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}))
		if err != nil {
			t.Fatal(err)
		}
		assertResponse(t, r, callResponse("a", "m", usage(10, 20),
			chat.ToolCall{ID: "AAAAAAAA1", Name: "weather", Arguments: `{"location": "Rome"}`},
			chat.ToolCall{ID: "AAAAAAAA2", Name: "weather", Arguments: `{"location": "Paris"}`, Index: 1}))
	})
	thinking := chat.Reasoning{Provider: MistralProvider, Text: "Two plus two is four."}
	t.Run("thinking chunks", func(t *testing.T) {
		srv := replay.NewServer(t, providertest.JSONError(http.StatusOK, `{"id":"b","object":"chat.completion","model":"magistral-medium-latest","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Two plus two is four."}]},{"type":"text","text":"4"}]}}],"usage":{"prompt_tokens":10,"completion_tokens":12,"total_tokens":22,"num_cached_tokens":8}}`))
		r, err := newTestModel(t, NewMistral, srv.URL, Config{Model: "m"}).Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("2+2?")}})
		if err != nil {
			t.Fatal(err)
		}
		want := textResponse("b", "magistral-medium-latest", "4", chat.FinishStop, chat.Usage{InputTokens: 10, OutputTokens: 12, TotalTokens: 22, CachedInputTokens: 8})
		want.Generations[0].Message.Reasoning = []chat.Reasoning{thinking}
		assertResponse(t, r, want)
	})
	t.Run("thinking chunks streamed", func(t *testing.T) {
		srv := replay.NewServer(t, sse(
			`{"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Two plus "}]}]},"finish_reason":null}]}`,
			`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"two is four."}]}]},"finish_reason":null}]}`,
			`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"4"},"finish_reason":null}]}`,
			`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":""},"finish_reason":"model_length"}],"usage":{"prompt_tokens":10,"completion_tokens":12,"total_tokens":22}}`))
		r, err := chat.Aggregate(newTestModel(t, NewMistral, srv.URL, Config{Model: "m"}).Stream(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("2+2?")}}))
		if err != nil {
			t.Fatal(err)
		}
		want := textResponse("c", "m", "4", chat.FinishLength, usage(10, 12))
		want.Generations[0].Message.Reasoning = []chat.Reasoning{thinking}
		assertResponse(t, r, want)
	})
}

// TestMistralConfig checks NewMistral's defaults and errors, and that New recognises Mistral's
// base URL.
func TestMistralConfig(t *testing.T) {
	t.Setenv("MISTRAL_API_KEY", "")
	if _, err := NewMistral(Config{Model: "m"}); err == nil {
		t.Error("NewMistral without a key")
	}
	t.Setenv("MISTRAL_API_KEY", "env-key")
	m, err := NewMistral(Config{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if !m.mistral || m.baseURL != DefaultMistralBaseURL || m.maxTokensField != "max_tokens" {
		t.Errorf("model %+v", m)
	}
	if m, err := New(Config{BaseURL: "https://api.mistral.ai/v1", APIKey: "k"}); err != nil || !m.mistral {
		t.Errorf("New on api.mistral.ai: mistral=%v err=%v", m != nil && m.mistral, err)
	}
	srv := replay.NewServer(t)
	_, err = newTestModel(t, NewMistral, srv.URL, Config{Model: "m", Store: ptr(true)}).Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}})
	if err == nil || !strings.Contains(err.Error(), "Store") || srv.Served() != 0 {
		t.Errorf("Store on Mistral: %v", err)
	}
}
