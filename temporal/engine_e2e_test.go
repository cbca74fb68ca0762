package temporal_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/tool/augment"
	"github.com/wield-ai/wield/toolsearch"
)

// engineCrashClient is the agent of the client-loop crash turn: its tools are found by tool
// search, the charge (which must never run twice) is augmented with the model's reason, and the
// read-only lookup reports progress and, in a worker that is to be killed, hangs.
func engineCrashClient(runs string, hang bool) *client.Client {
	type reason struct {
		Reason string `json:"reason" jsonschema:"why the call is made"`
	}
	charge, err := augment.Tool(tool.Must(tool.Func("charge", "Charges the customer's card", func(ctx context.Context, in pathIn) (string, error) {
		if err := appendLine(runs, "charge "+in.Path); err != nil {
			return "", err
		}
		return "charged " + in.Path, nil
	})), func(_ context.Context, e augment.Event[reason]) error {
		return appendLine(runs, "reason "+strings.ReplaceAll(e.Args.Reason, " ", "-"))
	})
	if err != nil {
		panic(err)
	}
	lookup := crashLookup(runs, hang, "Looks an order up by its number")
	weather := tool.Must(tool.Func("weather", "Tells the weather in a city", func(ctx context.Context, in pathIn) (string, error) {
		return "sunny", nil
	}))
	// The model searches first; once the search found the tools, it calls them; then it
	// answers with their results. Its answers depend on the conversation only, so any worker
	// answers alike.
	m := chattest.New(chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		last := p.Messages[len(p.Messages)-1]
		msg := chat.Message{Role: chat.RoleAssistant}
		finish := chat.FinishToolCalls
		switch {
		case last.Role == chat.RoleUser:
			msg.ToolCalls = []chat.ToolCall{{ID: "s1", Name: toolsearch.SearchToolName, Arguments: `{"queries":["charge a card","look up an order"]}`}}
		case last.Role == chat.RoleTool && last.ToolResults[0].Name == toolsearch.SearchToolName:
			msg.ToolCalls = []chat.ToolCall{
				{ID: "c1", Name: "charge", Arguments: `{"path":"card-4242","reason":"the order is due"}`},
				{ID: "c2", Name: "lookup", Arguments: `{"path":"A17"}`},
			}
		default:
			parts := make([]string, len(last.ToolResults))
			for i, r := range last.ToolResults {
				parts[i] = r.Content
			}
			msg.Content, finish = "Done: "+strings.Join(parts, "; "), chat.FinishStop
		}
		return &chat.Response{Model: "script", Generations: []chat.Generation{{Message: msg, FinishReason: finish}},
			Usage: chat.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12}}, nil
	})).Repeat().DiscardPrompts()
	return newClient(m, client.WithTools(charge, lookup, weather), client.WithAdvisors(toolsearch.New(toolsearch.Config{})))
}

// TestWorkerKilledMidClientLoopTurn: a turn that runs the client's loop (tool search, the
// memory advisor, an augmented tool) loses its worker (kill -9) while a read-only call runs; a
// second worker finishes it from the history. The charge ran once, the lookup again.
func TestWorkerKilledMidClientLoopTurn(t *testing.T) {
	killWorkerMidLookup(t, "engine-worker", engineCrashClient, "crash", []string{"assistant", "tool", "assistant", "tool", "assistant"}, "reason_the-order-is-due")
}

// replayed names the histories of the client's loop kept in testdata, each with the client that
// replays it. -record rewrites only these, so a recording run leaves the replay test whole.
var replayed = map[string]func(runs string) *client.Client{
	"crash":    func(runs string) *client.Client { return engineCrashClient(runs, false) },
	"parallel": func(string) *client.Client { return parallelClient(false) },
	"approval": approvalClient,
}

// TestReplayRecordedClientLoopHistories replays the recorded histories of turns that ran the
// client's loop (testdata/client-loop-history-*.json, recorded with -record) with this build's
// workflow and a client like the one that ran each, and the histories of the workflow's own loop
// (testdata/history-*.json), which need none of the client's code.
func TestReplayRecordedClientLoopHistories(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	clients := map[string]*client.Client{}
	for name, c := range replayed {
		clients["client-loop-history-"+name+".json"] = c(runs)
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*history-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	loops := 0
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "client-loop-") {
			loops++
		}
	}
	if loops < len(clients) || len(files) < len(clients)+3 {
		t.Fatalf("found %d recorded histories, %d of the client's loop", len(files), loops)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c := clients[filepath.Base(f)]
			if c == nil {
				if strings.HasPrefix(filepath.Base(f), "client-loop-") {
					t.Fatal("a recorded history of the client's loop with no client to replay it: add it to the map")
				}
				c = engineCrashClient(runs, false)
			}
			r, err := temporal.NewClientReplayer(c, crashConfig("replay", nil))
			if err != nil {
				t.Fatal(err)
			}
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestReplayOfAnotherClientFails proves the client-loop replay test can fail: the recorded turn
// searched its tools; a client without tool search takes another path, and the replayer says so.
func TestReplayOfAnotherClientFails(t *testing.T) {
	m := chattest.New(chattest.Text("hello")).Repeat()
	r, err := temporal.NewClientReplayer(newClient(m), crashConfig("replay", nil))
	if err != nil {
		t.Fatal(err)
	}
	err = r.ReplayWorkflowHistoryFromJSONFile(nil, filepath.Join("testdata", "client-loop-history-crash.json"))
	// The SDK says so as a nondeterminism error or, when the other path has scheduled fewer
	// activities, as an activity it cannot find (TMPRL1100).
	if err == nil || !strings.Contains(err.Error(), "nondeterministic") && !strings.Contains(err.Error(), "TMPRL1100") {
		t.Fatalf("replaying with another client: %v", err)
	}
}

// TestStartOptions: a turn's memo names its agent and conversation from the start; a start
// timeout ends a turn that waits too long for a decision; a reuse policy that rejects
// duplicates refuses a second turn with the id of one that ended.
func TestStartOptions(t *testing.T) {
	tc := dial(t)
	queue := "start-" + rand.Text()[:8]
	cfg := approvalConfig(queue)
	startWorker(t, tc, approvalClient(filepath.Join(t.TempDir(), "runs")), cfg)
	c := turnClient(t, tc, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := "start-" + rand.Text()[:8]
	turn, err := c.Start(ctx, temporal.Request{ID: id, ConversationID: "ada", Messages: []chat.Message{chat.User("delete it")}},
		temporal.StartTimeout(3*time.Second), temporal.ReuseID(enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE))
	if err != nil {
		t.Fatal(err)
	}
	desc, err := tc.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		t.Fatal(err)
	}
	memo := map[string]string{}
	for k, p := range desc.GetWorkflowExecutionInfo().GetMemo().GetFields() {
		var v string
		if converter.GetDefaultDataConverter().FromPayload(p, &v) == nil {
			memo[k] = v
		}
	}
	if memo[temporal.MemoAgent] != temporal.DefaultName || memo[temporal.MemoConversation] != "ada" {
		t.Fatalf("memo = %v", memo)
	}
	if _, err := turn.Result(ctx); err == nil || !strings.Contains(strings.ToLower(err.Error()), "timeout") && !strings.Contains(strings.ToLower(err.Error()), "timed out") {
		t.Fatalf("a turn past its start timeout: %v", err)
	}
	if _, err := c.Start(ctx, temporal.Request{ID: id, Messages: []chat.Message{chat.User("again")}},
		temporal.ReuseID(enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)); err == nil {
		t.Fatal("a second turn took the id of one that ended, against the reuse policy")
	}
}

// TestRollbackCannotCorruptATurn: a turn that a newer build started and paused for approval is
// refused, loudly and without a change to the turn, by a worker of an older build, whose
// decisions cannot reach it; once a worker of the newer build runs again, the turn takes its
// decision and ends, its tool run once.
func TestRollbackCannotCorruptATurn(t *testing.T) {
	tc := dial(t)
	queue := "rollback-" + rand.Text()[:8]
	runs := filepath.Join(t.TempDir(), "runs")
	cfg := approvalConfig(queue)

	newer := startWorker(t, tc, approvalClient(runs), temporal.NewerBuild(cfg)) // the new build
	ctx, turn := startTurn(t, tc, cfg, 2*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("delete it")}})
	st := waitPending(t, ctx, turn)
	newer.Stop()
	old := startWorker(t, tc, approvalClient(runs), cfg) // the rollback: the old build's worker
	quick, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := turn.Decide(quick, st.Seq, client.Approve(st.Pending()[0].Call.ID)); err == nil {
		t.Fatal("a worker of the old build took a decision for the new build's turn")
	}
	if ls := lines(t, runs); len(ls) != 0 {
		t.Fatalf("the old build ran the call: %v", ls)
	}

	old.Stop()
	startWorker(t, tc, approvalClient(runs), temporal.NewerBuild(cfg)) // the new build is back
	if err := turn.Decide(ctx, st.Seq, client.Approve(st.Pending()[0].Call.ID)); err != nil {
		t.Fatal(err)
	}
	resp, err := turn.Result(ctx)
	if err != nil || resp.Outcome != client.OutcomeAnswer {
		t.Fatalf("result = %+v, %v", resp, err)
	}
	if ls := lines(t, runs); len(ls) != 1 {
		t.Fatalf("runs = %v", ls)
	}
}

// TestScheduledTurns: a schedule starts a turn every second; each runs the client's loop and
// ends, its tool run once per turn.
func TestScheduledTurns(t *testing.T) {
	tc := dial(t)
	queue := "schedule-" + rand.Text()[:8]
	runs := filepath.Join(t.TempDir(), "runs")
	cfg := temporal.Config{TaskQueue: queue, EventPoll: 20 * time.Millisecond}
	startWorker(t, tc, crashClient(runs, false), cfg)
	c := turnClient(t, tc, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h, err := c.Schedule(ctx, "report-"+queue, sdkclient.ScheduleSpec{Intervals: []sdkclient.ScheduleIntervalSpec{{Every: time.Second}}},
		temporal.Request{Messages: []chat.Message{chat.User("charge and look up")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Delete(context.Background()) })
	eventually(t, time.Minute, "two scheduled turns to run their tools", func() bool {
		return count(lines(t, runs), "lookup_finished") >= 2
	})
	if err := h.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Schedule(ctx, "bad-"+queue, sdkclient.ScheduleSpec{}, temporal.Request{ID: "x", Messages: []chat.Message{chat.User("x")}}); err == nil {
		t.Fatal("a scheduled request with an id was accepted")
	}
}

// turnDiagnosis describes where a turn stands, for a test that waited for it in vain: its
// pending activities and the last events of its history.
func turnDiagnosis(t *testing.T, tc sdkclient.Client, id string) string {
	t.Helper()
	var b strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if desc, err := tc.DescribeWorkflowExecution(ctx, id, ""); err == nil {
		for _, a := range desc.GetPendingActivities() {
			fmt.Fprintf(&b, "pending %s %s: state %v, attempt %d, last failure %v\n", a.GetActivityId(), a.GetActivityType().GetName(), a.GetState(), a.GetAttempt(), a.GetLastFailure().GetMessage())
		}
		fmt.Fprintf(&b, "status %v, pending workflow task %v\n", desc.GetWorkflowExecutionInfo().GetStatus(), desc.GetPendingWorkflowTask())
	}
	h := fetchHistory(t, tc, id)
	for _, ev := range h.Events[max(0, len(h.Events)-30):] {
		fmt.Fprintf(&b, "%d %v %s\n", ev.GetEventId(), ev.GetEventType(), ev.GetEventTime().AsTime().Format("15:04:05.000"))
	}
	return b.String()
}

// activityCompleted reports whether the history of workflow id holds the completion of an
// activity whose id ends in suffix.
func activityCompleted(t *testing.T, tc sdkclient.Client, id, suffix string) bool {
	t.Helper()
	scheduled := map[int64]string{}
	for _, ev := range fetchHistory(t, tc, id).Events {
		switch ev.EventType {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			scheduled[ev.EventId] = ev.GetActivityTaskScheduledEventAttributes().ActivityId
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			if strings.HasSuffix(scheduled[ev.GetActivityTaskCompletedEventAttributes().ScheduledEventId], suffix) {
				return true
			}
		}
	}
	return false
}
