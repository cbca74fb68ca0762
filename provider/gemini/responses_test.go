package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
)

// TestRecordedResponses reads the response-only recordings (Gemini 3 function calls with long
// thought signatures, streamed and not) and checks every field against the recorded bytes.
func TestRecordedResponses(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		stream bool
	}{
		{"vercel-tool-call-gemini-3-pro-preview", false},
		{"vercel-tool-call-gemini3-gemini-3-pro-preview", false},
		{"vercel-tool-call-stream-gemini-3-pro-preview", true},
		{"vercel-tool-call-gemini3-stream-gemini-3-pro-preview", true},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			exs := providertest.Load(t, tc.dir)
			srv := replay.NewServer(t, exs...)
			m, _ := newTestModel(t, srv.URL, Config{Model: "gemini-3-pro-preview"})
			p := &chat.Prompt{Messages: []chat.Message{chat.User("What is the weather in San Francisco?")}}
			resp, err := providertest.Run(context.Background(), m, p, tc.stream)
			if err != nil {
				t.Fatal(err)
			}
			rec := parseRecorded(t, exs[0])
			rec.check(t, resp)
			if rec.Calls[0].Signature == "" || resp.ToolCalls()[0].Signature != rec.Calls[0].Signature {
				t.Fatal("thought signature not kept")
			}
			if resp.Generations[0].FinishReason != chat.FinishToolCalls {
				t.Errorf("finish %q", resp.Generations[0].FinishReason)
			}
		})
	}
}

// TestVertexStreamedArguments reads Vertex AI's streamed function-call arguments
// (partialArgs/willContinue): two calls whose arguments arrive in pieces are yielded whole, each
// once, with the signature of the first part.
func TestVertexStreamedArguments(t *testing.T) {
	exs := providertest.Load(t, "vercel-vertex-partial-args-stream-gemini-3.1-pro-preview")
	srv := replay.NewServer(t, exs...)
	m, _ := newTestModel(t, srv.URL, Config{Model: "gemini-3.1-pro-preview"})
	var chunks, withCalls int
	var agg chat.Aggregator
	for chunk, err := range m.Stream(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("weather in Boston and San Francisco?")}}) {
		if err != nil {
			t.Fatal(err)
		}
		chunks++
		if chunk.HasToolCalls() {
			withCalls++
		}
		agg.Add(chunk)
	}
	resp := agg.Response()
	calls := resp.ToolCalls()
	if chunks != 8 || withCalls != 2 || len(calls) != 2 {
		t.Fatalf("%d chunks, %d with calls, calls %+v", chunks, withCalls, calls)
	}
	var sig string
	for _, data := range replay.SSEData(exs[0].Body) {
		var v struct {
			Candidates []struct {
				Content struct {
					Parts []struct {
						ThoughtSignature string `json:"thoughtSignature"`
					} `json:"parts"`
				} `json:"content"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if s := v.Candidates[0].Content.Parts[0].ThoughtSignature; s != "" && sig == "" {
			sig = s
		}
	}
	want := []chat.ToolCall{
		{Index: 0, ID: calls[0].ID, Name: "getWeather", Arguments: `{"location":"Boston"}`, Signature: sig},
		{Index: 1, ID: calls[1].ID, Name: "getWeather", Arguments: `{"location":"San Francisco"}`},
	}
	if sig == "" || !reflect.DeepEqual(calls, want) {
		t.Fatalf("calls %+v\nwant %+v", calls, want)
	}
	if calls[0].ID == calls[1].ID || calls[0].ID == "" {
		t.Fatalf("ids %q %q", calls[0].ID, calls[1].ID)
	}
	if g := resp.Generations[0]; g.FinishReason != chat.FinishToolCalls {
		t.Fatalf("finish %q", g.FinishReason)
	}
	if resp.Usage != (chat.Usage{InputTokens: 26, OutputTokens: 23 + 132, TotalTokens: 181, ReasoningTokens: 132}) {
		t.Fatalf("usage %+v", resp.Usage)
	}
}

func TestParseJSONPath(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []any
	}{
		{"$.location", []any{"location"}},
		{"$.a.b[2].c", []any{"a", "b", 2, "c"}},
		{"$['odd key'][0]", []any{"odd key", 0}},
		{"$", nil},
	} {
		if got := parseJSONPath(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseJSONPath(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

// TestCandidates proves several candidates stay apart in a stream: text and calls per
// generation, call indexes counted per candidate, and the stream complete only when every
// candidate has finished.
func TestCandidates(t *testing.T) {
	events := []string{
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"Rome "}]},"index":0},{"content":{"role":"model","parts":[{"functionCall":{"name":"weather","args":{"location":"Oslo"}}}]},"index":1}],"responseId":"two"}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"is warm."}]},"finishReason":"STOP","index":0},{"content":{"role":"model","parts":[{"functionCall":{"name":"weather","args":{"location":"Bergen"}}}]},"index":1}],"responseId":"two"}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":1}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":9,"totalTokenCount":12},"responseId":"two"}`,
	}
	body := ""
	for _, e := range events {
		body += "data: " + e + "\r\n\r\n"
	}
	sse := http.Header{"Content-Type": {"text/event-stream"}}
	t.Run("complete", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Exchange{Header: sse, Body: []byte(body)})
		m, _ := newTestModel(t, srv.URL, Config{})
		resp, err := chat.Aggregate(m.Stream(context.Background(), &chat.Prompt{
			Messages: []chat.Message{chat.User("weather?")}, Options: &chat.Options{N: 2}}))
		if err != nil {
			t.Fatal(err)
		}
		want := []chat.Generation{
			{Index: 0, FinishReason: chat.FinishStop, Message: chat.Message{Role: chat.RoleAssistant, Content: "Rome is warm."}},
			{Index: 1, FinishReason: chat.FinishToolCalls, Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{
				{Index: 0, ID: syntheticIDPrefix + "two-1-0", Name: "weather", Arguments: `{"location":"Oslo"}`},
				{Index: 1, ID: syntheticIDPrefix + "two-1-1", Name: "weather", Arguments: `{"location":"Bergen"}`},
			}}},
		}
		if !reflect.DeepEqual(resp.Generations, want) {
			t.Fatalf("generations %s", providertest.Indent(resp.Generations))
		}
		if len(resp.ToolCalls()) != 2 || resp.Usage.TotalTokens != 12 {
			t.Fatalf("calls %d usage %+v", len(resp.ToolCalls()), resp.Usage)
		}
		var sent map[string]any
		_ = json.Unmarshal(srv.Requests()[0].Body, &sent)
		if sent["generationConfig"].(map[string]any)["candidateCount"] != 2.0 {
			t.Fatalf("candidateCount not sent: %s", srv.Requests()[0].Body)
		}
	})
	t.Run("one candidate unfinished", func(t *testing.T) {
		cut := "data: " + events[0] + "\r\n\r\ndata: " + events[1] + "\r\n\r\n"
		srv := replay.NewServer(t, replay.Exchange{Header: sse, Body: []byte(cut)})
		m, _ := newTestModel(t, srv.URL, Config{})
		if _, err := chat.Aggregate(m.Stream(context.Background(), weatherPrompt)); err == nil {
			t.Fatal("a stream with an unfinished candidate ended without error")
		}
	})
}

// TestThoughtsJoined proves thought pieces streamed over several events become one Reasoning
// item, yielded with the first answer text, and never mixed into the answer.
func TestThoughtsJoined(t *testing.T) {
	srv := replay.NewServer(t, providertest.Load(t, "adk-text-stream-gemini-2.5-flash")...)
	m, _ := newTestModel(t, srv.URL, Config{})
	var items, chunkWithItem, chunk int
	for c, err := range m.Stream(context.Background(), weatherPrompt) {
		if err != nil {
			t.Fatal(err)
		}
		chunk++
		if r := c.Generations[0].Message.Reasoning; len(r) > 0 {
			items += len(r)
			chunkWithItem = chunk
			if c.Text() == "" || strings.Contains(c.Text(), "**") {
				t.Fatalf("reasoning yielded with text %q", c.Text())
			}
			if !strings.HasPrefix(r[0].Text, "**Calculating Prime Sum**") || !strings.Contains(r[0].Text, "**Verifying Prime Sum**") {
				t.Fatalf("reasoning %q", r[0].Text)
			}
		}
	}
	if items != 1 || chunkWithItem != 4 {
		t.Fatalf("%d reasoning items, in chunk %d", items, chunkWithItem)
	}
}

// TestConcurrentUse runs calls and streams on one Model at once (meaningful under -race).
func TestConcurrentUse(t *testing.T) {
	call := providertest.Load(t, "vercel-tool-call-gemini-3-pro-preview")[0]
	stream := providertest.Load(t, "vercel-tool-call-gemini3-stream-gemini-3-pro-preview")[0]
	// Requests may arrive in any order; the server answers by the kind of request instead.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ex := call
		if strings.Contains(r.URL.Path, "streamGenerateContent") {
			ex = stream
		}
		w.Header().Set("Content-Type", ex.Header.Get("Content-Type"))
		_, _ = w.Write(ex.Body)
	}))
	defer srv.Close()
	m, err := New(context.Background(), Config{APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	providertest.Concurrently(t, 8, func(i int) error {
		resp, err := providertest.Run(context.Background(), m, weatherPrompt, i%2 == 1)
		if err == nil && (len(resp.ToolCalls()) != 1 || resp.ToolCalls()[0].Signature == "") {
			err = fmt.Errorf("response %d: %+v", i, resp.ToolCalls())
		}
		return err
	})
}
