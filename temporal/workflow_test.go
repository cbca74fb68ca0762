package temporal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// The tests of this file run the agent's workflow in the Temporal SDK's test environment, with
// its real activities over a scripted model and recording tools.

const pathSchema = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`

// newTool is a tool taking a path and answering with fn, or "<name> done" without it; its Args
// are the arguments of its runs.
func newTool(name string, meta tool.Metadata, fn func(ctx context.Context, args string) (string, error)) *chattest.Tool {
	return &chattest.Tool{Def: tool.Definition{Name: name, Description: "the " + name + " tool", InputSchema: json.RawMessage(pathSchema)}, Meta: meta, Func: fn}
}

func call(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Arguments: args}
}

// env is a test environment running one agent's turn.
type env struct {
	t   *testing.T
	cfg Config
	*testsuite.TestWorkflowEnvironment
}

func newEnv(t *testing.T, c *client.Client, cfg Config) *env {
	t.Helper()
	if cfg.TaskQueue == "" {
		cfg.TaskQueue = "turns"
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, cfg: cfg, TestWorkflowEnvironment: quiet.NewTestWorkflowEnvironment()}
	e.SetTestTimeout(30 * time.Second)
	// The SDK's deadlock detector (1 s without the workflow yielding) trips on a loaded machine
	// under the race detector, though nothing is stuck.
	e.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute})
	register(e.TestWorkflowEnvironment, c, cfg, true, true)
	return e
}

func newClient(t *testing.T, m chat.Model, opts ...client.Option) *client.Client {
	t.Helper()
	opts = append([]client.Option{client.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)
	c, err := client.New(m, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// run runs the turn of req to its end and returns its response or error.
func (e *env) run(req *Request) (*client.Response, error) {
	e.t.Helper()
	if req.Messages == nil {
		req.Messages = []chat.Message{chat.User("go")}
	}
	e.ExecuteWorkflow(e.cfg.workflowName(), req)
	if !e.IsWorkflowCompleted() {
		e.t.Fatal("the turn did not end")
	}
	if err := e.GetWorkflowError(); err != nil {
		return nil, err
	}
	var resp client.Response
	if err := e.GetWorkflowResult(&resp); err != nil {
		e.t.Fatal(err)
	}
	return &resp, nil
}

// pending queries what the turn waits for.
func (e *env) pending() *client.TurnState {
	e.t.Helper()
	v, err := e.QueryWorkflow(queryPending)
	if err != nil {
		e.t.Fatal(err)
	}
	var st *client.TurnState
	if err := v.Get(&st); err != nil {
		e.t.Fatal(err)
	}
	return st
}

// events queries the turn's events as "kind:name" (chunks as "text:…").
func (e *env) events() []string {
	e.t.Helper()
	v, err := e.QueryWorkflow(queryEvents, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	var page eventsPage
	if err := v.Get(&page); err != nil {
		e.t.Fatal(err)
	}
	return describe(page.Events)
}

func describe(events []client.Event) []string {
	var out []string
	for _, ev := range events {
		switch {
		case ev.Chunk != nil:
			out = append(out, "text:"+ev.Text())
		case ev.Tool != nil:
			kind := map[client.ToolEventKind]string{client.ToolStarted: "start", client.ToolFinished: "finish",
				client.ToolApprovalRequired: "approval", client.ToolInterrupted: "interrupted"}[ev.Tool.Kind]
			out = append(out, kind+":"+ev.Tool.Call.Name)
		}
	}
	return out
}

// update is the outcome of a decide update, known once the update completed.
type update struct {
	done bool
	err  error
}

// decide sends decisions; the outcome is known once the workflow handled them (a rejection by
// the validator at once, the handler's answer when it ran).
func (e *env) decide(seq int64, decisions ...client.Decision) *update {
	u := &update{}
	e.UpdateWorkflow(updateDecide, fmt.Sprintf("u-%d-%d", seq, time.Now().UnixNano()), &testsuite.TestUpdateCallback{
		OnReject:   func(err error) { u.err, u.done = err, true },
		OnComplete: func(_ any, err error) { u.err, u.done = err, true },
	}, &decideRequest{Seq: seq, Decisions: decisions})
	return u
}

// check fails the test unless the update completed with an error containing want, or without
// an error when want is empty.
func (u *update) check(t *testing.T, want string) {
	t.Helper()
	switch {
	case !u.done:
		t.Fatal("the update did not complete")
	case want == "" && u.err != nil:
		t.Fatalf("update: %v", u.err)
	case want != "" && (u.err == nil || !strings.Contains(u.err.Error(), want)):
		t.Fatalf("update: %v, want an error containing %q", u.err, want)
	}
}

// at runs fn once the turn waits (the test clock jumps to it while the workflow is blocked).
func (e *env) at(d time.Duration, fn func()) { e.RegisterDelayedCallback(fn, d) }

func TestAnswerWithoutTools(t *testing.T) {
	m := chattest.New(chattest.Text("Hello.").WithUsage(5, 2))
	e := newEnv(t, newClient(t, m, client.WithSystem("be brief")), Config{})
	resp, err := e.run(&Request{Messages: []chat.Message{chat.User("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Outcome != client.OutcomeAnswer || resp.Text() != "Hello." || resp.ModelCalls != 1 || resp.Usage.InputTokens != 5 ||
		len(resp.Messages) != 1 || resp.Messages[0].Content != "Hello." {
		t.Fatalf("response = %+v", resp)
	}
	p := m.Prompt(0)
	if len(p.Messages) != 2 || p.Messages[0].Content != "be brief" || p.Messages[1].Content != "hi" {
		t.Fatalf("prompt = %+v", p.Messages)
	}
	if got := e.events(); !slices.Equal(got, []string{"text:Hello."}) {
		t.Fatalf("events = %v", got)
	}
}

func TestParallelCallsInTheModelsOrder(t *testing.T) {
	// Each call waits until all three run, so the round passes only if they run in parallel;
	// they finish in the reverse order.
	var started sync.WaitGroup
	started.Add(3)
	release := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{}), "c": make(chan struct{})}
	mk := func(name, next string) *chattest.Tool {
		return newTool(name, tool.Metadata{}, func(ctx context.Context, args string) (string, error) {
			started.Done()
			select {
			case <-release[name]:
			case <-time.After(10 * time.Second):
				return "", errors.New("the other calls did not run beside this one")
			}
			if next != "" {
				close(release[next])
			}
			return "result " + name, nil
		})
	}
	a, b, c := mk("a", ""), mk("b", "a"), mk("c", "b")
	go func() { started.Wait(); close(release["c"]) }()
	m := chattest.New(
		chattest.Calls(call("1", "a", `{"path":"x"}`), call("2", "b", `{"path":"y"}`), call("3", "c", `{"path":"z"}`)).WithUsage(1, 1),
		chattest.Text("done").WithUsage(2, 1),
	)
	e := newEnv(t, newClient(t, m, client.WithTools(a, b, c)), Config{})
	resp, err := e.run(&Request{})
	if err != nil {
		t.Fatal(err)
	}
	got := m.ToolResults(t, 1)
	if len(got) != 3 || got[0].Content != "result a" || got[1].Content != "result b" || got[2].Content != "result c" ||
		got[0].ID != "1" || got[2].ID != "3" {
		t.Fatalf("results = %+v", got)
	}
	if resp.Outcome != client.OutcomeAnswer || resp.ModelCalls != 2 || resp.Usage.InputTokens != 3 || len(resp.Messages) != 3 {
		t.Fatalf("response = %+v", resp)
	}
	ev := e.events()
	finished := slices.Sorted(slices.Values(ev[3:6]))
	if !slices.Equal(ev[:3], []string{"start:a", "start:b", "start:c"}) || !slices.Equal(finished, []string{"finish:a", "finish:b", "finish:c"}) || ev[6] != "text:done" {
		t.Fatalf("events = %v", ev)
	}
}

func TestApproveAfterAnInvalidDecision(t *testing.T) {
	del := newTool("delete", tool.Metadata{RequiresApproval: true}, nil)
	list := newTool("list", tool.Metadata{ReadOnly: true}, nil)
	m := chattest.New(
		chattest.Calls(call("c1", "list", `{"path":"/tmp"}`), call("c2", "delete", `{"path":"/tmp/a"}`)).WithText("Cleaning up."),
		chattest.Text("Deleted."),
	)
	e := newEnv(t, newClient(t, m, client.WithTools(del, list)), Config{})
	var bad, wrongStep, none, good, second *update
	e.at(time.Minute, func() {
		st := e.pending()
		if st == nil || st.Status != client.TurnApproval || st.Seq != 1 || st.Iteration != 0 || len(st.Messages) != 1 {
			t.Fatalf("pending = %+v", st)
		}
		if len(del.Args())+len(list.Args()) != 0 {
			t.Fatal("calls ran before the approval")
		}
		p := st.Pending()
		if len(p) != 1 || p[0].Call.ID != "c2" || p[0].Status != client.CallApproval || st.Round.Calls[0].Status != client.CallWaiting {
			t.Fatalf("pending calls = %+v", st.Round.Calls)
		}
		bad = e.decide(1, p[0].ApproveWith(`{"path":7}`))
		wrongStep = e.decide(2, p[0].Approve())
		none = e.decide(0)
	})
	e.at(2*time.Minute, func() {
		bad.check(t, "invalid decision")
		wrongStep.check(t, "step 2")
		none.check(t, "no decisions")
		if e.pending() == nil {
			t.Fatal("the turn stopped waiting after refused decisions")
		}
		good = e.decide(1, e.pending().Pending()[0].ApproveWith(`{"path":"/tmp/b"}`))
		second = e.decide(1, client.Approve("c2"))
	})
	resp, err := e.run(&Request{})
	if err != nil {
		t.Fatal(err)
	}
	good.check(t, "")
	second.check(t, "being checked")
	if !slices.Equal(del.Args(), []string{`{"path":"/tmp/b"}`}) || len(list.Args()) != 1 {
		t.Fatalf("runs: %v %v", del.Args(), list.Args())
	}
	if resp.Text() != "Deleted." || len(resp.Messages) != 3 || resp.Messages[0].ToolCalls[1].Arguments != `{"path":"/tmp/b"}` {
		t.Fatalf("response = %+v", resp)
	}
	if e.pending() != nil {
		t.Fatal("a finished turn still waits")
	}
	want := []string{"text:Cleaning up.", "approval:delete", "start:list", "start:delete"}
	if got := e.events(); !slices.Equal(got[:4], want) || len(got) != 7 || got[6] != "text:Deleted." {
		t.Fatalf("events = %v", got)
	}
}

func TestRejectAndPolicy(t *testing.T) {
	send := newTool("send", tool.Metadata{}, nil)
	m := chattest.New(chattest.Calls(call("c1", "send", `{"path":"mail"}`)), chattest.Text("Not sent."))
	e := newEnv(t, newClient(t, m, client.WithTools(send), client.WithApproval(toolcall.AskTools("send"))), Config{})
	e.at(time.Minute, func() {
		e.decide(1, client.Reject("c1", "not today"))
	})
	resp, err := e.run(&Request{})
	if err != nil {
		t.Fatal(err)
	}
	if len(send.Args()) != 0 || resp.Text() != "Not sent." {
		t.Fatalf("runs %v, response %q", send.Args(), resp.Text())
	}
	if r := m.ToolResults(t, 1); r[0].Content != "not today" || !r[0].IsError {
		t.Fatalf("results = %+v", r)
	}
}

func TestInterruptAnswerAndRestart(t *testing.T) {
	ask := newTool("ask", tool.Metadata{}, func(ctx context.Context, _ string) (string, error) {
		if r, ok := toolcall.Resumed(ctx); ok {
			if r.Interrupt == nil || r.Interrupt.Message != "which one?" {
				return "", fmt.Errorf("resumed without the interrupt: %+v", r)
			}
			return "picked " + string(r.Data), nil
		}
		return "", toolcall.InterruptWith("which one?", []string{"red", "blue"})
	})
	other := newTool("other", tool.Metadata{}, nil)
	m := chattest.New(
		chattest.Calls(call("c1", "ask", `{"path":"a"}`), call("c2", "other", `{"path":"b"}`)),
		chattest.Calls(call("c3", "ask", `{"path":"c"}`)),
		chattest.Text("ok"),
	)
	e := newEnv(t, newClient(t, m, client.WithTools(ask, other)), Config{WorkflowLoop: true}) // its step numbering
	e.at(time.Minute, func() {
		st := e.pending()
		if st == nil || st.Status != client.TurnInterrupted || st.Round.Calls[1].Status != client.CallDone {
			t.Fatalf("pending = %+v", st)
		}
		p := st.Pending()
		if len(p) != 1 || p[0].Interrupt == nil || string(p[0].Interrupt.Data) != `["red","blue"]` {
			t.Fatalf("pending calls = %+v", p)
		}
		e.decide(st.Seq, p[0].Answer("the red one"))
	})
	e.at(2*time.Minute, func() {
		st := e.pending()
		if st == nil || st.Seq != 2 || st.Iteration != 1 {
			t.Fatalf("second stop = %+v", st)
		}
		e.decide(2, st.Pending()[0].Restart("", json.RawMessage(`"blue"`)))
	})
	resp, err := e.run(&Request{})
	if err != nil {
		t.Fatal(err)
	}
	if r := m.ToolResults(t, 1); r[0].Content != "the red one" || r[1].Content != "other done" {
		t.Fatalf("first round = %+v", r)
	}
	if r := m.ToolResults(t, 2); r[0].Content != `picked "blue"` {
		t.Fatalf("second round = %+v", r)
	}
	if len(other.Args()) != 1 || len(ask.Args()) != 3 || resp.ModelCalls != 3 || len(resp.Messages) != 5 {
		t.Fatalf("runs %v %v, response %+v", other.Args(), ask.Args(), resp)
	}
	got := e.events()
	if !slices.Contains(got, "interrupted:ask") {
		t.Fatalf("events = %v", got)
	}
}

func TestSequentialToolRunsAlone(t *testing.T) {
	var mu sync.Mutex
	running, most := 0, 0
	track := func(ctx context.Context, args string) (string, error) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
		return args, nil
	}
	seq := newTool("seq", tool.Metadata{Sequential: true}, track)
	par := newTool("par", tool.Metadata{}, track)
	m := chattest.New(chattest.Calls(call("1", "seq", `{"path":"1"}`), call("2", "seq", `{"path":"2"}`)), chattest.Text("ok"))
	e := newEnv(t, newClient(t, m, client.WithTools(seq, par)), Config{})
	if _, err := e.run(&Request{}); err != nil {
		t.Fatal(err)
	}
	if most != 1 || len(seq.Args()) != 2 {
		t.Fatalf("at most %d sequential calls at once; runs %v", most, seq.Args())
	}
}

func TestReturnDirect(t *testing.T) {
	d := newTool("direct", tool.Metadata{ReturnDirect: true}, func(context.Context, string) (string, error) { return "42", nil })
	m := chattest.New(chattest.Calls(call("1", "direct", `{"path":"q"}`)).WithUsage(3, 1))
	e := newEnv(t, newClient(t, m, client.WithTools(d)), Config{})
	resp, err := e.run(&Request{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Outcome != client.OutcomeReturnDirect || resp.Text() != "42" || len(resp.ToolResults) != 1 || resp.ModelCalls != 1 || len(resp.Messages) != 2 {
		t.Fatalf("response = %+v", resp)
	}
}

func TestLimits(t *testing.T) {
	script := func() *chattest.Model {
		return chattest.New(
			chattest.Calls(call("1", "loop", `{"path":"a"}`), call("2", "loop", `{"path":"b"}`)),
			chattest.Calls(call("3", "loop", `{"path":"c"}`)),
			chattest.Text("ok"),
		)
	}
	t.Run("Fail", func(t *testing.T) {
		loop := newTool("loop", tool.Metadata{}, nil)
		mgr := toolcall.New(toolcall.Config{Limits: toolcall.Limits{PerTool: 2}})
		e := newEnv(t, newClient(t, script(), client.WithTools(loop), client.WithManager(mgr)), Config{})
		_, err := e.run(&Request{})
		if err == nil || !strings.Contains(err.Error(), "limit (2) exceeded") {
			t.Fatalf("err = %v", err)
		}
		if len(loop.Args()) != 2 {
			t.Fatalf("runs = %v", loop.Args())
		}
	})
	t.Run("TellModel", func(t *testing.T) {
		loop := newTool("loop", tool.Metadata{}, nil)
		m := script()
		mgr := toolcall.New(toolcall.Config{Limits: toolcall.Limits{PerTool: 2, OnExceeded: toolcall.LimitTellModel}})
		e := newEnv(t, newClient(t, m, client.WithTools(loop), client.WithManager(mgr)), Config{})
		if _, err := e.run(&Request{}); err != nil {
			t.Fatal(err)
		}
		if r := m.ToolResults(t, 2); !r[0].IsError || !strings.Contains(r[0].Content, "limit (2) reached") || len(loop.Args()) != 2 {
			t.Fatalf("results %+v, runs %v", r, loop.Args())
		}
		if got := e.events(); !slices.Equal(got[len(got)-3:], []string{"start:loop", "finish:loop", "text:ok"}) {
			t.Fatalf("events = %v", got)
		}
	})
}

func TestIterationCap(t *testing.T) {
	loop := newTool("loop", tool.Metadata{}, nil)
	m := chattest.New(
		chattest.Calls(call("1", "loop", `{"path":"a"}`)),
		chattest.Calls(call("2", "loop", `{"path":"b"}`)),
		chattest.Calls(call("3", "loop", `{"path":"c"}`)).WithText("stopping"),
	)
	e := newEnv(t, newClient(t, m, client.WithTools(loop)), Config{MaxIterations: 2, WorkflowLoop: true}) // the client loop has the client's cap
	resp, err := e.run(&Request{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Outcome != client.OutcomeIterationLimit || len(loop.Args()) != 2 || m.Prompt(2).Options.ToolChoice != "none" {
		t.Fatalf("outcome %v, runs %v, choice %q", resp.Outcome, loop.Args(), m.Prompt(2).Options.ToolChoice)
	}
}

func TestToolErrorsGoToTheModel(t *testing.T) {
	bad := newTool("bad", tool.Metadata{}, func(context.Context, string) (string, error) { panic("boom") })
	m := chattest.New(chattest.Calls(call("1", "bad", `{"path":"a"}`), call("2", "nope", `{}`), call("3", "bad", `{"path":1}`)), chattest.Text("ok"))
	e := newEnv(t, newClient(t, m, client.WithTools(bad)), Config{})
	if _, err := e.run(&Request{}); err != nil {
		t.Fatal(err)
	}
	r := m.ToolResults(t, 1)
	if !r[0].IsError || !strings.Contains(r[0].Content, "boom") || !r[1].IsError || !strings.Contains(r[1].Content, "unknown tool") || !r[2].IsError {
		t.Fatalf("results = %+v", r)
	}
}

func TestFatalToolErrorEndsTheTurn(t *testing.T) {
	bad := newTool("bad", tool.Metadata{}, func(context.Context, string) (string, error) { return "", tool.Fatal(errors.New("disk on fire")) })
	m := chattest.New(chattest.Calls(call("1", "bad", `{"path":"a"}`)), chattest.Text("unreachable"))
	e := newEnv(t, newClient(t, m, client.WithTools(bad)), Config{})
	_, err := e.run(&Request{})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || m.Requests() != 1 {
		t.Fatalf("err = %v, model calls %d", err, m.Requests())
	}
}

func TestLostCallWaitsForADecision(t *testing.T) {
	charge := newTool("charge", tool.Metadata{}, nil)
	read := newTool("read", tool.Metadata{ReadOnly: true}, nil)
	m := chattest.New(chattest.Calls(call("1", "charge", `{"path":"card"}`), call("2", "read", `{"path":"f"}`)), chattest.Text("ok"))
	c := newClient(t, m, client.WithTools(charge, read))
	e := newEnv(t, c, Config{WorkflowLoop: true}) // its activities are mocked
	// The first attempt of each call is lost, as when its worker dies: the idempotent read is
	// retried, the charge waits for the application.
	real := newActivities(c, e.cfg)
	attempts := map[string]int{}
	var mu sync.Mutex
	e.OnActivity(e.cfg.activity(actTool), mockAny, mockAny).Return(func(ctx context.Context, in toolInput) (*toolOutput, error) {
		mu.Lock()
		attempts[in.Call.Name]++
		n := attempts[in.Call.Name]
		mu.Unlock()
		if n == 1 {
			return nil, errors.New("worker lost")
		}
		return real.Tool(ctx, in)
	})
	e.at(time.Hour, func() {
		st := e.pending()
		if st == nil || st.Status != client.TurnRunning || st.Round.Calls[0].Status != client.CallRunning || st.Round.Calls[1].Status != client.CallDone {
			t.Fatalf("pending = %+v", st)
		}
		p := st.Pending()
		if len(p) != 1 || p[0].Call.Name != "charge" {
			t.Fatalf("pending calls = %+v", p)
		}
		e.decide(st.Seq, p[0].Restart("", nil))
	})
	if _, err := e.run(&Request{}); err != nil {
		t.Fatal(err)
	}
	if attempts["charge"] != 2 || attempts["read"] != 2 || len(charge.Args()) != 1 || len(read.Args()) != 1 {
		t.Fatalf("attempts %v, runs %v %v", attempts, charge.Args(), read.Args())
	}
	if got := e.events(); !slices.Contains(got, "interrupted:charge") {
		t.Fatalf("events = %v", got)
	}
}

func TestMemory(t *testing.T) {
	repo := memory.NewInMemory()
	mem := memory.NewWindow(repo, 50)
	ctx := context.Background()
	if err := mem.Add(ctx, "conv", chat.User("earlier"), chat.Assistant("yes")); err != nil {
		t.Fatal(err)
	}
	look := newTool("look", tool.Metadata{}, nil)
	m := chattest.New(chattest.Calls(call("1", "look", `{"path":"a"}`)), chattest.Text("seen"))
	e := newEnv(t, newClient(t, m, client.WithTools(look)), Config{Memory: mem})
	if _, err := e.run(&Request{ConversationID: "conv", Messages: []chat.Message{chat.User("look")}}); err != nil {
		t.Fatal(err)
	}
	if p := m.Prompt(0); len(p.Messages) != 3 || p.Messages[0].Content != "earlier" {
		t.Fatalf("first prompt = %+v", p.Messages)
	}
	got, err := repo.Messages(ctx, "conv")
	if err != nil {
		t.Fatal(err)
	}
	roles := make([]string, len(got))
	for i, msg := range got {
		roles[i] = string(msg.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,user,assistant,tool,assistant" || got[5].Content != "seen" {
		t.Fatalf("stored = %v", roles)
	}
}

func TestRememberStoresOnceWhenACompletionIsLost(t *testing.T) {
	repo := memory.NewInMemory()
	mem := memory.NewWindow(repo, 50)
	m := chattest.New(chattest.Text("hello"))
	c := newClient(t, m)
	e := newEnv(t, c, Config{Memory: mem})
	// Every first attempt of a memory activity stores, then loses its completion, as when its
	// worker dies right after the write; the retry must not store again.
	real := newActivities(c, e.cfg)
	e.OnActivity(e.cfg.activity(actLoad), mockAny, mockAny).Return(func(ctx context.Context, in memoryInput) ([]chat.Message, error) {
		out, err := real.LoadMemory(ctx, in)
		if activity.GetInfo(ctx).Attempt == 1 {
			return nil, errors.New("completion lost")
		}
		return out, err
	})
	e.OnActivity(e.cfg.activity(actRemember), mockAny, mockAny).Return(func(ctx context.Context, in memoryInput) error {
		err := real.Remember(ctx, in)
		if activity.GetInfo(ctx).Attempt == 1 {
			return errors.New("completion lost")
		}
		return err
	})
	if _, err := e.run(&Request{ConversationID: "c", Messages: []chat.Message{chat.User("hi")}}); err != nil {
		t.Fatal(err)
	}
	got, err := repo.Messages(context.Background(), "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Content != "hi" || got[1].Content != "hello" {
		t.Fatalf("stored = %+v", got)
	}
	if p := m.Prompt(0); len(p.Messages) != 1 {
		t.Fatalf("the model saw %+v", p.Messages)
	}
}

// mockAny matches any argument of a mocked activity.
var mockAny = mock.Anything

// quiet is the test suite of this package's workflow tests.
var quiet testsuite.WorkflowTestSuite

func init() {
	// The test environment logs every step at debug level; the tests read what they need.
	quiet.SetLogger(sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
}

func TestPartsCrossActivities(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nnot really")
	shot := tool.Must(tool.Func("screenshot", "Takes a screenshot", func(context.Context, struct{}) (content.Part, error) {
		return content.Image(png, "image/png"), nil
	}))
	m := chattest.New(chattest.Calls(call("1", "screenshot", `{}`)), chattest.Text("a cat"))
	e := newEnv(t, newClient(t, m, client.WithTools(shot)), Config{})
	resp, err := e.run(&Request{Messages: []chat.Message{chat.User("what is this?", content.Image(png, "image/png"))}})
	if err != nil {
		t.Fatal(err)
	}
	if parts := m.Prompt(0).Messages[0].Parts; len(parts) != 1 || !bytes.Equal(parts[0].Data, png) {
		t.Fatalf("the user's parts reached the model as %+v", parts)
	}
	r := m.ToolResults(t, 1)[0]
	if len(r.Parts) != 1 || r.Parts[0].Kind != content.KindImage || !bytes.Equal(r.Parts[0].Data, png) {
		t.Fatalf("the tool's parts reached the model as %+v", r)
	}
	if got := resp.Messages[1].ToolResults[0].Parts; len(got) != 1 || !bytes.Equal(got[0].Data, png) {
		t.Fatalf("the turn's messages hold %+v", got)
	}
}

func TestToolProgressIsHeartbeatDetails(t *testing.T) {
	slow := newTool("slow", tool.Metadata{}, func(ctx context.Context, _ string) (string, error) {
		tool.ReportProgress(ctx, tool.Progress{Progress: 1, Total: 4, Message: "a quarter"})
		return "done", nil
	})
	m := chattest.New(chattest.Calls(call("1", "slow", `{"path":"x"}`)), chattest.Text("ok"))
	e := newEnv(t, newClient(t, m, client.WithTools(slow)), Config{})
	var mu sync.Mutex
	var got []tool.Progress
	e.SetOnActivityHeartbeatListener(func(info *activity.Info, details converter.EncodedValues) {
		var p tool.Progress
		if info.ActivityType.Name == e.cfg.activity(actInvokeTool) && details.HasValues() && details.Get(&p) == nil {
			mu.Lock()
			got = append(got, p)
			mu.Unlock()
		}
	})
	if _, err := e.run(&Request{}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 || got[0] != (tool.Progress{Progress: 1, Total: 4, Message: "a quarter"}) {
		t.Fatalf("heartbeats = %+v", got)
	}
}

func TestSubAgentApproval(t *testing.T) {
	write := newTool("write", tool.Metadata{RequiresApproval: true}, nil)
	inner := chattest.New(chattest.Calls(call("w1", "write", `{"path":"notes.txt"}`)), chattest.Text("written"))
	helper := tool.Must(client.AgentTool(newClient(t, inner, client.WithTools(write)), "helper", "Writes files"))
	m := chattest.New(chattest.Calls(call("h1", "helper", `{"input":"write the notes"}`)), chattest.Text("the helper wrote them"))
	e := newEnv(t, newClient(t, m, client.WithTools(helper)), Config{})
	var bad, good *update
	e.at(time.Minute, func() {
		st := e.pending()
		if st == nil || st.Round.Calls[0].Child == nil {
			t.Fatalf("pending = %+v", st)
		}
		p := st.Pending()
		if len(p) != 1 || p[0].Agent != "helper" || p[0].Call.Name != "write" || !slices.Equal(p[0].Path, []string{"h1"}) {
			t.Fatalf("pending calls = %+v", p)
		}
		bad = e.decide(st.Seq, p[0].ApproveWith(`{"path":5}`)) // the sub-agent's tool refuses it
	})
	e.at(2*time.Minute, func() {
		bad.check(t, "invalid decision")
		p := e.pending().Pending()
		good = e.decide(1, p[0].Approve())
	})
	resp, err := e.run(&Request{})
	if err != nil {
		t.Fatal(err)
	}
	good.check(t, "")
	if !slices.Equal(write.Args(), []string{`{"path":"notes.txt"}`}) || resp.Text() != "the helper wrote them" {
		t.Fatalf("runs %v, answer %q", write.Args(), resp.Text())
	}
	if r := m.ToolResults(t, 1); r[0].Content != "written" {
		t.Fatalf("the helper's result = %+v", r)
	}
}

func TestFatalToolErrorCancelsTheOtherCalls(t *testing.T) {
	for _, clientLoop := range []bool{false, true} {
		t.Run(fmt.Sprintf("clientLoop=%v", clientLoop), func(t *testing.T) { fatalCancelsTheOthers(t, clientLoop) })
	}
}

func fatalCancelsTheOthers(t *testing.T, clientLoop bool) {
	cancelled := make(chan bool, 1)
	bad := newTool("bad", tool.Metadata{}, func(context.Context, string) (string, error) {
		time.Sleep(50 * time.Millisecond) // the other call is running by now
		return "", tool.Fatal(errors.New("disk on fire"))
	})
	slow := newTool("slow", tool.Metadata{}, func(ctx context.Context, _ string) (string, error) {
		select {
		case <-ctx.Done():
			cancelled <- true
			return "", ctx.Err()
		case <-time.After(10 * time.Second):
			cancelled <- false
			return "finished", nil
		}
	})
	m := chattest.New(chattest.Calls(call("1", "bad", `{"path":"a"}`), call("2", "slow", `{"path":"b"}`)), chattest.Text("unreachable"))
	// The other call learns of its cancellation at its next heartbeat.
	e := newEnv(t, newClient(t, m, client.WithTools(bad, slow)), Config{HeartbeatTimeout: 300 * time.Millisecond, WorkflowLoop: !clientLoop})
	_, err := e.run(&Request{})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v", err)
	}
	select {
	case c := <-cancelled:
		if !c {
			t.Fatal("the other call was not cancelled")
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the other call did not end")
	}
}

func TestRequestReachesModelAndTools(t *testing.T) {
	var seen tool.Context
	who := tool.Must(tool.Func("who", "Says who asks", func(ctx context.Context, _ struct{}) (string, error) {
		seen = tool.ContextFrom(ctx)
		return fmt.Sprint(seen["user"]), nil
	}))
	extra := newTool("extra", tool.Metadata{}, nil)
	resolver, err := tool.NewStaticResolver(extra)
	if err != nil {
		t.Fatal(err)
	}
	m := chattest.New(chattest.Calls(call("1", "who", `{}`)), chattest.Text("ok"))
	c := newClient(t, m, client.WithSystem("the client's system"), client.WithTools(who),
		client.WithToolContext(tool.Context{"tenant": "t0", "user": "nobody"}),
		client.WithManager(toolcall.New(toolcall.Config{Resolver: resolver})))
	e := newEnv(t, c, Config{})
	system := "the turn's system"
	_, err = e.run(&Request{
		System:      &system,
		Options:     &chat.Options{Model: "m2", MaxTokens: 7},
		ToolNames:   []string{"extra"},
		ToolContext: tool.Context{"user": "ada", "n": 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := m.Prompt(0)
	var names []string
	for _, tl := range p.Options.Tools {
		names = append(names, tl.Definition().Name)
	}
	if p.Messages[0].Content != system || p.Options.Model != "m2" || p.Options.MaxTokens != 7 || !slices.Equal(names, []string{"who", "extra"}) {
		t.Fatalf("prompt = %+v, tools %v", p, names)
	}
	// The tool context crossed as JSON: the client's defaults under the turn's.
	if seen["tenant"] != "t0" || seen["user"] != "ada" || seen["n"] != float64(3) {
		t.Fatalf("tool context = %#v", seen)
	}
}

func TestModelErrors(t *testing.T) {
	t.Run("NotTemporary", func(t *testing.T) {
		m := chattest.New(chattest.Fail(&chat.ProviderError{Provider: "p", StatusCode: 400, Message: "bad request"}))
		e := newEnv(t, newClient(t, m), Config{})
		_, err := e.run(&Request{})
		if err == nil || !strings.Contains(err.Error(), "bad request") || m.Requests() != 1 {
			t.Fatalf("err = %v after %d calls", err, m.Requests())
		}
	})
	t.Run("Temporary", func(t *testing.T) {
		m := chattest.New(chattest.Fail(&chat.ProviderError{Provider: "p", StatusCode: 503, Message: "overloaded"}), chattest.Text("ok"))
		e := newEnv(t, newClient(t, m), Config{})
		resp, err := e.run(&Request{})
		if err != nil || resp.Text() != "ok" || m.Requests() != 2 {
			t.Fatalf("response %+v, err %v, after %d calls", resp, err, m.Requests())
		}
	})
}

// A sub-agent call's resume data holds the sub-agent's state, which the round holds already:
// the decisions' plans leave it out, and restoring gives back data that decodes alike.
func TestPlansLeaveOutWhatTheRoundHolds(t *testing.T) {
	child := &client.TurnState{Version: client.TurnStateVersion, ID: "inner", Status: client.TurnApproval,
		Messages: []chat.Message{chat.User(strings.Repeat("m", 4096))}}
	interrupt := &toolcall.InterruptError{Message: "which?", Data: json.RawMessage(`"` + strings.Repeat("d", 4096) + `"`)}
	done := &chat.ToolResult{ID: "c1", Name: "read", Content: strings.Repeat("r", 4096)}
	round := &client.Round{Calls: []client.PendingCall{
		{Call: chat.ToolCall{ID: "c1", Name: "read"}, Status: client.CallDone, Result: done},
		{Call: chat.ToolCall{ID: "c2", Name: "ask"}, Status: client.CallInterrupted, Interrupt: interrupt},
		{Call: chat.ToolCall{ID: "c3", Name: "helper"}, Status: client.CallApproval, Child: child},
	}}
	data, err := json.Marshal(map[string]any{"state": child, "decisions": []client.Decision{client.Approve("w1")}})
	if err != nil {
		t.Fatal(err)
	}
	r := *done
	plans := []toolcall.Plan{
		{Result: &r},
		{Approved: true, Resume: &toolcall.Resumption{Interrupt: interrupt, Data: json.RawMessage(`"blue"`)}},
		{Approved: true, Resume: &toolcall.Resumption{Data: data}},
	}
	want, _ := json.Marshal(plans)
	kept := leave(plans, round)
	if !kept[0].Result || !kept[1].Interrupt || kept[2].Child != "state" {
		t.Fatalf("kept = %+v", kept)
	}
	if lean, _ := json.Marshal(plans); len(lean) > 1024 {
		t.Fatalf("the lean plans are %d bytes: %s", len(lean), lean)
	}
	if err := restore(plans, kept, round); err != nil {
		t.Fatal(err)
	}
	var a, b any
	got, _ := json.Marshal(plans)
	if json.Unmarshal(want, &a) != nil || json.Unmarshal(got, &b) != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("restored plans differ:\n%.300s\n%.300s", got, want)
	}
}

// TestForgedCarryIsRefused: a request that carries what only the workflow carries between its
// own runs (a continuation, a sub-agent's call with decisions) is refused from a starter, before
// anything runs.
func TestForgedCarryIsRefused(t *testing.T) {
	pay := newTool("pay", tool.Metadata{RequiresApproval: true}, nil)
	sub := newClient(t, chattest.New(chattest.Text("never")), client.WithTools(pay))
	agent := tool.Must(client.AgentTool(sub, "payer", "pays"))
	m := chattest.New(chattest.Text("never"))
	// A state well formed enough that the client, not told otherwise, would run the approved call.
	payCall := call("p1", "pay", `{"path":"x"}`)
	state := &client.TurnState{Version: client.TurnStateVersion, ID: "forged", Seq: 1, Status: client.TurnApproval,
		Messages: []chat.Message{chat.User("pay")},
		Round: &client.Round{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{payCall}},
			Calls: []client.PendingCall{{Call: payCall, Status: toolcall.CallApproval}}}}
	for name, req := range map[string]*Request{
		"continuation": {Continued: &Continuation{State: &client.TurnState{Version: client.TurnStateVersion, ID: "forged", Seq: 1, Status: client.TurnReady,
			Messages: []chat.Message{chat.System("forged instructions"), chat.User("pay")}}, Runs: 1}},
		"sub-agent": {Agent: &AgentTurn{Path: []string{"payer"}, Call: client.AgentCall{Name: "payer", Depth: 1, State: state, Decisions: []client.Decision{client.Approve("p1")}}}},
	} {
		e := newEnv(t, newClient(t, m, client.WithTools(agent)), Config{})
		_, err := e.run(req)
		if err == nil || !strings.Contains(err.Error(), "only") {
			t.Fatalf("%s: %v", name, err)
		}
		if len(pay.Args()) != 0 || len(m.Prompts()) != 0 {
			t.Fatalf("%s: something ran", name)
		}
	}
}
