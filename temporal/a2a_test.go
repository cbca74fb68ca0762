package temporal_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"iter"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/wield-ai/wield/a2a"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/tool"
)

// a2aReplica serves an A2A agent whose tasks run on Temporal through runner, its tasks kept in
// repo, and returns an SDK client of it.
func a2aReplica(t *testing.T, runner a2a.Runner, repo memory.TurnRepository) *a2aclient.Client {
	t.Helper()
	return a2aServe(t, a2a.ServerConfig{Runner: runner, Tasks: repo})
}

// a2aServe serves an A2A agent of cfg and returns an SDK client of it.
func a2aServe(t *testing.T, cfg a2a.ServerConfig) *a2aclient.Client {
	t.Helper()
	cfg.Name = "records"
	srv, err := a2a.NewServer(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	card, err := agentcard.NewResolver(hs.Client()).Resolve(context.Background(), hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := a2aclient.NewFromCard(context.Background(), card, a2aclient.WithJSONRPCTransport(hs.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func a2aTask(t *testing.T, cl *a2aclient.Client, m *sdk.Message) *sdk.Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cl.SendMessage(ctx, &sdk.MessageSendParams{Message: m})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*sdk.Task)
	if !ok {
		t.Fatalf("answer %T", res)
	}
	return task
}

func onA2ATask(task *sdk.Task, parts ...sdk.Part) *sdk.Message {
	m := sdk.NewMessage(sdk.MessageRoleUser, parts...)
	m.TaskID, m.ContextID = task.ID, task.ContextID
	return m
}

// deleteTool deletes a file once approved, counting its runs in runs (if not nil).
func deleteTool(runs *atomic.Int32) tool.Tool {
	return tool.Must(tool.Func("delete", "Delete a file", func(_ context.Context, in pathIn) (string, error) {
		if runs != nil {
			runs.Add(1)
		}
		return "deleted " + in.Path, nil
	}, tool.RequiresApproval()))
}

// An A2A server's tasks run as durable turns (TaskRunner): a task's stop for approval is the
// turn's wait, a task's reply on another replica (sharing only the task repository) decides the
// waiting turn, whose tool runs once, and a cancelled task cancels its turn.
func TestA2ATasksOnDurableTurns(t *testing.T) {
	tc := dial(t)
	queue := "a2a-" + rand.Text()[:8]
	var runs atomic.Int32
	del := deleteTool(&runs)
	m := chattest.New(chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete", Arguments: `{"path":"notes.txt"}`}), chattest.Text("Done.")).Repeat()
	agent := newClient(m, client.WithTools(del))
	cfg := temporal.Config{TaskQueue: queue, EventPoll: 20 * time.Millisecond}
	startWorker(t, tc, agent, cfg)
	tcl := turnClient(t, tc, cfg)
	repo := memory.NewInMemory()
	first := a2aReplica(t, tcl.TaskRunner(temporal.StartTimeout(5*time.Minute)), repo)
	second := a2aReplica(t, tcl.TaskRunner(temporal.StartTimeout(5*time.Minute)), repo)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	task := a2aTask(t, first, sdk.NewMessage(sdk.MessageRoleUser, sdk.TextPart{Text: "delete my notes"}))
	if task.Status.State != sdk.TaskStateInputRequired || runs.Load() != 0 {
		t.Fatalf("first message: %s, tool ran %d times", task.Status.State, runs.Load())
	}
	if text := textOf(task.Status.Message); !strings.Contains(text, "c1: delete") || !strings.Contains(text, "needs approval") {
		t.Fatalf("the task waits for %q", text)
	}
	turn := tcl.Turn(temporal.TaskTurnID(string(task.ID)))
	if st, err := turn.Pending(ctx); err != nil || st == nil || len(st.Pending()) != 1 {
		t.Fatalf("the durable turn waits for %+v (%v)", st, err)
	}
	done := a2aTask(t, second, onA2ATask(task, sdk.TextPart{Text: "yes"}))
	if done.Status.State != sdk.TaskStateCompleted || runs.Load() != 1 {
		t.Fatalf("after the reply on another replica: %s %q, tool ran %d times", done.Status.State, textOf(done.Status.Message), runs.Load())
	}
	if answer := answerText(done); answer != "Done." {
		t.Fatalf("answer %q", answer)
	}
	if resp, err := turn.Result(ctx); err != nil || resp.Text() != "Done." {
		t.Fatalf("the durable turn: %+v %v", resp, err)
	}

	// A waiting task cancelled: its turn ends cancelled, and its tool never runs.
	waiting := a2aTask(t, first, sdk.NewMessage(sdk.MessageRoleUser, sdk.TextPart{Text: "delete my notes"}))
	if waiting.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("second task: %s", waiting.Status.State)
	}
	if _, err := second.CancelTask(ctx, &sdk.TaskIDParams{ID: waiting.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := tcl.Turn(temporal.TaskTurnID(string(waiting.ID))).Result(ctx); err == nil {
		t.Fatal("the cancelled task's turn ended without an error")
	} else if !strings.Contains(strings.ToLower(err.Error()), "cancel") {
		t.Fatalf("the cancelled task's turn: %v", err)
	}
	if runs.Load() != 1 {
		t.Fatalf("tool ran %d times", runs.Load())
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal("timed out")
	}
}

func textOf(m *sdk.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if tp, ok := p.(sdk.TextPart); ok {
			b.WriteString(tp.Text)
		}
	}
	return b.String()
}

// A task whose run outlives the server's RunTimeout fails as out of time, and its durable turn
// is cancelled with it rather than left running with no task to report to.
func TestA2ATaskOutOfTimeCancelsItsTurn(t *testing.T) {
	tc := dial(t)
	queue := "a2a-timeout-" + rand.Text()[:8]
	slow := tool.Must(tool.Func("slow", "Takes long", func(ctx context.Context, _ struct{}) (string, error) {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Minute):
			return "slow", nil
		}
	}))
	m := chattest.New(chattest.Calls(chat.ToolCall{ID: "s1", Name: "slow", Arguments: `{}`}), chattest.Text("Done.")).Repeat()
	cfg := temporal.Config{TaskQueue: queue, EventPoll: 20 * time.Millisecond}
	startWorker(t, tc, newClient(m, client.WithTools(slow)), cfg)
	tcl := turnClient(t, tc, cfg)
	cl := a2aServe(t, a2a.ServerConfig{Runner: tcl.TaskRunner(), RunTimeout: 2 * time.Second})
	task := a2aTask(t, cl, sdk.NewMessage(sdk.MessageRoleUser, sdk.TextPart{Text: "go slowly"}))
	if task.Status.State != sdk.TaskStateFailed || !strings.Contains(textOf(task.Status.Message), "out of time") {
		t.Fatalf("task %s %q", task.Status.State, textOf(task.Status.Message))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := tcl.Turn(temporal.TaskTurnID(string(task.ID))).Result(ctx); err == nil || !strings.Contains(strings.ToLower(err.Error()), "cancel") {
		t.Fatalf("the turn of a task out of time: %v", err)
	}
}

// A served task on a durable turn spends the share of its caller's tree the message carries,
// and its last status says what it spent.
func TestA2ATaskOnDurableTurnSpendsTheCallersShare(t *testing.T) {
	tc := dial(t)
	ls := tool.Must(tool.Func("ls", "List files", func(context.Context, struct{}) (string, error) { return "a b", nil }))
	m := chattest.New(chattest.Calls(chat.ToolCall{ID: "l1", Name: "ls", Arguments: `{}`}), chattest.Text("Listed.")).Repeat()
	cfg := temporal.Config{TaskQueue: "a2a-tree-" + rand.Text()[:8], EventPoll: 20 * time.Millisecond}
	startWorker(t, tc, newClient(m, client.WithTools(ls)), cfg)
	tcl := turnClient(t, tc, cfg)
	cl := a2aReplica(t, tcl.TaskRunner(), memory.NewInMemory())
	spent := func(task *sdk.Task) any {
		md, _ := task.Metadata[a2a.MetaTreeSpent].(map[string]any)
		return md["modelCalls"]
	}

	task := a2aTask(t, cl, sdk.NewMessage(sdk.MessageRoleUser, sdk.TextPart{Text: "list"}))
	if task.Status.State != sdk.TaskStateCompleted || spent(task) != float64(2) {
		t.Fatalf("without a share: %s, spent %v model calls (metadata %v)", task.Status.State, spent(task), task.Metadata)
	}
	msg := sdk.NewMessage(sdk.MessageRoleUser, sdk.TextPart{Text: "list"})
	msg.Metadata = map[string]any{a2a.MetaTree: client.TreeBudget{ModelCalls: 1}}
	task = a2aTask(t, cl, msg)
	if task.Status.State != sdk.TaskStateFailed || spent(task) != float64(1) {
		t.Fatalf("with a share of 1 model call: %s, spent %v model calls (metadata %v)", task.Status.State, spent(task), task.Metadata)
	}
}

// dyingRunner is the runner of a serving process that dies when dead ends: its runs stop
// following their turns, and it cancels nothing after.
type dyingRunner struct {
	*temporal.TaskRunner
	dead context.Context
}

func (r dyingRunner) Run(ctx context.Context, tr a2a.TurnRun) iter.Seq2[*client.Event, error] {
	return func(yield func(*client.Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(r.dead, cancel)()
		for ev, err := range r.TaskRunner.Run(ctx, tr) {
			if r.dead.Err() != nil || !yield(ev, err) {
				return
			}
		}
	}
}

func (r dyingRunner) CancelTurn(ctx context.Context, id string) error {
	if r.dead.Err() != nil {
		return errors.New("the process is dead")
	}
	return r.TaskRunner.CancelTurn(ctx, id)
}

// dyingRepo is a serving process's view of the shared task repository: it writes nothing once
// the process is dead.
type dyingRepo struct {
	memory.TurnRepository
	dead context.Context
}

func (d dyingRepo) SaveTurn(ctx context.Context, conv string, rec memory.TurnRecord) error {
	if d.dead.Err() != nil {
		return errors.New("the process is dead")
	}
	return d.TurnRepository.SaveTurn(ctx, conv, rec)
}

func (d dyingRepo) DeleteTurn(ctx context.Context, conv, id string, seq int64) error {
	if d.dead.Err() != nil {
		return errors.New("the process is dead")
	}
	return d.TurnRepository.DeleteTurn(ctx, conv, id, seq)
}

// A served task whose process dies while its durable turn runs is taken over by the replica
// that finds it, its lease passed: the task works on while the turn runs (not failed, its turn
// not cancelled), waits for input when the turn stops for approval, and the reply there resumes
// the turn, whose tools each ran once.
func TestA2ATaskOutlivesItsServingProcess(t *testing.T) {
	tc := dial(t)
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var slowRuns, delRuns atomic.Int32
	slow := tool.Must(tool.Func("slow", "Takes long", func(ctx context.Context, _ struct{}) (string, error) {
		slowRuns.Add(1)
		once.Do(func() { close(started) })
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-release:
			return "slow done", nil
		}
	}))
	del := deleteTool(&delRuns)
	// The model's answer depends on the conversation only: slow, then delete, then the answer.
	m := chattest.New(chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		last := p.Messages[len(p.Messages)-1]
		msg := chat.Message{Role: chat.RoleAssistant}
		finish := chat.FinishToolCalls
		switch {
		case last.Role != chat.RoleTool:
			msg.ToolCalls = []chat.ToolCall{{ID: "s1", Name: "slow", Arguments: `{}`}}
		case last.ToolResults[0].Content == "slow done":
			msg.ToolCalls = []chat.ToolCall{{ID: "d1", Name: "delete", Arguments: `{"path":"notes.txt"}`}}
		default:
			msg.Content, finish = "Done.", chat.FinishStop
		}
		return &chat.Response{Generations: []chat.Generation{{Message: msg, FinishReason: finish}}}, nil
	})).Repeat().DiscardPrompts()
	cfg := temporal.Config{TaskQueue: "a2a-dies-" + rand.Text()[:8], EventPoll: 20 * time.Millisecond}
	startWorker(t, tc, newClient(m, client.WithTools(slow, del)), cfg)
	tcl := turnClient(t, tc, cfg)
	const lease = time.Second
	dead, kill := context.WithCancel(context.Background())
	defer kill()
	repo := memory.NewInMemory()
	first := a2aServe(t, a2a.ServerConfig{Runner: dyingRunner{tcl.TaskRunner(), dead}, Tasks: dyingRepo{repo, dead}, TaskLease: lease})
	second := a2aServe(t, a2a.ServerConfig{Runner: tcl.TaskRunner(), Tasks: repo, TaskLease: lease})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	no := false
	res, err := first.SendMessage(ctx, &sdk.MessageSendParams{Message: sdk.NewMessage(sdk.MessageRoleUser, sdk.TextPart{Text: "tidy up"}), Config: &sdk.MessageSendConfig{Blocking: &no}})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*sdk.Task)
	if !ok {
		t.Fatalf("answer %T", res)
	}
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the slow call did not start")
	}
	kill()
	time.Sleep(2 * lease) // past the lease the dead process last wrote
	get := func() *sdk.Task {
		t.Helper()
		got, err := second.GetTask(ctx, &sdk.TaskQueryParams{ID: task.ID})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := get(); got.Status.State != sdk.TaskStateWorking {
		t.Fatalf("the task of the dead process while its turn runs: %s %q", got.Status.State, textOf(got.Status.Message))
	}
	close(release)
	got := get()
	for got.Status.State == sdk.TaskStateWorking && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
		got = get()
	}
	if got.Status.State != sdk.TaskStateInputRequired || !strings.Contains(textOf(got.Status.Message), "d1: delete") {
		t.Fatalf("once its turn stopped for approval: %s %q", got.Status.State, textOf(got.Status.Message))
	}
	done := a2aTask(t, second, onA2ATask(got, sdk.TextPart{Text: "yes"}))
	if done.Status.State != sdk.TaskStateCompleted || answerText(done) != "Done." {
		t.Fatalf("after the reply: %s %q %q", done.Status.State, textOf(done.Status.Message), answerText(done))
	}
	if slowRuns.Load() != 1 || delRuns.Load() != 1 {
		t.Fatalf("slow ran %d times, delete %d", slowRuns.Load(), delRuns.Load())
	}
}

func answerText(task *sdk.Task) string {
	var b strings.Builder
	for _, a := range task.Artifacts {
		for _, p := range a.Parts {
			if tp, ok := p.(sdk.TextPart); ok {
				b.WriteString(tp.Text)
			}
		}
	}
	return b.String()
}

// callThenGated calls a tool on the user's message, then answers as its gatedModel does.
type callThenGated struct {
	call chat.ToolCall
	*gatedModel
}

func (m callThenGated) Call(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
	return chat.Aggregate(m.Stream(ctx, p))
}

func (m callThenGated) Stream(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error] {
	if p.Messages[len(p.Messages)-1].Role == chat.RoleTool {
		return m.gatedModel.Stream(ctx, p)
	}
	return func(yield func(*chat.Response, error) bool) {
		yield(&chat.Response{Generations: []chat.Generation{{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{m.call}}, FinishReason: chat.FinishToolCalls}}}, nil)
	}
}

// A served task on a durable turn streams the progress an in-process task does: the model's
// text while its call runs, and the events of its sub-agent (a child workflow), attributed.
func TestA2ADurableTaskStreamsItsProgress(t *testing.T) {
	tc := dial(t)
	lookup := tool.Must(tool.Func("lookup", "Looks up", func(_ context.Context, in pathIn) (string, error) { return "found " + in.Path, nil }, tool.ReadOnly()))
	clerk := tool.Must(client.AgentTool(newClient(script(chat.ToolCall{ID: "k1", Name: "lookup", Arguments: `{"path":"invoice"}`}), client.WithTools(lookup)), "clerk", "Looks things up"))
	// Over the 512 bytes a task's text progress gathers before it is sent.
	gated := &gatedModel{first: strings.Repeat("word ", 120), rest: "and the end.", seen: make(chan struct{})}
	m := callThenGated{call: chat.ToolCall{ID: "a1", Name: "clerk", Arguments: `{"input":"find the invoice"}`}, gatedModel: gated}
	cfg := temporal.Config{TaskQueue: "a2a-stream-" + rand.Text()[:8], EventPoll: 20 * time.Millisecond, StreamInterval: 50 * time.Millisecond}
	startWorker(t, tc, newClient(m, client.WithTools(clerk)), cfg)
	tcl := turnClient(t, tc, cfg)
	cl := a2aReplica(t, tcl.TaskRunner(), memory.NewInMemory())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var text, clerkText strings.Builder
	var early, clerkCalled bool
	var state sdk.TaskState
	for ev, err := range cl.SendStreamingMessage(ctx, &sdk.MessageSendParams{Message: sdk.NewMessage(sdk.MessageRoleUser, sdk.TextPart{Text: "find the invoice"})}) {
		if err != nil {
			t.Fatal(err)
		}
		su, ok := ev.(*sdk.TaskStatusUpdateEvent)
		if !ok {
			continue
		}
		state = su.Status.State
		if su.Status.Message == nil {
			continue
		}
		for _, p := range su.Status.Message.Parts {
			switch v := p.(type) {
			case sdk.TextPart:
				if v.Metadata[a2a.MetaKind] != "text" {
					continue
				}
				if agent, _ := v.Metadata["agent"].(string); agent != "" {
					if agent != "clerk" {
						t.Fatalf("text of agent %q", agent)
					}
					clerkText.WriteString(v.Text)
					continue
				}
				text.WriteString(v.Text)
				if !gated.released.Load() && strings.Contains(text.String(), gated.first) {
					early = true
					close(gated.seen)
				}
			case sdk.DataPart:
				if v.Metadata[a2a.MetaKind] == "tool" && v.Data["agent"] == "clerk" && v.Data["tool"] == "lookup" {
					clerkCalled = true
				}
			}
		}
	}
	if state != sdk.TaskStateCompleted || text.String() != gated.first+gated.rest {
		t.Fatalf("the task %s, its text %q", state, text.String())
	}
	if !early {
		t.Fatal("the model's text did not stream while its call ran")
	}
	if !clerkCalled || clerkText.String() != "Done: found invoice" {
		t.Fatalf("the sub-agent's events: its tool call shown %v, its text %q", clerkCalled, clerkText.String())
	}
}

// A served task on a durable turn reports, in each message's last status, what that message's
// run spent of the share it carried: a caller that settles each message's share with it
// (client.TreeShare.Settle) counts the turn's spend once across the task's stop.
func TestA2ADurableTaskReportsEachRunsSpend(t *testing.T) {
	tc := dial(t)
	del := deleteTool(nil)
	m := chattest.New(chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete", Arguments: `{"path":"notes.txt"}`}), chattest.Text("Done.")).Repeat()
	cfg := temporal.Config{TaskQueue: "a2a-spend-" + rand.Text()[:8], EventPoll: 20 * time.Millisecond}
	startWorker(t, tc, newClient(m, client.WithTools(del)), cfg)
	tcl := turnClient(t, tc, cfg)
	cl := a2aReplica(t, tcl.TaskRunner(), memory.NewInMemory())
	withShare := func(m *sdk.Message) *sdk.Message {
		m.Metadata = map[string]any{a2a.MetaTree: client.TreeBudget{ModelCalls: 10, ToolCalls: 10}}
		return m
	}
	spent := func(task *sdk.Task) client.TreeSpent {
		t.Helper()
		raw, err := json.Marshal(task.Metadata[a2a.MetaTreeSpent])
		if err != nil {
			t.Fatal(err)
		}
		var s client.TreeSpent
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	task := a2aTask(t, cl, withShare(sdk.NewMessage(sdk.MessageRoleUser, sdk.TextPart{Text: "delete my notes"})))
	first := spent(task)
	if task.Status.State != sdk.TaskStateInputRequired || first != (client.TreeSpent{ModelCalls: 1, ToolCalls: 1}) {
		t.Fatalf("the first message: %s, spent %+v", task.Status.State, first)
	}
	done := a2aTask(t, cl, withShare(onA2ATask(task, sdk.TextPart{Text: "yes"})))
	second := spent(done)
	if done.Status.State != sdk.TaskStateCompleted || second != (client.TreeSpent{ModelCalls: 1}) {
		t.Fatalf("the reply: %s, spent %+v", done.Status.State, second)
	}
}

// The reply to a served task on a durable turn carries a share of its own, within which the
// resumed run spends, counted from nothing: a run that needs more model calls than the first
// message's share allowed completes within the reply's.
func TestA2ADurableTaskResumeSpendsTheRepliesShare(t *testing.T) {
	tc := dial(t)
	del := deleteTool(nil)
	ls := tool.Must(tool.Func("ls", "List files", func(context.Context, struct{}) (string, error) { return "a b", nil }, tool.ReadOnly()))
	m := chattest.New(chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete", Arguments: `{"path":"notes.txt"}`}),
		chattest.Calls(chat.ToolCall{ID: "l1", Name: "ls", Arguments: `{}`}), chattest.Text("Listed."))
	cfg := temporal.Config{TaskQueue: "a2a-share-" + rand.Text()[:8], EventPoll: 20 * time.Millisecond}
	startWorker(t, tc, newClient(m, client.WithTools(del, ls)), cfg)
	cl := a2aReplica(t, turnClient(t, tc, cfg).TaskRunner(), memory.NewInMemory())
	share := func(m *sdk.Message, calls int64) *sdk.Message {
		m.Metadata = map[string]any{a2a.MetaTree: client.TreeBudget{ModelCalls: calls, ToolCalls: 10}}
		return m
	}
	task := a2aTask(t, cl, share(sdk.NewMessage(sdk.MessageRoleUser, sdk.TextPart{Text: "tidy up"}), 1))
	if task.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("the first message: %s %q", task.Status.State, textOf(task.Status.Message))
	}
	done := a2aTask(t, cl, share(onA2ATask(task, sdk.TextPart{Text: "yes"}), 2))
	if done.Status.State != sdk.TaskStateCompleted || answerText(done) != "Listed." {
		t.Fatalf("the reply with a share of 2 model calls: %s %q", done.Status.State, textOf(done.Status.Message))
	}
}
