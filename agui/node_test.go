package agui_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wield-ai/wield/agui"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/internal/testenv"
)

// The AG-UI JavaScript client (@ag-ui/client) runs a turn that waits for an approval and
// approves it; each event parses with @ag-ui/core's schemas.
func TestAGUIJavaScriptClient(t *testing.T) {
	f := newFixture(t, agui.Config{},
		chattest.Calls(chat.ToolCall{ID: "w1", Name: "write", Arguments: `{"path":"/notes","text":"the meeting notes"}`}).WithText("I will write them."),
		chattest.Text("The notes are written.").WithUsage(9, 3))
	var got struct {
		First, Second []string
		FirstOutcome  string
		SecondOutcome string
		Interrupts    []struct{ ID, Reason, ToolCallID string }
		Args          []string
		Result        string
		ToolResults   []string
		Messages      []string
		PendingAfter  int
		ModelCalls    []struct {
			Name  string
			Value struct {
				Index     int
				LatencyMs int64
				Usage     struct{ InputTokens, OutputTokens, TotalTokens int }
			}
		}
	}
	runNodeClient(t, "agui_client.cjs", f.srv.URL, &got)
	first := strings.Join(got.First, " ")
	if !strings.HasPrefix(first, "RUN_STARTED STATE_SNAPSHOT TEXT_MESSAGE_START") ||
		!strings.Contains(first, "TEXT_MESSAGE_END TOOL_CALL_START TOOL_CALL_ARGS") ||
		!strings.HasSuffix(first, "TOOL_CALL_END STATE_DELTA RUN_FINISHED") {
		t.Fatalf("first run's events: %s", first)
	}
	if got.FirstOutcome != "interrupt" || len(got.Interrupts) != 1 || got.Interrupts[0].ID != "w1" ||
		got.Interrupts[0].Reason != agui.ReasonApproval || got.Interrupts[0].ToolCallID != "w1" {
		t.Fatalf("first run: outcome %q, interrupts %+v", got.FirstOutcome, got.Interrupts)
	}
	if len(got.Args) < 3 || strings.Join(got.Args, "") != `{"path":"/notes","text":"the meeting notes"}` {
		t.Fatalf("argument fragments %q", got.Args)
	}
	second := strings.Join(got.Second, " ")
	if !strings.HasPrefix(second, "RUN_STARTED STATE_SNAPSHOT TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END TOOL_CALL_RESULT TEXT_MESSAGE_START") ||
		!strings.HasSuffix(second, "TEXT_MESSAGE_END CUSTOM STATE_DELTA RUN_FINISHED") {
		t.Fatalf("second run's events: %s", second)
	}
	if got.SecondOutcome != "success" || got.Result != "The notes are written." || len(got.ToolResults) != 1 ||
		got.ToolResults[0] != "written" || got.PendingAfter != 0 {
		t.Fatalf("second run: %+v", got)
	}
	if w := f.write.Args(); len(w) != 1 {
		t.Fatalf("the tool ran %d times", len(w))
	}
	// One report per model call, both runs' (the first stopped after its one call).
	if len(got.ModelCalls) != 2 || got.ModelCalls[0].Value.Index != 1 || got.ModelCalls[1].Value.Index != 1 ||
		got.ModelCalls[1].Value.Usage.TotalTokens != 12 || got.ModelCalls[1].Value.Usage.InputTokens != 9 {
		t.Fatalf("model calls %+v", got.ModelCalls)
	}
	t.Logf("messages in the client: %v", got.Messages)
}

// The AG-UI JavaScript client answers an MCP server's question: the interrupt parses as the
// protocol's, its responseSchema tells the client how to answer, and the accepted answer reaches
// the server.
func TestAGUIJavaScriptClientElicitation(t *testing.T) {
	f, runs := elicitFixture(t, agui.Config{})
	var got struct {
		First        []string
		FirstOutcome string
		Interrupt    struct{ ID, Reason, Message, ToolCallID, Server string }
		Actions      []string
		Required     []string
		Results      []string
		Result       string
		PendingAfter int
	}
	out := runNodeClient(t, "agui_elicit.cjs", f.srv.URL, &got)
	if got.FirstOutcome != "interrupt" || got.Interrupt.Reason != agui.ReasonElicitation || got.Interrupt.Message != "How many seats?" ||
		got.Interrupt.ID != "b1" || got.Interrupt.ToolCallID != "b1" || got.Interrupt.Server != "booking" {
		t.Fatalf("first run: %s", out)
	}
	if strings.Join(got.Actions, ",") != "accept,decline,cancel" || strings.Join(got.Required, ",") != "seats" {
		t.Fatalf("the response schema: %s", out)
	}
	if len(got.Results) != 1 || got.Results[0] != `accept {"seats":2}` || got.Result != "Booked." || got.PendingAfter != 0 {
		t.Fatalf("second run: %s", out)
	}
	if runs.Load() < 2 {
		t.Fatalf("the server's tool ran %d times", runs.Load())
	}
}

// runNodeClient runs the Node client script of testdata against the endpoint at url and decodes
// the summary it prints into got, which it returns as printed.
func runNodeClient(t *testing.T, script, url string, got any) []byte {
	t.Helper()
	if _, err := os.Stat(filepath.Join(testenv.ToolsDir(), "node_modules", "@ag-ui", "client")); err != nil {
		testenv.Missing(t, "@ag-ui/client")
	}
	cmd := testenv.Command(t, "node", filepath.Join("testdata", script), url)
	cmd.Env = append(cmd.Env, "NODE_PATH="+filepath.Join(testenv.ToolsDir(), "node_modules"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(out, got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return out
}
