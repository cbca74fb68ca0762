package ollama

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

type cityIn struct {
	City string `json:"city" jsonschema:"The city to get the weather for"`
}

// weatherTool is the documentation's get_weather, answering as the documentation's example does.
func weatherTool(t testing.TB) tool.Tool {
	return providertest.Tool(t, "get_weather", "Get the weather in a given city", func(_ context.Context, in cityIn) (string, error) {
		if in.City == "" {
			return "", fmt.Errorf("no city")
		}
		return "11 degrees celsius", nil
	})
}

// load reads a case. The docs-* cases are documentation examples written pretty-printed; an
// Ollama server writes each JSON object on one line (the client reads line by line), so their
// JSON bodies are served compacted.
func load(t testing.TB, name string) []replay.Exchange {
	t.Helper()
	exs := providertest.Load(t, name)
	if strings.HasPrefix(name, "docs-") {
		for i := range exs {
			if strings.HasPrefix(exs[i].Header.Get("Content-Type"), "application/json") {
				var b bytes.Buffer
				if err := json.Compact(&b, exs[i].Body); err != nil {
					t.Fatal(err)
				}
				exs[i].Body = append(b.Bytes(), '\n')
			}
		}
	}
	return exs
}

// newTestModel returns a Model talking to url, with retry waits recorded instead of taken.
func newTestModel(t testing.TB, url string, cfg Config) (*Model, *providertest.Waits) {
	t.Helper()
	waits := &providertest.Waits{}
	cfg.BaseURL = url
	cfg.sleep = waits.Sleep
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m, waits
}

// recorded is what a recorded answer says, read straight from its JSON lines.
type recorded struct {
	Model, Text, Thinking string
	Calls                 []map[string]any // function objects: name, arguments
	DoneReason            string
	Done                  bool
	PromptEval, Eval      int
}

func parseRecorded(t testing.TB, ex replay.Exchange) recorded {
	t.Helper()
	var r recorded
	sc := bufio.NewScanner(bytes.NewReader(ex.Body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var v struct {
			Model   string `json:"model"`
			Message struct {
				Content   string `json:"content"`
				Thinking  string `json:"thinking"`
				ToolCalls []struct {
					Function map[string]any `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			Done       bool   `json:"done"`
			DoneReason string `json:"done_reason"`
			PromptEval int    `json:"prompt_eval_count"`
			Eval       int    `json:"eval_count"`
		}
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("recorded line: %v", err)
		}
		r.Model = v.Model
		r.Text += v.Message.Content
		r.Thinking += v.Message.Thinking
		for _, c := range v.Message.ToolCalls {
			r.Calls = append(r.Calls, c.Function)
		}
		if v.Done {
			r.Done, r.DoneReason, r.PromptEval, r.Eval = true, v.DoneReason, v.PromptEval, v.Eval
		}
	}
	return r
}

// check compares a response with the recording it was read from.
func (r recorded) check(t testing.TB, got *chat.Response) {
	t.Helper()
	if got.Model != r.Model || len(got.Generations) != 1 {
		t.Fatalf("model %q, %d generations", got.Model, len(got.Generations))
	}
	g := got.Generations[0]
	if g.Message.Content != r.Text {
		t.Errorf("text = %q, want %q", g.Message.Content, r.Text)
	}
	var thinking string
	for _, rs := range g.Message.Reasoning {
		thinking += rs.Text
	}
	if thinking != r.Thinking {
		t.Errorf("thinking = %q, want %q", thinking, r.Thinking)
	}
	if len(g.Message.ToolCalls) != len(r.Calls) {
		t.Fatalf("%d calls, want %d", len(g.Message.ToolCalls), len(r.Calls))
	}
	for i, c := range g.Message.ToolCalls {
		var args any
		if err := json.Unmarshal([]byte(c.Arguments), &args); err != nil {
			t.Errorf("call %d arguments %q: %v", i, c.Arguments, err)
		}
		if c.Name != r.Calls[i]["name"] || !reflect.DeepEqual(args, r.Calls[i]["arguments"]) || c.Index != i || c.ID == "" {
			t.Errorf("call %d = %+v, want %v", i, c, r.Calls[i])
		}
	}
	want := finishReason(r.DoneReason, len(r.Calls) > 0)
	if !r.Done {
		want = ""
	}
	if g.FinishReason != want {
		t.Errorf("finish = %q, want %q", g.FinishReason, want)
	}
	if got.Usage != (chat.Usage{InputTokens: r.PromptEval, OutputTokens: r.Eval, TotalTokens: r.PromptEval + r.Eval}) {
		t.Errorf("usage = %+v, want %d/%d", got.Usage, r.PromptEval, r.Eval)
	}
}

// normalize parses a request body for comparison, dropping empty objects, empty arrays and empty
// strings, which clients write or leave out interchangeably ("options":{}, "required":[],
// "format":"" from langchaingo, "content":"" is kept since the API requires it).
func normalize(t testing.TB, body []byte) any {
	t.Helper()
	return providertest.Normalize(t, body, func(k string, v any) bool {
		switch v := v.(type) {
		case map[string]any:
			return len(v) == 0
		case []any:
			return len(v) == 0
		case string:
			return v == "" && k != "content"
		}
		return false
	})
}
