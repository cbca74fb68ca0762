package toolcall

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
)

// answered returns a tool message answering n calls of each named tool.
func answered(counts map[string]int) chat.Message {
	var rs []chat.ToolResult
	for name, n := range counts {
		for i := range n {
			rs = append(rs, chat.ToolResult{ID: fmt.Sprintf("%s-%d", name, i), Name: name, Content: "ok"})
		}
	}
	return chat.ToolMessage(rs...)
}

func TestLimits(t *testing.T) {
	// Tool results before the last user message belong to earlier turns and never count.
	earlier := []chat.Message{chat.User("earlier question"), answered(map[string]int{"a": 100, "b": 100}), chat.Assistant("done")}
	turn := func(counts map[string]int) []chat.Message {
		msgs := append([]chat.Message{}, earlier...)
		return append(msgs, chat.User("now"), chat.Assistant("", call("x", "a", "{}")), answered(counts))
	}
	names := func(ns ...string) []chat.ToolCall {
		var cs []chat.ToolCall
		for i, n := range ns {
			cs = append(cs, call(fmt.Sprint(i+1), n, "{}"))
		}
		return cs
	}
	tests := []struct {
		name    string
		limits  Limits
		history []chat.Message
		calls   []chat.ToolCall
		// breach is the limit error expected from LimitFail; nil when within limits.
		breach *LimitError
		// refused lists, for LimitTellModel, the ids of the calls refused and their texts.
		refused map[string]string
	}{
		{
			name:    "default per tool: the 40th call runs, the 41st does not",
			history: turn(map[string]int{"a": 39}),
			calls:   names("a", "b", "a"),
			breach:  &LimitError{Tool: "a", Limit: 40, CallID: "3"},
			refused: map[string]string{"3": `Tool call limit (40) reached for tool "a": no further calls to this tool are allowed in this turn.`},
		},
		{
			name:    "within the default per-tool limit",
			history: turn(map[string]int{"a": 38}),
			calls:   names("a", "a"),
		},
		{
			name:    "default total: the 150th call runs, the 151st does not",
			history: turn(map[string]int{"a": 35, "b": 35, "c": 35, "d": 35, "e": 8}),
			calls:   names("f", "g", "h"),
			breach:  &LimitError{Limit: 150, CallID: "3"},
			refused: map[string]string{"3": "Total tool call limit (150) reached: no further tool calls are allowed in this turn."},
		},
		{
			name:    "custom per tool",
			limits:  Limits{PerTool: 2},
			history: []chat.Message{chat.User("q")},
			calls:   names("a", "b", "a", "b", "a"),
			breach:  &LimitError{Tool: "a", Limit: 2, CallID: "5"},
			refused: map[string]string{"5": `Tool call limit (2) reached for tool "a": no further calls to this tool are allowed in this turn.`},
		},
		{
			name:    "override for one tool",
			limits:  Limits{Tools: map[string]int{"a": 1}},
			history: []chat.Message{chat.User("q")},
			calls:   names("b", "b", "a", "a", "b"),
			breach:  &LimitError{Tool: "a", Limit: 1, CallID: "4"},
			refused: map[string]string{"4": `Tool call limit (1) reached for tool "a": no further calls to this tool are allowed in this turn.`},
		},
		{
			name:    "exempt tool",
			limits:  Limits{PerTool: 1, Tools: map[string]int{"a": -1}},
			history: turn(map[string]int{"a": 60}),
			calls:   names("a", "a", "b"),
		},
		{
			name:    "unlimited",
			limits:  Limits{PerTool: -1, Total: -1},
			history: turn(map[string]int{"a": 200, "b": 200}),
			calls:   names("a", "b"),
		},
		{
			name:    "custom total",
			limits:  Limits{Total: 3},
			history: []chat.Message{chat.User("q"), answered(map[string]int{"z": 1})},
			calls:   names("a", "b", "c"),
			breach:  &LimitError{Limit: 3, CallID: "3"},
			refused: map[string]string{"3": "Total tool call limit (3) reached: no further tool calls are allowed in this turn."},
		},
		{
			name:    "no user message: the whole history counts",
			limits:  Limits{PerTool: 3},
			history: []chat.Message{chat.System("s"), answered(map[string]int{"a": 2}), answered(map[string]int{"a": 1})},
			calls:   names("a"),
			breach:  &LimitError{Tool: "a", Limit: 3, CallID: "1"},
			refused: map[string]string{"1": `Tool call limit (3) reached for tool "a": no further calls to this tool are allowed in this turn.`},
		},
		{
			name:    "unknown tools count too",
			limits:  Limits{Total: 1},
			history: []chat.Message{chat.User("q")},
			calls:   names("ghost", "a"),
			breach:  &LimitError{Limit: 1, CallID: "2"},
			refused: map[string]string{"2": "Total tool call limit (1) reached: no further tool calls are allowed in this turn."},
		},
	}
	for _, tt := range tests {
		for _, behavior := range []LimitBehavior{LimitFail, LimitTellModel} {
			name := tt.name + map[LimitBehavior]string{LimitFail: "/fail", LimitTellModel: "/tell model"}[behavior]
			t.Run(name, func(t *testing.T) {
				var ran atomic.Int32
				count := func(n string) tool.Tool {
					return newTool(n, func(context.Context, string) (string, error) { ran.Add(1); return "ran", nil })
				}
				limits := tt.limits
				limits.OnExceeded = behavior
				p := &chat.Prompt{Messages: tt.history, Options: &chat.Options{Tools: []tool.Tool{
					count("a"), count("b"), count("c"), count("d"), count("e"), count("f"), count("g"), count("h"),
				}}}
				res, err := New(Config{Limits: limits}).Execute(context.Background(), p, response(tt.calls...))

				if behavior == LimitFail && tt.breach != nil {
					var le *LimitError
					if !errors.As(err, &le) || *le != *tt.breach || !errors.Is(err, ErrLimitExceeded) {
						t.Fatalf("Execute error = %v (results %v); want %v", err, res.ToolResults(), tt.breach)
					}
					if n := ran.Load(); n != 0 {
						t.Errorf("%d tools ran in a turn refused by a limit", n)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range toolResults(t, p, res) {
					text, refused := tt.refused[r.ID]
					switch {
					case behavior == LimitTellModel && refused:
						if !r.IsError || r.Content != text {
							t.Errorf("call %s: %+v, want the limit error %q", r.ID, r, text)
						}
					case r.Name == "ghost":
						if !r.IsError {
							t.Errorf("unknown tool call %s succeeded", r.ID)
						}
					default:
						if r.IsError || r.Content != "ran" {
							t.Errorf("call %s: %+v, want it to run", r.ID, r)
						}
					}
				}
			})
		}
	}
}

func TestLimitErrorText(t *testing.T) {
	if got := (&LimitError{Tool: "a", Limit: 40}).Error(); got != `toolcall: tool call limit (40) exceeded for tool "a" in this turn` {
		t.Errorf("per-tool text %q", got)
	}
	if got := (&LimitError{Limit: 150}).Error(); got != "toolcall: total tool call limit (150) exceeded in this turn" {
		t.Errorf("total text %q", got)
	}
}

// A Turn carries the turn's count across rounds whose prompts hold only the latest results, as
// a tool loop with memory inside it sends them.
func TestLimitsWithTurn(t *testing.T) {
	m := New(Config{Limits: Limits{PerTool: 3, Total: 5, OnExceeded: LimitTellModel}})
	ctr := &Turn{}
	ctx := context.Background()
	p := prompt(echoTool("a"), echoTool("b"))
	round := func(calls ...chat.ToolCall) []chat.ToolResult {
		t.Helper()
		// Each round's prompt starts afresh: no user message, no earlier results.
		res, err := m.ExecuteTurn(ctx, ctr, &chat.Prompt{Options: p.Options}, response(calls...))
		if err != nil {
			t.Fatal(err)
		}
		return res.ToolResults()
	}
	for i, rs := range [][]chat.ToolResult{round(call("1", "a", "{}"), call("2", "a", "{}")), round(call("3", "b", "{}"))} {
		for _, r := range rs {
			if r.IsError {
				t.Fatalf("round %d: %s refused: %s", i+1, r.ID, r.Content)
			}
		}
	}
	if a, total := ctr.Calls("a"); a != 2 || total != 3 {
		t.Fatalf("counter after two rounds: a=%d total=%d, want 2 and 3", a, total)
	}
	// The third call of a is the per-tool limit; the fourth breaches it, and the next b breaches
	// the total of 5 only counting the whole turn.
	rs := round(call("4", "a", "{}"), call("5", "a", "{}"), call("6", "b", "{}"))
	want := map[string]bool{"4": false, "5": true, "6": true}
	for _, r := range rs {
		if r.IsError != want[r.ID] {
			t.Errorf("call %s: IsError=%v (%s), want %v", r.ID, r.IsError, r.Content, want[r.ID])
		}
	}

	// Without the counter the same prompts count one round at a time, and nothing is refused.
	fresh := New(Config{Limits: Limits{PerTool: 3, Total: 5, OnExceeded: LimitTellModel}})
	res, err := fresh.Execute(context.Background(), &chat.Prompt{Options: p.Options},
		response(call("4", "a", "{}"), call("5", "a", "{}"), call("6", "b", "{}")))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.ToolResults() {
		if r.IsError {
			t.Errorf("without a counter, call %s refused: %s", r.ID, r.Content)
		}
	}
}
