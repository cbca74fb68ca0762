package toolcall

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/tool"
)

// newTool is a tool.Tool built from a function, for tests.
var newTool = chattest.NewTool

// echoTool returns "name:args".
func echoTool(name string) *chattest.Tool {
	return newTool(name, func(_ context.Context, args string) (string, error) { return name + ":" + args, nil })
}

// response builds a one-generation response asking for calls.
func response(calls ...chat.ToolCall) *chat.Response {
	return &chat.Response{Generations: []chat.Generation{{
		Message:      chat.Assistant("", calls...),
		FinishReason: chat.FinishToolCalls,
	}}}
}

func call(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Arguments: args}
}

func prompt(tools ...tool.Tool) *chat.Prompt {
	return &chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{Tools: tools}}
}

// toolResults returns the results of the last message of a result's history, failing the test when
// the history is not shaped as Execute promises.
func toolResults(t *testing.T, p *chat.Prompt, res *Result) []chat.ToolResult {
	t.Helper()
	if got, want := len(res.History), len(p.Messages)+2; got != want {
		t.Fatalf("history has %d messages, want %d", got, want)
	}
	if a := res.History[len(res.History)-2]; a.Role != chat.RoleAssistant {
		t.Fatalf("message before the tool message has role %q, want assistant", a.Role)
	}
	last := res.History[len(res.History)-1]
	if last.Role != chat.RoleTool {
		t.Fatalf("last message has role %q, want tool", last.Role)
	}
	return last.ToolResults
}

// barrier lets n parties wait until all of them arrived. Waiting fails the test instead of hanging
// when the parties never all arrive (calls not running in parallel).
type barrier struct {
	mu      sync.Mutex
	n       int
	arrived int
	all     chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, all: make(chan struct{})} }

func (b *barrier) wait(t *testing.T) bool {
	b.mu.Lock()
	b.arrived++
	if b.arrived == b.n {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
		return true
	case <-time.After(10 * time.Second):
		t.Errorf("barrier: only %d of %d parties arrived", b.arrived, b.n)
		return false
	}
}

func debugLogger(w *testenv.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// waitFor fails the test when ch is not closed or sent on within a generous delay.
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not happen", what)
	}
}

// weatherFunc is a tool built with tool.Func: it validates its arguments.
func weatherFunc() tool.Tool {
	type in struct {
		City string `json:"city" jsonschema:"the city"`
	}
	return tool.Must(tool.Func("weather", "Get the weather in a city",
		func(_ context.Context, in in) (string, error) { return "sunny in " + in.City, nil }))
}
