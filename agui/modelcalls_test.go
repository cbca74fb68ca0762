package agui_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wield-ai/wield/agui"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/compact"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/memory"
)

func customs(evs []event, name string) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e.kind() == "CUSTOM" && e["name"] == name {
			out = append(out, e["value"].(map[string]any))
		}
	}
	return out
}

// Each model call of the turn is reported with its tokens and latency, after the text it wrote;
// a compaction forced by a small context budget is reported before the call it shortened.
func TestModelCallsAndCompaction(t *testing.T) {
	big := strings.Repeat("a long line of the file that fills the context; ", 200)
	read := chattest.NewTool("read", func(context.Context, string) (string, error) { return big, nil })
	m := chattest.New(
		chattest.Calls(chat.ToolCall{ID: "r1", Name: "read", Arguments: `{}`}).WithUsage(40, 6),
		chattest.Calls(chat.ToolCall{ID: "r2", Name: "read", Arguments: `{}`}).WithUsage(700, 6),
		chattest.Text("Read twice.").WithUsage(900, 4),
	).WithChunkSize(5)
	cp := compact.New(compact.Config{Budget: 3000, DisableCalibration: true})
	repo := memory.NewInMemory()
	c := clienttest.New(t, m, client.WithTools(read),
		client.WithAdvisors(client.NewToolLoop(client.ToolLoopConfig{Hooks: cp.Hooks()}), cp,
			memory.NewAdvisor(memory.NewWindow(repo, 100), memory.AdvisorConfig{})))
	f := (&fixture{model: m, repo: repo}).serve(t, agui.Config{}, c)
	evs := run(t, f, input("t-mc", "r1", "read it twice"))

	calls := customs(evs, agui.EventModelCall)
	if len(calls) != 3 {
		t.Fatalf("%d model calls reported: %s", len(calls), kinds(evs))
	}
	for i, want := range []float64{40, 700, 900} {
		u := calls[i]["usage"].(map[string]any)
		if calls[i]["index"] != float64(i+1) || u["inputTokens"] != want || u["totalTokens"] != u["inputTokens"].(float64)+u["outputTokens"].(float64) {
			t.Errorf("model call %d: %v", i, calls[i])
		}
		if _, ok := calls[i]["latencyMs"].(float64); !ok {
			t.Errorf("model call %d has no latency: %v", i, calls[i])
		}
	}
	comps := customs(evs, agui.EventCompaction)
	if len(comps) == 0 {
		t.Fatalf("no compaction reported: %s", kinds(evs))
	}
	c0 := comps[0]
	if c0["budget"] != float64(3000) || c0["before"].(float64) <= c0["after"].(float64) ||
		c0["capped"].(float64)+c0["cleared"].(float64) == 0 {
		t.Fatalf("compaction %v", c0)
	}
	// The final answer's text ends before its model call's report, which precedes RUN_FINISHED.
	if got := kinds(evs); !strings.HasSuffix(got, "TEXT_MESSAGE_END CUSTOM RUN_FINISHED") {
		t.Fatalf("events %s", got)
	}
}
