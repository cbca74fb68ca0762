package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/internal/replay"
)

// The tests here run the built command against recorded OpenAI Chat Completions traffic
// (testdata/replay, see its README) served on 127.0.0.1, through --base-url.

func load(t *testing.T, name string) []replay.Exchange {
	t.Helper()
	exs, err := replay.Load(filepath.Join("testdata", "replay", name))
	if err != nil || len(exs) == 0 {
		t.Fatalf("loading %s: %d exchanges, %v", name, len(exs), err)
	}
	return exs
}

// sentMessage is a message of a Chat Completions request as the command sent it.
type sentMessage struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type sentRequest struct {
	Model    string        `json:"model"`
	Stream   bool          `json:"stream"`
	Messages []sentMessage `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func sent(t *testing.T, srv *replay.Server) []sentRequest {
	t.Helper()
	var out []sentRequest
	for _, r := range srv.Requests() {
		if r.Path != "/v1/chat/completions" {
			t.Errorf("request to %s", r.Path)
		}
		var req sentRequest
		if err := json.Unmarshal(r.Body, &req); err != nil {
			t.Fatalf("request body: %v\n%s", err, r.Body)
		}
		out = append(out, req)
	}
	return out
}

func text(c any) string {
	switch c := c.(type) {
	case string:
		return c
	case []any: // content parts
		var b strings.Builder
		for _, p := range c {
			if m, ok := p.(map[string]any); ok {
				s, _ := m["text"].(string)
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}

const recordedAnswer = "The current temperature in Florence, Italy is 40°C."

// TestBinaryChatUsesDateTimeTool asks a question that the recorded model answers by calling the
// built-in date-time tool: the call runs, its result goes back, the answer streams out.
func TestBinaryChatUsesDateTimeTool(t *testing.T) {
	srv := replay.NewServer(t, load(t, "datetime-stream")...)
	before := time.Now().In(tokyo)
	r := wield(t, cleanEnv(t), "", "chat", "-v", "--base-url", srv.URL+"/v1", "--model", "gpt-4o", "What day is tomorrow?")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	if r.stdout != recordedAnswer+"\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	// --verbose: the tool lines and the recorded usage, summed over the two model calls.
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 3 || lines[0] != "tool getCurrentDateTime {}" || !strings.HasPrefix(lines[1], "tool getCurrentDateTime done in ") ||
		lines[2] != "tokens: 147 in, 29 out, 2 model calls" {
		t.Errorf("stderr %q", r.stderr)
	}
	reqs := sent(t, srv)
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first := reqs[0]
	var tools []string
	for _, tl := range first.Tools {
		tools = append(tools, tl.Function.Name)
	}
	if first.Model != "gpt-4o" || !first.Stream || strings.Join(tools, ",") != "getCurrentDateTime,setAlarm" ||
		len(first.Messages) != 1 || text(first.Messages[0].Content) != "What day is tomorrow?" {
		t.Errorf("first request: %+v", first)
	}
	// The second request carries the call and the tool's answer: today in the user's zone.
	msgs := reqs[1].Messages
	if len(msgs) != 3 || msgs[1].Role != "assistant" || len(msgs[1].ToolCalls) != 1 ||
		msgs[1].ToolCalls[0].Function.Name != "getCurrentDateTime" || msgs[2].Role != "tool" ||
		msgs[2].ToolCallID != msgs[1].ToolCalls[0].ID {
		t.Fatalf("second request: %+v", msgs)
	}
	result := text(msgs[2].Content)
	after := time.Now().In(tokyo)
	if !strings.Contains(result, "time zone Asia/Tokyo") ||
		!strings.HasPrefix(result, before.Format("2006-01-02")) && !strings.HasPrefix(result, after.Format("2006-01-02")) {
		t.Errorf("tool result %q, want today in Asia/Tokyo", result)
	}
}

func TestBinaryChatJSON(t *testing.T) {
	srv := replay.NewServer(t, load(t, "datetime-stream")...)
	r := wield(t, cleanEnv(t), "", "chat", "--json", "--base-url", srv.URL+"/v1", "--model", "gpt-4o", "What day is tomorrow?")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var answer strings.Builder
	var done jsonEvent
	evs := jsonEvents(t, r.stdout)
	for _, ev := range evs {
		switch ev.Type {
		case "text":
			answer.WriteString(ev.Text)
		case "tool_start":
			if ev.Tool != "getCurrentDateTime" || ev.ID != "call_7kE4IjtnwXcGbX6hDM7xFu8T" || string(ev.Arguments) != "{}" {
				t.Errorf("tool_start %+v", ev)
			}
		case "done":
			done = ev
		}
	}
	if kinds := eventTypes(evs); strings.Join(kinds, ",") != "tool_start,tool_end,text,done" {
		t.Errorf("events %v", kinds)
	}
	if answer.String() != recordedAnswer || done.Text != recordedAnswer || done.ModelCalls != 2 || done.Usage == nil || done.Usage.TotalTokens == 0 {
		t.Errorf("answer %q, done %+v", answer.String(), done)
	}
}

// TestBinarySessionResumes runs two commands in one session: the second sends the first's
// conversation along.
func TestBinarySessionResumes(t *testing.T) {
	env := cleanEnv(t)
	ask := func(q string) (result, []sentRequest) {
		srv := replay.NewServer(t, load(t, "text-stream")...)
		r := wield(t, env, "", "chat", "--session", "trip", "--base-url", srv.URL+"/v1", "--model", "gpt-4o", q)
		return r, sent(t, srv)
	}
	r, _ := ask("Say hello in Portuguese.")
	if r.code != 0 || r.stdout != "Olá!\n" {
		t.Fatalf("first run: %+v", r)
	}
	r, reqs := ask("And in Spanish?")
	if r.code != 0 || len(reqs) != 1 {
		t.Fatalf("second run: %+v, %d requests", r, len(reqs))
	}
	var conv []string
	for _, m := range reqs[0].Messages {
		conv = append(conv, m.Role+": "+text(m.Content))
	}
	if got := strings.Join(conv, " | "); got != "user: Say hello in Portuguese. | assistant: Olá! | user: And in Spanish?" {
		t.Fatalf("second run sent %s", got)
	}
	var dataHome string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_DATA_HOME="); ok {
			dataHome = v
		}
	}
	if _, err := os.Stat(filepath.Join(dataHome, "wield", "sessions.db")); err != nil {
		t.Fatalf("the session store is not in the data directory: %v", err)
	}
}

// TestBinaryInteractive chats line by line from standard input.
func TestBinaryInteractive(t *testing.T) {
	exs := append(load(t, "text-stream"), load(t, "text-stream")...)
	srv := replay.NewServer(t, exs...)
	r := wield(t, cleanEnv(t), "Say hello.\nAgain?\n", "chat", "--base-url", srv.URL+"/v1", "--model", "gpt-4o", "--lines")
	if r.code != 0 || r.stdout != "Olá!\nOlá!\n" {
		t.Fatalf("%+v", r)
	}
	reqs := sent(t, srv)
	if len(reqs) != 2 || len(reqs[1].Messages) != 3 || text(reqs[1].Messages[1].Content) != "Olá!" {
		t.Fatalf("requests %+v", reqs)
	}
}
