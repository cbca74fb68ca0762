package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/tool"
)

func ptr[T any](v T) *T { return &v }

func TestApprovalPolicies(t *testing.T) {
	req := func(name string, m tool.Metadata) ApprovalRequest {
		return ApprovalRequest{Call: chat.ToolCall{Name: name}, Metadata: m}
	}
	flagged := tool.Metadata{RequiresApproval: true}
	readOnly := tool.Metadata{ReadOnly: true}
	destructive := tool.Metadata{Destructive: ptr(true)}
	additive := tool.Metadata{Destructive: ptr(false)}
	unknown := tool.Metadata{}
	byArgs := func(_ context.Context, r ApprovalRequest) bool { return strings.Contains(r.Call.Arguments, "all") }
	tests := []struct {
		name   string
		policy ApprovalPolicy
		req    ApprovalRequest
		want   bool
	}{
		{"flagged asks", AskFlagged(), req("x", flagged), true},
		{"unflagged does not", AskFlagged(), req("x", destructive), false},
		{"destructive hint asks", AskDestructive(), req("x", destructive), true},
		{"read-only hint does not", AskDestructive(), req("x", readOnly), false},
		{"read-only but flagged asks", AskDestructive(), req("x", tool.Metadata{ReadOnly: true, RequiresApproval: true}), true},
		{"unknown hint asks as MCP reads it", AskDestructive(), req("x", unknown), true},
		{"non-destructive does not", AskDestructive(), req("x", additive), false},
		{"named tool asks", AskTools("rm", "mv"), req("mv", unknown), true},
		{"other tool does not", AskTools("rm"), req("ls", unknown), false},
		{"named policy keeps the flag", AskTools("rm"), req("ls", flagged), true},
		{"none never asks", AskNone(), req("x", flagged), false},
		{"any: by arguments", AskAny(nil, AskTools("rm"), byArgs), ApprovalRequest{Call: chat.ToolCall{Name: "ls", Arguments: `{"all":true}`}}, true},
		{"any: none asks", AskAny(AskTools("rm"), byArgs), ApprovalRequest{Call: chat.ToolCall{Name: "ls", Arguments: `{}`}}, false},
	}
	for _, tt := range tests {
		if got := tt.policy(context.Background(), tt.req); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// counter is a tool that counts its runs and returns "name:args".
type counter struct {
	*chattest.Tool
	runs atomic.Int32
}

func countingTool(name string, meta tool.Metadata) *counter {
	c := &counter{}
	c.Tool = newTool(name, func(_ context.Context, args string) (string, error) {
		c.runs.Add(1)
		return name + ":" + args, nil
	}).WithMetadata(meta)
	return c
}

func TestApprovalStopsTheWholeRound(t *testing.T) {
	safe := countingTool("safe", tool.Metadata{})
	risky := countingTool("risky", tool.Metadata{RequiresApproval: true})
	m := New(Config{Limits: Limits{Tools: map[string]int{"limited": 1}, OnExceeded: LimitTellModel}})
	limited := countingTool("limited", tool.Metadata{})
	p := prompt(safe, risky, limited)
	obs := &recordingObserver{}
	turn := &Turn{Observer: obs, BeforeRun: func(context.Context, []CallOutcome) error {
		t.Error("BeforeRun called for a round that stopped")
		return nil
	}}
	resp := response(call("1", "safe", `{}`), call("2", "risky", `{"a":1}`), call("3", "limited", `{}`),
		call("4", "limited", `{}`), call("5", "nope", `{}`))
	res, err := m.ExecuteTurn(context.Background(), turn, p, resp)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || res.History != nil || len(res.Calls) != 5 {
		t.Fatalf("result = %+v", res)
	}
	if safe.runs.Load()+risky.runs.Load()+limited.runs.Load() != 0 || len(obs.events()) != 0 {
		t.Fatalf("calls ran: %d %d %d, events %v", safe.runs.Load(), risky.runs.Load(), limited.runs.Load(), obs.events())
	}
	want := []CallStatus{CallWaiting, CallNeedsApproval, CallWaiting, CallDone, CallWaiting}
	for i, o := range res.Calls {
		if o.Status != want[i] {
			t.Errorf("call %d: status %v, want %v", i, o.Status, want[i])
		}
	}
	if r := res.Calls[3].Result; !r.IsError || r.ID != "4" || !strings.Contains(r.Content, "limit") {
		t.Fatalf("refused call's result = %+v", r)
	}
	// The limits counted the round once; resuming does not count it again.
	if n, total := turn.Calls("limited"); n != 2 || total != 5 {
		t.Fatalf("counts = %d, %d", n, total)
	}

	var before []CallOutcome
	turn.BeforeRun = func(_ context.Context, calls []CallOutcome) error {
		before = calls
		return nil
	}
	plans := make([]Plan, len(res.Calls))
	for i, o := range res.Calls {
		switch o.Status {
		case CallDone:
			plans[i].Result = &o.Result
		case CallNeedsApproval:
			plans[i] = Plan{Approved: true, Arguments: `{"a":2}`}
		default:
			plans[i].Approved = true
		}
	}
	res, err = m.ResumeTurn(context.Background(), turn, p, resp, plans)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped {
		t.Fatalf("resumed round stopped: %+v", res.Calls)
	}
	if len(before) != 5 || before[1].Status != CallWaiting || before[3].Status != CallDone || before[1].Call.Arguments != `{"a":2}` {
		t.Fatalf("BeforeRun saw %+v", before)
	}
	results := toolResults(t, p, res)
	if results[1].Content != `risky:{"a":2}` || results[0].Content != "safe:{}" || results[2].Content != "limited:{}" || !results[3].IsError || !results[4].IsError {
		t.Fatalf("results = %+v", results)
	}
	// The history records the arguments that ran.
	if a := res.History[len(res.History)-2]; a.ToolCalls[1].Arguments != `{"a":2}` {
		t.Fatalf("assistant message = %+v", a)
	}
	if safe.runs.Load() != 1 || risky.runs.Load() != 1 || limited.runs.Load() != 1 {
		t.Fatalf("runs: %d %d %d", safe.runs.Load(), risky.runs.Load(), limited.runs.Load())
	}
	if n, total := turn.Calls("limited"); n != 2 || total != 5 {
		t.Fatalf("counts after the resume = %d, %d", n, total)
	}
	// Every call of the resumed round was observed, the given result included.
	if got := len(obs.events()); got != 10 {
		t.Fatalf("%d observer events: %v", got, obs.events())
	}
}

func TestApprovalPolicyOfTheTurn(t *testing.T) {
	rm := countingTool("rm", tool.Metadata{Destructive: ptr(true)})
	ls := countingTool("ls", tool.Metadata{ReadOnly: true})
	m := New(Config{})
	var seen []ApprovalRequest
	var mu sync.Mutex
	turn := &Turn{Approval: func(ctx context.Context, r ApprovalRequest) bool {
		mu.Lock()
		seen = append(seen, r)
		mu.Unlock()
		return AskDestructive()(ctx, r)
	}}
	res, err := m.ExecuteTurn(context.Background(), turn, prompt(rm, ls), response(call("1", "ls", `{}`)))
	if err != nil || res.Stopped {
		t.Fatalf("read-only call: %+v, %v", res, err)
	}
	res, err = m.ExecuteTurn(context.Background(), turn, prompt(rm, ls), response(call("2", "rm", `{"path":"/"}`)))
	if err != nil || !res.Stopped || res.Calls[0].Status != CallNeedsApproval {
		t.Fatalf("destructive call: %+v, %v", res, err)
	}
	if len(seen) != 2 || seen[1].Definition.Name != "rm" || seen[1].Call.Arguments != `{"path":"/"}` || seen[1].Metadata.Destructive == nil {
		t.Fatalf("policy saw %+v", seen)
	}
	// A plan without approval is asked about again.
	res, err = m.ResumeTurn(context.Background(), turn, prompt(rm, ls), response(call("2", "rm", `{}`)), []Plan{{}})
	if err != nil || !res.Stopped {
		t.Fatalf("unapproved plan: %+v, %v", res, err)
	}
	if rm.runs.Load() != 0 {
		t.Fatal("rm ran")
	}
}

func TestBeforeRunError(t *testing.T) {
	c := countingTool("c", tool.Metadata{})
	boom := errors.New("store down")
	turn := &Turn{BeforeRun: func(context.Context, []CallOutcome) error { return boom }}
	_, err := New(Config{}).ExecuteTurn(context.Background(), turn, prompt(c), response(call("1", "c", `{}`)))
	if !errors.Is(err, boom) || c.runs.Load() != 0 {
		t.Fatalf("err = %v, runs %d", err, c.runs.Load())
	}
}

func TestInterrupt(t *testing.T) {
	var slowRan atomic.Bool
	started := make(chan struct{})
	slow := newTool("slow", func(ctx context.Context, _ string) (string, error) {
		<-started
		slowRan.Store(true)
		return "slow done", nil
	})
	var once sync.Once
	ask := newTool("ask", func(ctx context.Context, args string) (string, error) {
		defer once.Do(func() { close(started) })
		if r, ok := Resumed(ctx); ok {
			return fmt.Sprintf("resumed after %q with %s and %s", r.Interrupt.Message, r.Data, args), nil
		}
		return "", fmt.Errorf("wrapped: %w", InterruptWith("Which account?", map[string]any{"choices": []string{"a", "b"}}))
	})
	after := countingTool("after", tool.Metadata{Sequential: true})
	m := New(Config{})
	obs := &recordingObserver{}
	turn := &Turn{Observer: obs}
	p := prompt(slow, ask, after)
	resp := response(call("1", "slow", `{}`), call("2", "ask", `{}`), call("3", "after", `{}`))
	res, err := m.ExecuteTurn(context.Background(), turn, p, resp)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || len(res.Calls) != 3 {
		t.Fatalf("result = %+v", res)
	}
	// The call beside the interrupt finished; the sequential call after it waits.
	if o := res.Calls[0]; o.Status != CallDone || o.Result.Content != "slow done" || !slowRan.Load() {
		t.Fatalf("slow = %+v", o)
	}
	o := res.Calls[1]
	if o.Status != CallInterrupted || o.Interrupt.Message != "Which account?" || string(o.Interrupt.Data) != `{"choices":["a","b"]}` || !strings.HasPrefix(o.Err.Error(), "wrapped:") {
		t.Fatalf("ask = %+v", o)
	}
	if res.Calls[2].Status != CallWaiting || after.runs.Load() != 0 {
		t.Fatalf("after = %+v, runs %d", res.Calls[2], after.runs.Load())
	}
	// Started: slow and ask; finished: slow only.
	if ev := obs.events(); len(ev) != 3 {
		t.Fatalf("events = %v", ev)
	}

	// Restart the interrupted call with new arguments and data; the others keep their outcome.
	plans := []Plan{
		{Result: &res.Calls[0].Result},
		{Approved: true, Arguments: `{"account":"b"}`, Resume: &Resumption{Interrupt: o.Interrupt, Data: json.RawMessage(`"b please"`)}},
		{Approved: true},
	}
	res, err = m.ResumeTurn(context.Background(), turn, p, resp, plans)
	if err != nil || res.Stopped {
		t.Fatalf("resume: %+v, %v", res, err)
	}
	results := toolResults(t, p, res)
	if results[1].Content != `resumed after "Which account?" with "b please" and {"account":"b"}` || results[0].Content != "slow done" || results[2].Content != "after:{}" {
		t.Fatalf("results = %+v", results)
	}

	// An interrupt answered: the answer is the result, the tool does not run again.
	res, err = m.ResumeTurn(context.Background(), turn, p, resp, []Plan{
		{Result: &chat.ToolResult{Content: "slow done"}},
		{Result: &chat.ToolResult{Content: "account a"}},
		{Approved: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := toolResults(t, p, res)[1]; r.Content != "account a" || r.ID != "2" || r.Name != "ask" || r.IsError {
		t.Fatalf("answered result = %+v", r)
	}
}

func TestInterruptWithBadData(t *testing.T) {
	bad := newTool("bad", func(context.Context, string) (string, error) {
		return "", InterruptWith("?", func() {})
	})
	res, err := New(Config{}).ExecuteTurn(context.Background(), nil, prompt(bad), response(call("1", "bad", `{}`)))
	if err != nil || res.Stopped {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	if r := toolResults(t, prompt(bad), res)[0]; !r.IsError || !strings.Contains(r.Content, "interrupt data") {
		t.Fatalf("result = %+v", r)
	}
}

func TestPlanMismatch(t *testing.T) {
	c := countingTool("c", tool.Metadata{})
	_, err := New(Config{}).ResumeTurn(context.Background(), nil, prompt(c), response(call("1", "c", `{}`)), nil)
	if !errors.Is(err, ErrPlanMismatch) {
		t.Fatalf("err = %v", err)
	}
}

func TestValidateArguments(t *testing.T) {
	w := weatherFunc()
	if err := ValidateArguments(w, `{"city":"Paris"}`); err != nil {
		t.Fatal(err)
	}
	var ae *tool.ArgumentError
	if err := ValidateArguments(w, `{"town":"Paris"}`); !errors.As(err, &ae) {
		t.Fatalf("err = %v", err)
	}
	if err := ValidateArguments(w, `{"city":`); !errors.As(err, &ae) {
		t.Fatalf("err = %v", err)
	}
	noSchema := newTool("x", nil)
	noSchema.Def.InputSchema = nil
	if err := ValidateArguments(noSchema, `[1]`); err == nil {
		t.Fatal("an array passed as arguments")
	}
}

func TestTurnCounts(t *testing.T) {
	var turn Turn
	if c, n := turn.Counts(); c != nil || n != 0 {
		t.Fatalf("fresh counts = %v, %d", c, n)
	}
	m := New(Config{Limits: Limits{PerTool: 2}})
	c := countingTool("c", tool.Metadata{})
	if _, err := m.ExecuteTurn(context.Background(), &turn, prompt(c), response(call("1", "c", `{}`), call("2", "c", `{}`))); err != nil {
		t.Fatal(err)
	}
	counts, total := turn.Counts()
	var next Turn
	next.SetCounts(counts, total)
	counts["c"] = 99 // a copy
	if _, err := m.ExecuteTurn(context.Background(), &next, prompt(c), response(call("3", "c", `{}`))); !errors.Is(err, ErrLimitExceeded) {
		t.Fatalf("err = %v, want the limit carried over", err)
	}
}

// recordingObserver records "start:id" and "finish:id" events.
type recordingObserver struct {
	mu  sync.Mutex
	evs []string
}

func (o *recordingObserver) ToolStarted(_ context.Context, c chat.ToolCall) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.evs = append(o.evs, "start:"+c.ID)
}

func (o *recordingObserver) ToolFinished(_ context.Context, c chat.ToolCall, _ chat.ToolResult, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.evs = append(o.evs, "finish:"+c.ID)
}

func (o *recordingObserver) events() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.evs...)
}
