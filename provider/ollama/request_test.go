package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

func TestMessages(t *testing.T) {
	msgs := []chat.Message{
		chat.System("be brief"),
		chat.User("weather in Paris and Rome?"),
		{
			Role: chat.RoleAssistant, Content: "Checking.",
			Reasoning: []chat.Reasoning{
				{Provider: "anthropic", Text: "not for ollama", Signature: "x"},
				{Provider: "ollama", Text: "Two cities, "},
				{Provider: "ollama", Text: "two calls."},
			},
			ToolCalls: []chat.ToolCall{
				{ID: "call_7", Name: "weather", Arguments: `{"city":"Paris","unit":"C"}`},
				{ID: syntheticIDPrefix + "r-1", Name: "weather", Arguments: ``, Index: 1},
			},
		},
		chat.ToolMessage(chat.ToolResult{ID: "call_7", Content: `{"temp": 21}`}),
		chat.ToolMessage(chat.ToolResult{ID: syntheticIDPrefix + "r-1", Name: "weather", Content: "no data for Rome", IsError: true}),
		chat.User("and tomorrow?"),
	}
	got, err := messages(msgs)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	want := `[{"role":"system","content":"be brief"},{"role":"user","content":"weather in Paris and Rome?"},` +
		`{"role":"assistant","content":"Checking.","thinking":"Two cities, two calls.","tool_calls":[` +
		`{"id":"call_7","function":{"index":0,"name":"weather","arguments":{"city":"Paris","unit":"C"}}},` +
		`{"function":{"index":1,"name":"weather","arguments":{}}}]},` +
		`{"role":"tool","content":"{\"temp\": 21}","tool_name":"weather","tool_call_id":"call_7"},` +
		`{"role":"tool","content":"Error: no data for Rome","tool_name":"weather"},` +
		`{"role":"user","content":"and tomorrow?"}]`
	if string(b) != want {
		t.Fatalf("messages:\n got %s\nwant %s", b, want)
	}
}

func TestMessagesErrors(t *testing.T) {
	tests := []struct {
		name string
		msgs []chat.Message
		want string
	}{
		{"unknown role", []chat.Message{{Role: "robot"}}, `unknown role "robot"`},
		{"result for no call", []chat.Message{chat.ToolMessage(chat.ToolResult{ID: "x", Content: "1"})}, "names no tool"},
		{"arguments not an object", []chat.Message{chat.Assistant("", chat.ToolCall{ID: "a", Name: "f", Arguments: `[1]`})}, "not a JSON object"},
		{"garbled arguments", []chat.Message{chat.Assistant("", chat.ToolCall{ID: "a", Name: "f", Arguments: `{"a":`})}, "not a JSON object"},
		{"call without name", []chat.Message{chat.Assistant("", chat.ToolCall{ID: "a"})}, "has no name"},
	}
	for _, tt := range tests {
		if _, err := messages(tt.msgs); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestOptions(t *testing.T) {
	var order []string
	m, err := New(Config{Model: "base", Temperature: chat.Ptr(0.5), MaxTokens: 64,
		Configure: func(*api.ChatRequest) { order = append(order, "config") }})
	if err != nil {
		t.Fatal(err)
	}
	req, err := m.request(&chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{
		Model: "other", Temperature: chat.Ptr(0.25), TopP: chat.Ptr(0.9), Seed: chat.Ptr(int64(7)), Stop: []string{"END"},
		ResponseFormat: &chat.ResponseFormat{Schema: json.RawMessage(`{"type":"object"}`)},
		Extra: map[string]any{
			ExtraThink: "high", ExtraKeepAlive: 10 * time.Minute, ExtraOptions: map[string]any{"num_ctx": 8192, "temperature": 0.1},
			ExtraConfigure:     func(r *api.ChatRequest) { order = append(order, "extra"); r.Truncate = new(bool) },
			"gemini.top_k":     3,
			"unrelated.option": true,
		},
	}}, true)
	if err != nil {
		t.Fatal(err)
	}
	wantOptions := map[string]any{"temperature": 0.1, "top_p": 0.9, "seed": int64(7), "num_predict": 64, "stop": []string{"END"}, "num_ctx": 8192}
	if req.Model != "other" || !*req.Stream || !reflect.DeepEqual(req.Options, wantOptions) ||
		string(req.Format) != `{"type":"object"}` || req.Think.String() != "high" || req.KeepAlive.Duration != 10*time.Minute ||
		req.Truncate == nil || !reflect.DeepEqual(order, []string{"config", "extra"}) {
		t.Fatalf("request %s, order %v", providertest.Indent(req), order)
	}

	req, err = m.request(&chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{
		ResponseFormat: &chat.ResponseFormat{}, Extra: map[string]any{ExtraThink: false, ExtraKeepAlive: "-1s"},
	}}, false)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(req)
	for _, want := range []string{`"model":"base"`, `"stream":false`, `"format":"json"`, `"think":false`, `"keep_alive":-1`, `"temperature":0.5`, `"num_predict":64`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("request %s lacks %s", b, want)
		}
	}
}

func TestToolChoice(t *testing.T) {
	m, _ := New(Config{Model: "m"})
	tools := []tool.Tool{weatherTool(t)}
	for choice, want := range map[string]int{"": 1, "auto": 1, "none": 0} {
		req, err := m.request(&chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{Tools: tools, ToolChoice: choice}}, false)
		if err != nil || len(req.Tools) != want {
			t.Errorf("%q: %v, %d tools", choice, err, len(req.Tools))
		}
	}
}

func TestRequestErrors(t *testing.T) {
	weather := weatherTool(t)
	bad := providertest.RawTool{Name: "bad", InputSchema: json.RawMessage(`{"type":"string"}`)}
	tests := []struct {
		name  string
		model string
		opts  *chat.Options
		want  string
	}{
		{"no model", "", &chat.Options{}, "no model"},
		{"several generations", "m", &chat.Options{N: 2}, "one generation"},
		{"required tool", "m", &chat.Options{Tools: []tool.Tool{weather}, ToolChoice: "required"}, "cannot force"},
		{"named tool", "m", &chat.Options{Tools: []tool.Tool{weather}, ToolChoice: "get_weather"}, "cannot force"},
		{"duplicate tools", "m", &chat.Options{Tools: []tool.Tool{weather, weather}}, "two tools are named"},
		{"nil tool", "m", &chat.Options{Tools: []tool.Tool{nil}}, "is nil"},
		{"schema not an object", "m", &chat.Options{Tools: []tool.Tool{bad}}, "must describe an object"},
		{"bad format", "m", &chat.Options{ResponseFormat: &chat.ResponseFormat{Schema: json.RawMessage(`{`)}}, "not valid JSON"},
		{"bad think", "m", &chat.Options{Extra: map[string]any{ExtraThink: "extreme"}}, "want true, false"},
		{"bad think type", "m", &chat.Options{Extra: map[string]any{ExtraThink: 1}}, "bool or a string"},
		{"bad options", "m", &chat.Options{Extra: map[string]any{ExtraOptions: "x"}}, "map[string]any"},
		{"bad keep alive", "m", &chat.Options{Extra: map[string]any{ExtraKeepAlive: "soon"}}, "keep_alive"},
		{"bad keep alive type", "m", &chat.Options{Extra: map[string]any{ExtraKeepAlive: 5}}, "time.Duration"},
		{"bad configure", "m", &chat.Options{Extra: map[string]any{ExtraConfigure: func() {}}}, "func(*api.ChatRequest)"},
	}
	for _, tt := range tests {
		m, _ := New(Config{Model: tt.model})
		if _, err := m.request(&chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: tt.opts}, false); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	m, _ := New(Config{Model: "m"})
	if _, err := m.request(nil, false); err == nil {
		t.Error("nil prompt accepted")
	}
}

// route is recursive: wield infers it with $defs and $ref.
type route struct {
	Via  string `json:"via"`
	Next *route `json:"next,omitempty"`
}

type place struct {
	Name string `json:"name" jsonschema:"the place"`
	Kind string `json:"kind,omitempty"`
}

// trip is a tool input with what wield's schema inference produces.
type trip struct {
	Route   *route            `json:"route,omitempty" jsonschema:"how to get there"`
	To      place             `json:"to"`
	Stops   []place           `json:"stops"`
	Nights  *int              `json:"nights"`
	Tags    map[string]string `json:"tags,omitempty"`
	Arrival time.Time         `json:"arrival"`
}

// TestToolParametersBesideRef: keywords beside a $ref are rewritten as any schema's: oneOf
// becomes anyOf and const an enum (Ollama would drop both), and a property named like a keyword
// keeps its name.
func TestToolParametersBesideRef(t *testing.T) {
	p, err := toolParameters(json.RawMessage(`{"type":"object","properties":{
		"mode": {"$ref": "#/$defs/leaf", "oneOf": [{"type": "string"}, {"type": "integer"}]},
		"fixed": {"$ref": "#/$defs/leaf", "const": "x"},
		"opts": {"$ref": "#/$defs/obj", "properties": {"oneOf": {"type": "string"}}}
	},"$defs":{"leaf":{"description":"a leaf"},"obj":{"type":"object"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"mode":{"anyOf":[{"type":"string"},{"type":"integer"}],"description":"a leaf"}`,
		`"fixed":{"description":"a leaf","enum":["x"]}`,
		`"opts":{"type":"object","properties":{"oneOf":{"type":"string"}}}`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("parameters %s\nwant them to hold %s", got, want)
		}
	}
}

// TestToolParameters converts schemas to Ollama's tool parameters and compares them with golden
// files (go test -run TestToolParameters -update rewrites them).
func TestToolParameters(t *testing.T) {
	inferred := providertest.Tool(t, "trip", "", func(context.Context, trip) (string, error) { return "", nil }).Definition().InputSchema
	tests := []struct {
		name   string
		schema string
	}{
		{"inferred-trip", string(inferred)},
		{"refs-and-keywords", `{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type": "object",
			"properties": {
				"zeta": {"$ref": "#/$defs/node", "description": "the tree"},
				"alpha": {"const": "fixed"},
				"mode": {"oneOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "integer"}]},
				"list": {"type": "array", "items": {"$ref": "#/$defs/leaf"}}
			},
			"required": ["zeta"],
			"$defs": {
				"node": {"type": "object", "description": "a node", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}, "leaf": {"$ref": "#/$defs/leaf"}}},
				"leaf": {"type": "string", "description": "a leaf"}
			}}`},
		{"no parameters", `{"type":"object","additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := toolParameters(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			got := providertest.GoldenJSON(t, filepath.Join("testdata", "schema", strings.ReplaceAll(tt.name, " ", "-")+".golden.json"), p)
			if strings.Contains(string(got), "$ref") || strings.Contains(string(got), "$defs") {
				t.Fatal("references left in the output")
			}
		})
	}
	for schema, want := range map[string]string{
		`[1]`: "must be a JSON object",
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}}}`:  "points nowhere",
		`{"type":"object","properties":{"a":{"$ref":"http://x/y"}}}`: "only local",
		`{"type":"array"}`: "must describe an object",
		`{"type":`:         "invalid JSON Schema",
	} {
		if _, err := toolParameters(json.RawMessage(schema)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", schema, err, want)
		}
	}
}

func TestFinishReasons(t *testing.T) {
	tests := []struct {
		in    string
		calls bool
		want  chat.FinishReason
	}{
		{"stop", false, chat.FinishStop},
		{"stop", true, chat.FinishToolCalls},
		{"", false, chat.FinishStop},
		{"length", true, chat.FinishLength},
		{"unload", false, "unload"},
	}
	for _, tt := range tests {
		if got := finishReason(tt.in, tt.calls); got != tt.want {
			t.Errorf("finishReason(%q, %v) = %q, want %q", tt.in, tt.calls, got, tt.want)
		}
	}
}

// TestThinking proves streamed thinking becomes one Reasoning item, yielded when the answer
// starts, never mixed into the text, and goes back in the next request's "thinking"; call ids
// the server sends are kept.
func TestThinking(t *testing.T) {
	lines := []string{
		`{"model":"qwen3","message":{"role":"assistant","content":"","thinking":"The user wants "},"done":false}`,
		`{"model":"qwen3","message":{"role":"assistant","content":"","thinking":"the weather."},"done":false}`,
		`{"model":"qwen3","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_a","function":{"index":0,"name":"get_weather","arguments":{"city":"Oslo"}}}]},"done":false}`,
		`{"model":"qwen3","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_b","function":{"index":1,"name":"get_weather","arguments":{"city":"Bergen"}}}]},"done":false}`,
		`{"model":"qwen3","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":30,"eval_count":12}`,
	}
	final := `{"model":"qwen3","message":{"role":"assistant","content":"Cold in both."},"done":true,"done_reason":"stop"}` + "\n"
	srv := replay.NewServer(t,
		replay.Exchange{Header: ndjsonHeader(), Body: []byte(strings.Join(lines, "\n") + "\n")},
		replay.Exchange{Header: jsonHeader(), Body: []byte(final)})
	m, _ := newTestModel(t, srv.URL, Config{Model: "qwen3"})
	tools := []tool.Tool{weatherTool(t)}
	history := []chat.Message{chat.User("weather in Oslo and Bergen?")}
	p := &chat.Prompt{Messages: history, Options: &chat.Options{Tools: tools, Extra: map[string]any{ExtraThink: true}}}
	var agg chat.Aggregator
	n := 0
	for chunk, err := range m.Stream(context.Background(), p) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if r := chunk.Generations[0].Message.Reasoning; len(r) > 0 && n != 3 {
			t.Fatalf("reasoning in chunk %d", n)
		}
		if _, ok := chunk.Raw.(*api.ChatResponse); !ok {
			t.Fatalf("raw is %T", chunk.Raw)
		}
		agg.Add(chunk)
	}
	resp := agg.Response()
	want := chat.Message{Role: chat.RoleAssistant,
		Reasoning: []chat.Reasoning{{Provider: "ollama", Text: "The user wants the weather."}},
		ToolCalls: []chat.ToolCall{
			{Index: 0, ID: "call_a", Name: "get_weather", Arguments: `{"city":"Oslo"}`},
			{Index: 1, ID: "call_b", Name: "get_weather", Arguments: `{"city":"Bergen"}`},
		}}
	if g := resp.Generations[0]; !reflect.DeepEqual(g.Message, want) || g.FinishReason != chat.FinishToolCalls ||
		resp.Usage != (chat.Usage{InputTokens: 30, OutputTokens: 12, TotalTokens: 42}) {
		t.Fatalf("response %s", providertest.Indent(resp))
	}
	history = providertest.Execute(t, p, resp)
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: p.Options}); err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Think    bool          `json:"think"`
		Messages []api.Message `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[1].Body, &sent); err != nil {
		t.Fatal(err)
	}
	if !sent.Think || len(sent.Messages) != 4 || sent.Messages[1].Thinking != "The user wants the weather." ||
		sent.Messages[2].ToolCallID != "call_a" || sent.Messages[3].ToolCallID != "call_b" || sent.Messages[3].ToolName != "get_weather" {
		t.Fatalf("sent %s", srv.Requests()[1].Body)
	}
}

func TestHost(t *testing.T) {
	tests := []struct {
		env, base, want string
		wantErr         bool
	}{
		{want: "http://127.0.0.1:11434"},
		{env: "0.0.0.0:8080", want: "http://0.0.0.0:8080"},
		{env: "https://ollama.example.com", want: "https://ollama.example.com:443"},
		{env: "ignored:1", base: "http://10.0.0.2:11434", want: "http://10.0.0.2:11434"},
		{base: "gpu-box:11434", want: "http://gpu-box:11434"},
		{base: "ftp://x", wantErr: true},
	}
	for _, tt := range tests {
		t.Setenv("OLLAMA_HOST", tt.env)
		m, err := New(Config{BaseURL: tt.base, Model: "m"})
		if tt.wantErr {
			if err == nil {
				t.Errorf("%q accepted", tt.base)
			}
			continue
		}
		if err != nil || m.BaseURL() != tt.want {
			t.Errorf("env %q base %q: %v %q, want %q", tt.env, tt.base, err, m.BaseURL(), tt.want)
		}
	}
	m, _ := New(Config{Model: "llama3.2"})
	if m.Info() != (chat.Info{Provider: "ollama", Model: "llama3.2"}) || m.Client() == nil {
		t.Fatalf("info %+v", m.Info())
	}
}

// Images travel as bytes on their message (a tool's on its result); text documents join the
// text; URLs, PDFs and audio are refused before any request.
func TestMessageParts(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	out, err := messages([]chat.Message{
		chat.User("compare", content.Image(png, "image/png"), content.Document([]byte("x,y"), "text/csv", "d.csv")),
		chat.Assistant("", chat.ToolCall{ID: "c1", Name: "shot", Arguments: `{}`}),
		chat.ToolMessage(chat.ToolResult{ID: "c1", Name: "shot", Content: "screen:", Parts: []content.Part{content.Image(png, "image/png")}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Content != "compare\nd.csv:\nx,y" || len(out[0].Images) != 1 || string(out[0].Images[0]) != string(png) {
		t.Errorf("user message %+v", out[0])
	}
	if out[2].Role != "tool" || out[2].Content != "screen:" || len(out[2].Images) != 1 {
		t.Errorf("tool message %+v", out[2])
	}
	// Refused, wherever the part is, called or streamed: what Ollama does not take, and
	// malformed parts.
	for _, tc := range []struct {
		part content.Part
		want string
	}{
		{content.ImageURL("https://example.com/a.png"), "ollama: cannot send an image part by URL: Ollama takes image bytes, not URLs"},
		{content.Image([]byte("RIFF\x00\x00\x00\x00WEBPVP8 "), "image/webp"), "ollama: cannot send an image part (image/webp): Ollama reads PNG and JPEG images"},
		{content.Image(png, "image/x-unknown"), "ollama: cannot send an image part (image/x-unknown)"},
		{content.Document([]byte("%PDF-"), "application/pdf", "a.pdf"), "ollama: cannot send a document part (application/pdf): Ollama takes text and images"},
		{content.Document([]byte("\xff\xfe"), "text/plain", "bad.txt"), "ollama: cannot send a document part (text/plain)"},
		{content.Audio([]byte("RIFF"), "audio/wav"), "ollama: cannot send an audio part (audio/wav)"},
		{content.Image(nil, "image/png"), "no data"},
		{content.Image(png, "png"), "not a media type"},
		{content.Part{Kind: "video", Data: png, MediaType: "video/mp4"}, `unknown part kind "video"`},
	} {
		for _, where := range []string{"user", "system", "answer", "tool result"} {
			msgs := []chat.Message{chat.User("look", tc.part)}
			switch where {
			case "system":
				msgs = []chat.Message{{Role: chat.RoleSystem, Content: "be brief", Parts: []content.Part{tc.part}}, chat.User("look")}
			case "answer":
				msgs = []chat.Message{chat.User("look"), {Role: chat.RoleAssistant, Content: "here", Parts: []content.Part{tc.part}}, chat.User("and?")}
			case "tool result":
				msgs = []chat.Message{chat.User("look"), chat.Assistant("", chat.ToolCall{ID: "c1", Name: "shot", Arguments: `{}`}),
					chat.ToolMessage(chat.ToolResult{ID: "c1", Name: "shot", Parts: []content.Part{tc.part}})}
			}
			srv := replay.NewServer(t)
			m, err := New(Config{BaseURL: srv.URL, Model: "llava"})
			if err != nil {
				t.Fatal(err)
			}
			for _, stream := range []bool{false, true} {
				_, err = providertest.Run(context.Background(), m, &chat.Prompt{Messages: msgs}, stream)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s in %s (stream %v): err = %v, want %q", tc.part, where, stream, err, tc.want)
				}
				var u *content.Unsupported
				if strings.Contains(tc.want, "cannot send") != errors.As(err, &u) {
					t.Errorf("%s in %s: %v: *content.Unsupported is %v", tc.part, where, err, errors.As(err, &u))
				}
			}
			if len(srv.Requests()) != 0 {
				t.Errorf("%s in %s: a request was sent", tc.part, where)
			}
		}
	}
}
