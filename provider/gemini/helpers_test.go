package gemini

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
)

// newTestModel returns a Model talking to url, with retry waits recorded instead of taken.
func newTestModel(t testing.TB, url string, cfg Config) (*Model, *providertest.Waits) {
	t.Helper()
	waits := &providertest.Waits{}
	cfg.BaseURL = url
	if cfg.APIKey == "" {
		cfg.APIKey = "test-key"
	}
	cfg.sleep = waits.Sleep
	m, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m, waits
}

// newVertexModel returns a Model for Gemini on Vertex AI talking to srv: the SDK's Vertex backend
// with a project and location (empty for the global endpoint), without credentials, as the
// client's HTTP client would carry them.
func newVertexModel(t testing.TB, srv *replay.Server, project, location string, cfg Config) *Model {
	t.Helper()
	cfg.BaseURL = srv.URL
	cfg.HTTPClient = &http.Client{}
	cfg.ClientConfig = &genai.ClientConfig{Backend: genai.BackendVertexAI, Project: project, Location: location}
	m, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m.Info().Provider != "gcp.vertex_ai" {
		t.Fatalf("provider %q", m.Info().Provider)
	}
	return m
}

// recorded is what a recorded response says, read straight from its JSON (independently of the
// SDK), to check what the Model makes of it.
type recorded struct {
	ID, Model string
	Text      string
	Thoughts  string
	Calls     []recordedCall
	Finish    string
	Usage     map[string]float64
}

type recordedCall struct {
	ID, Name, Signature string
	Args                map[string]any
}

func parseRecorded(t testing.TB, ex replay.Exchange) recorded {
	t.Helper()
	var payloads [][]byte
	if strings.HasPrefix(ex.Header.Get("Content-Type"), "text/event-stream") {
		payloads = replay.SSEData(ex.Body)
	} else {
		payloads = [][]byte{ex.Body}
	}
	var r recorded
	for _, p := range payloads {
		var v struct {
			ResponseID   string             `json:"responseId"`
			ModelVersion string             `json:"modelVersion"`
			Usage        map[string]any     `json:"usageMetadata"`
			Candidates   []recordedCandPart `json:"candidates"`
		}
		if err := json.Unmarshal(p, &v); err != nil {
			t.Fatalf("recorded payload: %v", err)
		}
		if r.ID == "" {
			r.ID, r.Model = v.ResponseID, v.ModelVersion
		}
		if v.Usage != nil {
			r.Usage = map[string]float64{}
			for k, x := range v.Usage {
				if f, ok := x.(float64); ok {
					r.Usage[k] = f
				}
			}
		}
		for _, c := range v.Candidates {
			for _, part := range c.Content.Parts {
				switch {
				case part.FunctionCall != nil:
					r.Calls = append(r.Calls, recordedCall{ID: part.FunctionCall.ID, Name: part.FunctionCall.Name, Args: part.FunctionCall.Args, Signature: part.ThoughtSignature})
				case part.Thought:
					r.Thoughts += part.Text
				default:
					r.Text += part.Text
				}
			}
			if c.FinishReason != "" {
				r.Finish = c.FinishReason
			}
		}
	}
	return r
}

type recordedCandPart struct {
	Content struct {
		Parts []struct {
			Text             string `json:"text"`
			Thought          bool   `json:"thought"`
			ThoughtSignature string `json:"thoughtSignature"`
			FunctionCall     *struct {
				ID   string         `json:"id"`
				Name string         `json:"name"`
				Args map[string]any `json:"args"`
			} `json:"functionCall"`
		} `json:"parts"`
	} `json:"content"`
	FinishReason string `json:"finishReason"`
}

// check compares a response with the recording it was made from: text, thoughts, tool calls
// (names, arguments, signatures, ids — made-up ones where the API sent none), usage and finish.
func (r recorded) check(t testing.TB, got *chat.Response) {
	t.Helper()
	if got.ID != r.ID || got.Model != r.Model {
		t.Errorf("id/model = %q/%q, want %q/%q", got.ID, got.Model, r.ID, r.Model)
	}
	g := providertest.OneGeneration(t, got)
	if g.Message.Content != r.Text {
		t.Errorf("text = %q, want %q", g.Message.Content, r.Text)
	}
	var thoughts string
	for _, rs := range g.Message.Reasoning {
		if rs.Provider != "gemini" {
			t.Errorf("reasoning provider %q", rs.Provider)
		}
		thoughts += rs.Text
	}
	if thoughts != r.Thoughts {
		t.Errorf("thoughts = %q, want %q", thoughts, r.Thoughts)
	}
	if len(g.Message.ToolCalls) != len(r.Calls) {
		t.Fatalf("%d tool calls, want %d: %+v", len(g.Message.ToolCalls), len(r.Calls), g.Message.ToolCalls)
	}
	ids := map[string]bool{}
	for i, c := range g.Message.ToolCalls {
		w := r.Calls[i]
		var args map[string]any
		if err := json.Unmarshal([]byte(c.Arguments), &args); err != nil {
			t.Errorf("call %d arguments %q: %v", i, c.Arguments, err)
		}
		if w.Args == nil {
			w.Args = map[string]any{}
		}
		if c.Name != w.Name || !reflect.DeepEqual(args, w.Args) || c.Signature != w.Signature || c.Index != i {
			t.Errorf("call %d = %+v, want %+v at index %d", i, c, w, i)
		}
		switch {
		case w.ID != "" && c.ID != w.ID:
			t.Errorf("call %d id %q, want %q", i, c.ID, w.ID)
		case w.ID == "" && !strings.HasPrefix(c.ID, syntheticIDPrefix):
			t.Errorf("call %d id %q, want a made-up id", i, c.ID)
		}
		if ids[c.ID] {
			t.Errorf("call id %q repeated", c.ID)
		}
		ids[c.ID] = true
	}
	want := finishReason(genai.FinishReason(r.Finish), len(r.Calls) > 0)
	if g.FinishReason != want {
		t.Errorf("finish = %q, want %q", g.FinishReason, want)
	}
	u := r.Usage
	wantUsage := chat.Usage{
		InputTokens:       int(u["promptTokenCount"] + u["toolUsePromptTokenCount"]),
		OutputTokens:      int(u["candidatesTokenCount"] + u["thoughtsTokenCount"]),
		TotalTokens:       int(u["totalTokenCount"]),
		CachedInputTokens: int(u["cachedContentTokenCount"]),
		ReasoningTokens:   int(u["thoughtsTokenCount"]),
	}
	if got.Usage != wantUsage {
		t.Errorf("usage = %+v, want %+v", got.Usage, wantUsage)
	}
}

// walkParts calls fn on every part of every content of a request body.
func walkParts(body any, fn func(part map[string]any)) {
	m, _ := body.(map[string]any)
	contents, _ := m["contents"].([]any)
	for _, c := range contents {
		cm, _ := c.(map[string]any)
		parts, _ := cm["parts"].([]any)
		for _, p := range parts {
			if pm, ok := p.(map[string]any); ok {
				fn(pm)
			}
		}
	}
}

// normalize prepares a request body for comparison: it parses the JSON and drops empty objects,
// which the SDK omits where other clients send them (ADK sends "generationConfig":{}).
func normalize(t testing.TB, body []byte) any {
	t.Helper()
	return providertest.Normalize(t, body, func(_ string, v any) bool {
		m, ok := v.(map[string]any)
		return ok && len(m) == 0
	})
}
