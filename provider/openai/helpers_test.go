package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

// testTool is a tool with a fixed definition and a Go function behind it.
type testTool struct {
	def tool.Definition
	fn  func(ctx context.Context, args string) (string, error)
}

func (t *testTool) Definition() tool.Definition { return t.def }
func (t *testTool) Metadata() tool.Metadata     { return tool.Metadata{} }
func (t *testTool) Call(ctx context.Context, args string) (string, error) {
	if t.fn == nil {
		return "", fmt.Errorf("%s is not callable in this test", t.def.Name)
	}
	return t.fn(ctx, args)
}

func newTool(name, description, schema string) *testTool {
	return &testTool{def: tool.Definition{Name: name, Description: description, InputSchema: json.RawMessage(schema)}}
}

// weatherTool is the tool of the fantasy recordings: a real Go function reading the location.
func weatherTool() *testTool {
	t := newTool("weather", "Get weather information for a location",
		`{"properties":{"location":{"description":"the city","type":"string"}},"required":["location"],"type":"object"}`)
	t.fn = func(_ context.Context, args string) (string, error) {
		var in struct {
			Location string `json:"location"`
		}
		if err := json.Unmarshal([]byte(args), &in); err != nil {
			return "", err
		}
		if !strings.HasPrefix(in.Location, "Florence") {
			return "", fmt.Errorf("no weather for %q", in.Location)
		}
		return "40 C", nil
	}
	return t
}

// runTools runs the tool calls of resp with tools and returns the history for the next turn: the
// assistant message and one tool message with a result per call.
func runTools(t testing.TB, history []chat.Message, resp *chat.Response, tools ...tool.Tool) []chat.Message {
	t.Helper()
	byName := map[string]tool.Tool{}
	for _, tl := range tools {
		byName[tl.Definition().Name] = tl
	}
	gen := resp.Result()
	if gen == nil {
		t.Fatal("no generation to run tools for")
	}
	var results []chat.ToolResult
	for _, c := range resp.ToolCalls() {
		tl, ok := byName[c.Name]
		if !ok {
			t.Fatalf("model called unknown tool %q", c.Name)
		}
		out, err := tl.Call(context.Background(), c.Arguments)
		r := chat.ToolResult{ID: c.ID, Name: c.Name, Content: out}
		if err != nil {
			r.Content, r.IsError = err.Error(), true
		}
		results = append(results, r)
	}
	return append(append(history, gen.Message), chat.ToolMessage(results...))
}

// collect drains a stream, returning the chunks and the aggregated response.
func collect(t testing.TB, m chat.Model, p *chat.Prompt) ([]*chat.Response, *chat.Response, error) {
	t.Helper()
	var chunks []*chat.Response
	var agg chat.Aggregator
	for r, err := range m.Stream(context.Background(), p) {
		if err != nil {
			return chunks, agg.Response(), err
		}
		chunks = append(chunks, r)
		agg.Add(r)
	}
	return chunks, agg.Response(), nil
}

// stripRaw drops Raw, which aggregation does not carry and tests do not compare.
func stripRaw(r *chat.Response) *chat.Response {
	if r == nil {
		return nil
	}
	c := *r
	c.Raw = nil
	return &c
}

func assertResponse(t testing.TB, got, want *chat.Response) {
	t.Helper()
	got, want = stripRaw(got), stripRaw(want)
	if !providertest.Same(t, "the response and the recorded one", got, want) {
		t.FailNow()
	}
}

// replayCase is one recorded single-turn exchange replayed by [runReplay].
type replayCase struct {
	name   string
	cfg    Config
	prompt *chat.Prompt
	stream bool
	norms  []normalizer
	// want builds the expected answer; body is the recorded response, for long texts read
	// independently of the code under test.
	want func(t *testing.T, body []byte) *chat.Response
}

// runReplay replays each case's recording (testdata/<api>/<name>) through the API's model, called
// or streamed: the answer must be the expected one, a stream must pass its deltas on as they
// come, and the request must go to path and mean the same as the recorded one.
func runReplay(t *testing.T, api apiCase, path string, cases []replayCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exs := providertest.Load(t, api.name, tc.name)
			srv := replay.NewServer(t, exs...)
			m := api.newM(t, srv.URL+"/v1", tc.cfg)
			var got *chat.Response
			var err error
			if tc.stream {
				var chunks []*chat.Response
				chunks, got, err = collect(t, m, tc.prompt)
				if err == nil && len(chunks) < 3 {
					t.Errorf("a stream of %d chunks: deltas were not passed on as they came", len(chunks))
				}
			} else {
				got, err = m.Call(context.Background(), tc.prompt)
			}
			if err != nil {
				t.Fatal(err)
			}
			assertResponse(t, got, tc.want(t, exs[0].Body))
			req := srv.Requests()[0]
			if req.Path != path || req.Method != http.MethodPost {
				t.Errorf("request %s %s, want POST %s", req.Method, req.Path, path)
			}
			if exs[0].RequestBody != nil {
				assertSameRequest(t, req.Body, exs[0].RequestBody, tc.norms...)
			}
		})
	}
}

// toolLoopCase is one recorded tool loop, replayed by [runToolLoops]: the model calls the weather
// tool for Florence, a real Go tool answers, and the model answers with the result.
type toolLoopCase struct {
	name   string
	cfg    Config
	stream bool
	// callID and firstUsage are the first answer's; finalText and finalUsage the last one's.
	callID                 string
	firstUsage, finalUsage chat.Usage
	finalText              string
	norms                  []normalizer
	// checkFirst, when set, checks more of the first answer.
	checkFirst func(t *testing.T, first *chat.Response)
}

// runToolLoops replays each case's recording (testdata/<api>/<name>) through the API's model,
// called or streamed: the first answer must be one weather call, the tool's result must reach the
// second request, every request must mean the same as the recorded one, and the final answer
// must be the recorded one.
func runToolLoops(t *testing.T, api apiCase, cases []toolLoopCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exs := providertest.Load(t, api.name, tc.name)
			srv := replay.NewServer(t, exs...)
			m := api.newM(t, srv.URL+"/v1", tc.cfg)
			weather := weatherTool()
			opts := &chat.Options{Tools: []tool.Tool{weather}, ToolChoice: "auto"}
			history := fantasyPrompt("What's the weather in Florence,Italy?", nil).Messages
			first := providertest.Answer(t, m, &chat.Prompt{Messages: history, Options: opts}, tc.stream)
			calls := first.ToolCalls()
			if len(calls) != 1 || calls[0].ID != tc.callID || calls[0].Name != "weather" || calls[0].Arguments != `{"location":"Florence, Italy"}` {
				t.Fatalf("tool calls = %+v", calls)
			}
			if first.Usage != tc.firstUsage || first.Result().FinishReason != chat.FinishToolCalls {
				t.Fatalf("usage %+v finish %q", first.Usage, first.Result().FinishReason)
			}
			if tc.checkFirst != nil {
				tc.checkFirst(t, first)
			}
			history = runTools(t, history, first, weather)
			final := providertest.Answer(t, m, &chat.Prompt{Messages: history, Options: opts}, tc.stream)
			if final.Text() != tc.finalText || final.Usage != tc.finalUsage || final.Result().FinishReason != chat.FinishStop {
				t.Fatalf("final answer %q usage %+v finish %q", final.Text(), final.Usage, final.Result().FinishReason)
			}
			reqs := srv.Requests()
			for i := range exs {
				assertSameRequest(t, reqs[i].Body, exs[i].RequestBody, tc.norms...)
			}
		})
	}
}

// normalizer rewrites a parsed request body into the form compared; each one states why a
// difference does not matter.
type normalizer func(body map[string]any)

// assertSameRequest compares the request wield sent with the recorded one, as parsed JSON after
// the given normalizers ran on both.
func assertSameRequest(t testing.TB, got, recorded []byte, norms ...normalizer) {
	t.Helper()
	var g, w map[string]any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(recorded, &w); err != nil {
		t.Fatalf("recorded request body is not JSON: %v", err)
	}
	for _, n := range norms {
		n(g)
		n(w)
	}
	if !providertest.Same(t, "the request and the recorded one", g, w) {
		t.FailNow()
	}
}

// dropFalseStrict removes "strict": false from chat function definitions: false is the default,
// and wield leaves the field out unless strict mode is on, because some OpenAI-compatible servers
// reject it.
func dropFalseStrict(body map[string]any) {
	for _, t := range asList(body["tools"]) {
		tm, _ := t.(map[string]any)
		fn, _ := tm["function"].(map[string]any)
		if fn["strict"] == false {
			delete(fn, "strict")
		}
	}
}

// joinTextParts turns a message content given as text parts into one string with the parts on
// separate lines: wield sends a message's text as one string.
func joinTextParts(key string) normalizer {
	return func(body map[string]any) {
		for _, m := range asList(body[key]) {
			mm, _ := m.(map[string]any)
			parts, ok := mm["content"].([]any)
			if !ok {
				continue
			}
			var texts []string
			for _, p := range parts {
				pm, _ := p.(map[string]any)
				if s, ok := pm["text"].(string); ok {
					texts = append(texts, s)
				}
			}
			mm["content"] = strings.Join(texts, "\n")
		}
	}
}

// developerAsSystem reads the developer role as system: the recording client sent its system
// prompt as "developer" to a reasoning model; wield sends "system", which OpenAI applies as
// developer instructions for those models.
func developerAsSystem(body map[string]any) {
	for _, m := range asList(body["input"]) {
		if mm, _ := m.(map[string]any); mm["role"] == "developer" {
			mm["role"] = "system"
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// sseText is an independent reading of a recorded Chat Completions stream: the text of choice 0.
func sseText(t testing.TB, body []byte) string {
	t.Helper()
	var b strings.Builder
	for _, d := range replay.SSEData(body) {
		var chunk struct {
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(d, &chunk); err != nil {
			t.Fatalf("recorded chunk: %v", err)
		}
		for _, c := range chunk.Choices {
			if c.Index == 0 {
				b.WriteString(c.Delta.Content)
			}
		}
	}
	return b.String()
}

// sseResponsesText is an independent reading of a recorded Responses stream: the text of its
// output_text deltas.
func sseResponsesText(t testing.TB, body []byte) string {
	t.Helper()
	var b strings.Builder
	for _, d := range replay.SSEData(body) {
		var ev struct {
			Type  string `json:"type"`
			Delta string `json:"delta"`
		}
		if err := json.Unmarshal(d, &ev); err != nil {
			t.Fatalf("recorded event: %v", err)
		}
		if ev.Type == "response.output_text.delta" {
			b.WriteString(ev.Delta)
		}
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }

// newTestModel returns the model newModel (New or NewResponses) builds for the server at url,
// with a test key unless cfg has one.
func newTestModel[M chat.Model](t testing.TB, newModel func(Config) (M, error), url string, cfg Config) M {
	t.Helper()
	cfg.BaseURL = url
	if cfg.APIKey == "" {
		cfg.APIKey = "test-key"
	}
	m, err := newModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
