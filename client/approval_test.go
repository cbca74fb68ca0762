package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// paths are the two ways to run a turn; every test of this file runs on both.
var paths = []struct {
	name   string
	stream bool
}{{"Call", false}, {"Stream", true}}

// drive runs spec as a call or a stream and returns the response, the stream's events (all but
// Done) and the error.
func drive(t *testing.T, spec *client.Spec, stream bool) (*client.Response, []*client.Event, error) {
	t.Helper()
	if !stream {
		resp, err := spec.Call(context.Background()).Response()
		return resp, nil, err
	}
	var events []*client.Event
	var resp *client.Response
	for ev, err := range spec.Stream(context.Background()).Events() {
		if err != nil {
			return nil, events, err
		}
		if ev.Done != nil {
			resp = ev.Done
			continue
		}
		events = append(events, ev)
	}
	if resp == nil {
		t.Fatal("stream ended without a Done event")
	}
	return resp, events, nil
}

// toolEvents lists a stream's tool events as "agent:kind:name", agent empty for the turn's own.
func toolEvents(events []*client.Event) []string {
	var out []string
	for _, ev := range events {
		if ev.Tool == nil {
			continue
		}
		kind := map[client.ToolEventKind]string{
			client.ToolStarted: "start", client.ToolFinished: "finish",
			client.ToolApprovalRequired: "approval", client.ToolInterrupted: "interrupted",
		}[ev.Tool.Kind]
		out = append(out, ev.Agent()+":"+kind+":"+ev.Tool.Call.Name)
	}
	return out
}

func sortedEvents(events []*client.Event) []string {
	out := toolEvents(events)
	slices.Sort(out)
	return out
}

// recordingTool is a tool answering with result, or "<name> done" without one; its Args are the
// arguments of its runs.
func recordingTool(name string, meta tool.Metadata, result func(ctx context.Context, args string) (string, error)) *chattest.Tool {
	return newTool(name, result).WithMetadata(meta)
}

// pathSchema is the input schema of the file tools of these tests.
const pathSchema = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`

func fileTool(name string, meta tool.Metadata) *chattest.Tool {
	t := recordingTool(name, meta, nil)
	t.Def.InputSchema = []byte(pathSchema)
	return t
}

// roundTrip returns v through JSON, as a store or another process would hand it back.
func roundTrip[T any](t *testing.T, v *T) *T {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestApprove(t *testing.T) {
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			del := fileTool("delete", tool.Metadata{RequiresApproval: true})
			list := fileTool("list", tool.Metadata{ReadOnly: true})
			m := chattest.New(
				chattest.Calls(chattest.Call("list", `{"path":"/tmp"}`), chattest.Call("delete", `{"path":"/tmp/a"}`)).
					WithText("Cleaning up.").WithUsage(10, 3),
				chattest.Text("Deleted /tmp/a.").WithUsage(20, 4),
			)
			c := clienttest.New(t, m, client.WithTools(del, list))
			resp, events, err := drive(t, c.Prompt("clean /tmp"), path.stream)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Outcome != client.OutcomeApproval || resp.Outcome.String() != "approval_required" || resp.Pending == nil {
				t.Fatalf("outcome %v, pending %v", resp.Outcome, resp.Pending)
			}
			if len(del.Args())+len(list.Args()) != 0 {
				t.Fatalf("calls ran before approval: %v %v", del.Args(), list.Args())
			}
			if resp.Text() != "Cleaning up." || len(resp.Messages) != 0 || resp.ModelCalls != 1 || resp.Usage.InputTokens != 10 {
				t.Fatalf("stopped response: %q %v %d %+v", resp.Text(), resp.Messages, resp.ModelCalls, resp.Usage)
			}
			pending := resp.Pending.Pending()
			if len(pending) != 1 || pending[0].Call.Name != "delete" || pending[0].Call.Arguments != `{"path":"/tmp/a"}` ||
				pending[0].Status != client.CallApproval || pending[0].Agent != "" {
				t.Fatalf("pending = %+v", pending)
			}
			if resp.Pending.Status != client.TurnApproval || resp.Pending.Round.Calls[0].Status != client.CallWaiting {
				t.Fatalf("state = %+v", resp.Pending.Round)
			}
			if path.stream {
				if got := toolEvents(events); !slices.Equal(got, []string{":approval:delete"}) {
					t.Fatalf("events = %v", got)
				}
				if text := events[0].Text(); !strings.HasPrefix("Cleaning up.", text) {
					t.Fatalf("first event = %+v", events[0])
				}
			}

			state := roundTrip(t, resp.Pending)
			resp, events, err = drive(t, c.Resume(state, pending[0].Approve()), path.stream)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Outcome != client.OutcomeAnswer || resp.Text() != "Deleted /tmp/a." || resp.ModelCalls != 1 || resp.Usage.InputTokens != 20 {
				t.Fatalf("resumed response: %v %q %d %+v", resp.Outcome, resp.Text(), resp.ModelCalls, resp.Usage)
			}
			if !slices.Equal(del.Args(), []string{`{"path":"/tmp/a"}`}) || !slices.Equal(list.Args(), []string{`{"path":"/tmp"}`}) {
				t.Fatalf("runs: %v %v", del.Args(), list.Args())
			}
			// The model goes on from where it stopped: the conversation, its calls, their results.
			p := m.Prompt(1)
			if len(p.Messages) != 3 || p.Messages[0].Content != "clean /tmp" || len(p.Messages[1].ToolCalls) != 2 {
				t.Fatalf("prompt after the resume: %v", p.Messages)
			}
			if r := m.ToolResults(t, 1); r[0].Content != "list done" || r[1].Content != "delete done" || r[1].IsError {
				t.Fatalf("results = %+v", r)
			}
			// The resumed turn's messages continue the conversation.
			if len(resp.Messages) != 3 || resp.Messages[0].Role != chat.RoleAssistant || resp.Messages[1].Role != chat.RoleTool ||
				resp.Messages[2].Content != "Deleted /tmp/a." {
				t.Fatalf("messages = %v", resp.Messages)
			}
			if path.stream {
				if got := sortedEvents(events); !slices.Equal(got, []string{":finish:delete", ":finish:list", ":start:delete", ":start:list"}) {
					t.Fatalf("events = %v", got)
				}
			}
		})
	}
}

func TestApproveWithEditedArguments(t *testing.T) {
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			del := fileTool("delete", tool.Metadata{RequiresApproval: true})
			m := chattest.New(chattest.Calls(chattest.Call("delete", `{"path":"/"}`)), chattest.Text("ok"))
			c := clienttest.New(t, m, client.WithTools(del))
			resp, _, err := drive(t, c.Prompt("delete everything"), path.stream)
			if err != nil {
				t.Fatal(err)
			}
			id := resp.Pending.Pending()[0].Call.ID
			// Arguments the schema refuses: nothing runs, the state stays resumable.
			_, _, err = drive(t, c.Resume(resp.Pending, client.ApproveWith(id, `{"path":7}`)), path.stream)
			var ae *tool.ArgumentError
			if !errors.Is(err, client.ErrInvalidDecision) || !errors.As(err, &ae) {
				t.Fatalf("err = %v", err)
			}
			if len(del.Args()) != 0 || m.Requests() != 1 {
				t.Fatal("something ran after a refused decision")
			}
			resp, _, err = drive(t, c.Resume(resp.Pending, client.ApproveWith(id, `{"path":"/tmp/x"}`)), path.stream)
			if err != nil || resp.Text() != "ok" {
				t.Fatalf("resume: %v, %v", resp, err)
			}
			if !slices.Equal(del.Args(), []string{`{"path":"/tmp/x"}`}) {
				t.Fatalf("runs = %v", del.Args())
			}
			// The conversation records the arguments that ran.
			if a := m.Prompt(1).Messages[1]; a.ToolCalls[0].Arguments != `{"path":"/tmp/x"}` {
				t.Fatalf("assistant message = %v", a)
			}
			if resp.Messages[0].ToolCalls[0].Arguments != `{"path":"/tmp/x"}` {
				t.Fatalf("messages = %v", resp.Messages)
			}
		})
	}
}

func TestReject(t *testing.T) {
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			del := fileTool("delete", tool.Metadata{RequiresApproval: true})
			m := chattest.New(
				chattest.Calls(chattest.Call("delete", `{"path":"/a"}`), chattest.Call("delete", `{"path":"/b"}`)),
				chattest.Text("I kept /b."),
			)
			c := clienttest.New(t, m, client.WithTools(del))
			resp, _, err := drive(t, c.Prompt("delete /a and /b"), path.stream)
			if err != nil {
				t.Fatal(err)
			}
			p := resp.Pending.Pending()
			if len(p) != 2 {
				t.Fatalf("pending = %+v", p)
			}
			resp, events, err := drive(t, c.Resume(resp.Pending, p[0].Approve(), p[1].Reject("Not /b: it is the backup.")), path.stream)
			if err != nil || resp.Text() != "I kept /b." {
				t.Fatalf("resume: %v, %v", resp, err)
			}
			if !slices.Equal(del.Args(), []string{`{"path":"/a"}`}) {
				t.Fatalf("runs = %v", del.Args())
			}
			r := m.ToolResults(t, 1)
			if r[0].IsError || !r[1].IsError || r[1].Content != "Not /b: it is the backup." || r[1].ID != p[1].Call.ID {
				t.Fatalf("results = %+v", r)
			}
			if path.stream {
				// The rejected call is reported like any other, with its error result.
				var rejected *client.ToolEvent
				for _, ev := range events {
					if ev.Tool != nil && ev.Tool.Kind == client.ToolFinished && ev.Tool.Call.ID == p[1].Call.ID {
						rejected = ev.Tool
					}
				}
				if rejected == nil || rejected.Err() == nil {
					t.Fatalf("events = %v", toolEvents(events))
				}
			}
		})
	}
}

// accountTool asks which account to use unless it is given one; its Args count its runs, and
// resumed holds "message|data" of the interrupt its last resumed run answered.
func accountTool() (pay *chattest.Tool, resumed *atomic.Value) {
	resumed = new(atomic.Value)
	pay = newTool("pay", func(ctx context.Context, args string) (string, error) {
		if r, ok := toolcall.Resumed(ctx); ok {
			resumed.Store(fmt.Sprintf("%s|%s", r.Interrupt.Message, r.Data))
		}
		if !strings.Contains(args, "account") {
			return "", toolcall.InterruptWith("Which account?", []string{"checking", "savings"})
		}
		return "paid from " + args, nil
	})
	return pay, resumed
}

func TestInterruptAndAnswer(t *testing.T) {
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			pay, _ := accountTool()
			look := recordingTool("lookup", tool.Metadata{}, nil)
			m := chattest.New(
				chattest.Calls(chattest.Call("pay", `{"amount":5}`), chattest.Call("lookup", `{}`)),
				chattest.Text("Paid."),
			)
			c := clienttest.New(t, m, client.WithTools(pay, look))
			resp, events, err := drive(t, c.Prompt("pay 5"), path.stream)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Outcome != client.OutcomeInterrupted || resp.Pending.Status != client.TurnInterrupted {
				t.Fatalf("outcome = %v", resp.Outcome)
			}
			p := resp.Pending.Pending()
			if len(p) != 1 || p[0].Interrupt == nil || p[0].Interrupt.Message != "Which account?" || string(p[0].Interrupt.Data) != `["checking","savings"]` {
				t.Fatalf("pending = %+v", p)
			}
			// The call beside it ran and keeps its result.
			if done := resp.Pending.Round.Calls[1]; done.Status != client.CallDone || done.Result.Content != "lookup done" {
				t.Fatalf("lookup = %+v", done)
			}
			if path.stream {
				got := sortedEvents(events)
				if !slices.Equal(got, []string{":finish:lookup", ":interrupted:pay", ":start:lookup", ":start:pay"}) {
					t.Fatalf("events = %v", got)
				}
				for _, ev := range events {
					if ev.Tool != nil && ev.Tool.Kind == client.ToolInterrupted && ev.Tool.Interrupt.Message != "Which account?" {
						t.Fatalf("interrupt event = %+v", ev.Tool)
					}
				}
			}
			resp, _, err = drive(t, c.Resume(roundTrip(t, resp.Pending), p[0].Answer("Use savings: paid.")), path.stream)
			if err != nil || resp.Text() != "Paid." {
				t.Fatalf("resume: %v, %v", resp, err)
			}
			if len(pay.Args()) != 1 || len(look.Args()) != 1 {
				t.Fatalf("pay ran %d times, lookup %d", len(pay.Args()), len(look.Args()))
			}
			if r := m.ToolResults(t, 1); r[0].Content != "Use savings: paid." || r[0].IsError || r[1].Content != "lookup done" {
				t.Fatalf("results = %+v", r)
			}
		})
	}
}

func TestInterruptAndRestart(t *testing.T) {
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			pay, resumed := accountTool()
			m := chattest.New(chattest.Calls(chattest.Call("pay", `{"amount":5}`)), chattest.Text("Paid."))
			c := clienttest.New(t, m, client.WithTools(pay))
			resp, _, err := drive(t, c.Prompt("pay 5"), path.stream)
			if err != nil {
				t.Fatal(err)
			}
			id := resp.Pending.Pending()[0].Call.ID
			resp, _, err = drive(t, c.Resume(resp.Pending, client.Restart(id, `{"amount":5,"account":"savings"}`, json.RawMessage(`{"by":"ann"}`))), path.stream)
			if err != nil || resp.Text() != "Paid." {
				t.Fatalf("resume: %v, %v", resp, err)
			}
			if len(pay.Args()) != 2 || resumed.Load() != `Which account?|{"by":"ann"}` {
				t.Fatalf("runs %d, resumed with %v", len(pay.Args()), resumed.Load())
			}
			if r := m.ToolResults(t, 1); r[0].Content != `paid from {"amount":5,"account":"savings"}` {
				t.Fatalf("results = %+v", r)
			}
		})
	}
}

func TestInterruptAgain(t *testing.T) {
	// A restarted call may interrupt again: the turn stops again, and resumes again.
	pay, _ := accountTool()
	m := chattest.New(chattest.Calls(chattest.Call("pay", `{"amount":5}`)), chattest.Text("Paid."))
	c := clienttest.New(t, m, client.WithTools(pay))
	resp, err := c.Prompt("pay").Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	first := resp.Pending
	resp, err = c.Resume(first, first.Pending()[0].Restart("", nil)).Call(context.Background()).Response()
	if err != nil || resp.Outcome != client.OutcomeInterrupted || resp.Pending.Seq <= first.Seq || resp.Pending.ID != first.ID {
		t.Fatalf("second stop: %+v, %v", resp, err)
	}
	if len(resp.Messages) != 0 {
		t.Fatalf("messages of a round stopped twice: %v", resp.Messages)
	}
	resp, err = c.Resume(resp.Pending, resp.Pending.Pending()[0].Answer("paid")).Call(context.Background()).Response()
	if err != nil || resp.Text() != "Paid." || len(pay.Args()) != 2 || m.Requests() != 2 {
		t.Fatalf("final: %+v, %v, runs %d", resp, err, len(pay.Args()))
	}
}

func TestResumeRefusals(t *testing.T) {
	del := fileTool("delete", tool.Metadata{RequiresApproval: true})
	m := chattest.New(chattest.Calls(chattest.Call("delete", `{"path":"/a"}`)), chattest.Text("ok"), chattest.Text("again"))
	c := clienttest.New(t, m, client.WithTools(del))
	resp, err := c.Prompt("delete /a").Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	state := resp.Pending
	id := state.Pending()[0].Call.ID
	for _, tt := range []struct {
		name      string
		decisions []client.Decision
	}{
		{"no decision", nil},
		{"unknown call", []client.Decision{client.Approve(id), client.Approve("call_99")}},
		{"two decisions", []client.Decision{client.Approve(id), client.Reject(id, "")}},
		{"unknown kind", []client.Decision{{CallID: id, Kind: "maybe"}}},
		{"bad path", []client.Decision{{CallID: id, Kind: client.DecideApprove, Path: []string{"nope"}}}},
	} {
		err := c.Resume(state, tt.decisions...).Call(context.Background()).Err()
		if !errors.Is(err, client.ErrInvalidDecision) {
			t.Errorf("%s: err = %v", tt.name, err)
		}
	}
	if err := c.Resume(state, client.Approve(id)).User("more").Call(context.Background()).Err(); err == nil {
		t.Error("a resume took new messages")
	}
	if len(del.Args()) != 0 {
		t.Fatal("a refused resume ran the tool")
	}
	if err := c.Resume(state, client.Approve(id)).Call(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	err = c.Resume(state, client.Approve(id)).Call(context.Background()).Err()
	if !errors.Is(err, client.ErrAlreadyResumed) {
		t.Fatalf("second resume: %v", err)
	}
	if len(del.Args()) != 1 {
		t.Fatalf("runs = %v", del.Args())
	}
	// A state that is not one.
	bad := roundTrip(t, state)
	bad.Version = 99
	if err := c.Resume(bad, client.Approve(id)).Call(context.Background()).Err(); err == nil || !strings.Contains(err.Error(), "version") {
		t.Fatalf("err = %v", err)
	}
	if err := c.Resume(nil).Call(context.Background()).Err(); err == nil {
		t.Fatal("resumed a nil state")
	}
	// Without a tool loop there is nothing to resume.
	fresh := roundTrip(t, state)
	if err := c.Resume(fresh, client.Approve(id)).WithoutToolLoop().Call(context.Background()).Err(); err == nil {
		t.Fatal("resumed without a tool loop")
	}
}

func TestApprovalPolicy(t *testing.T) {
	rm := fileTool("rm", tool.Metadata{Destructive: ptr(true)})
	ls := fileTool("ls", tool.Metadata{ReadOnly: true})
	script := func() *chattest.Model {
		return chattest.New(chattest.Calls(chattest.Call("ls", `{"path":"/"}`)), chattest.Calls(chattest.Call("rm", `{"path":"/x"}`)), chattest.Text("done"))
	}
	// The default asks only for flagged tools.
	resp, err := clienttest.New(t, script(), client.WithTools(rm, ls)).Prompt("go").Call(context.Background()).Response()
	if err != nil || resp.Outcome != client.OutcomeAnswer {
		t.Fatalf("default policy: %v, %v", resp, err)
	}
	// The client's policy: MCP hints.
	c := clienttest.New(t, script(), client.WithTools(rm, ls), client.WithApproval(toolcall.AskDestructive()))
	resp, err = c.Prompt("go").Call(context.Background()).Response()
	if err != nil || resp.Outcome != client.OutcomeApproval || resp.Pending.Pending()[0].Call.Name != "rm" || resp.Pending.Iteration != 1 {
		t.Fatalf("destructive policy: %+v, %v", resp, err)
	}
	if len(resp.Messages) != 2 {
		t.Fatalf("the completed round is not in the messages: %v", resp.Messages)
	}
	// A call's policy replaces the client's: by arguments.
	byArgs := func(_ context.Context, r toolcall.ApprovalRequest) bool {
		return strings.Contains(r.Call.Arguments, `"/"`)
	}
	c = clienttest.New(t, script(), client.WithTools(rm, ls), client.WithApproval(toolcall.AskDestructive()))
	resp, err = c.Prompt("go").Approval(byArgs).Call(context.Background()).Response()
	if err != nil || resp.Outcome != client.OutcomeApproval || resp.Pending.Pending()[0].Call.Name != "ls" {
		t.Fatalf("per-call policy: %+v, %v", resp, err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestResponseMessages(t *testing.T) {
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			m := chattest.New(
				chattest.Calls(chattest.Call("a", `{}`)).WithText("first"),
				chattest.Calls(chattest.Call("b", `{}`), chattest.Call("a", `{"x":1}`)),
				chattest.Text("answer"),
			)
			c := clienttest.New(t, m, client.WithSystem("sys"), client.WithTools(constTool("a", "A"), constTool("b", "B")))
			resp, _, err := drive(t, c.Prompt("go"), path.stream)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, msg := range resp.Messages {
				got = append(got, fmt.Sprintf("%s:%s:%d:%d", msg.Role, msg.Content, len(msg.ToolCalls), len(msg.ToolResults)))
			}
			want := []string{"assistant:first:1:0", "tool::0:1", "assistant::2:0", "tool::0:2", "assistant:answer:0:0"}
			if !slices.Equal(got, want) {
				t.Fatalf("messages = %v, want %v", got, want)
			}
			// They are exactly what the model was sent after the user's message, and its answer.
			sent := m.Prompt(2).Messages[2:]
			if len(sent) != 4 || sent[3].ToolResults[1].Content != "A" || resp.Messages[3].ToolResults[1].ID != sent[3].ToolResults[1].ID {
				t.Fatalf("sent = %v", sent)
			}
		})
	}
}

// mapStore is a client.TurnStore in a map, recording what the loop did with it.
type mapStore struct {
	mu     sync.Mutex
	turns  map[string][]byte
	log    []string
	failOn func(*client.TurnState) error // makes SaveTurn fail, storing nothing
}

func newMapStore() *mapStore { return &mapStore{turns: map[string][]byte{}} }

func (s *mapStore) current(conv string) *client.TurnState {
	b, ok := s.turns[conv]
	if !ok {
		return nil
	}
	var st client.TurnState
	if err := json.Unmarshal(b, &st); err != nil {
		panic(err)
	}
	return &st
}

func (s *mapStore) SaveTurn(_ context.Context, conv string, st *client.TurnState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failOn != nil {
		if err := s.failOn(st); err != nil {
			return err
		}
	}
	if cur := s.current(conv); st.Seq != 1 && (cur == nil || cur.ID != st.ID || cur.Seq != st.Seq-1) {
		return fmt.Errorf("%w: saving step %d", client.ErrTurnConflict, st.Seq)
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	s.turns[conv] = b
	s.log = append(s.log, fmt.Sprintf("%s:%d", st.Status, st.Seq))
	return nil
}

func (s *mapStore) LoadTurn(_ context.Context, conv string) (*client.TurnState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current(conv), nil
}

func (s *mapStore) EndTurn(_ context.Context, conv, id string, seq int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.current(conv); cur == nil || cur.ID != id || cur.Seq != seq {
		return client.ErrTurnConflict
	}
	delete(s.turns, conv)
	s.log = append(s.log, fmt.Sprintf("end:%d", seq))
	return nil
}

func (s *mapStore) record() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.log, " ")
}

func TestTurnStore(t *testing.T) {
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			del := fileTool("delete", tool.Metadata{RequiresApproval: true})
			list := fileTool("list", tool.Metadata{})
			m := chattest.New(
				chattest.Calls(chattest.Call("list", `{"path":"/"}`)),
				chattest.Calls(chattest.Call("delete", `{"path":"/a"}`)),
				chattest.Text("done"),
			)
			store := newMapStore()
			c := clienttest.New(t, m, client.WithTools(del, list), client.WithTurnStore(store))
			if _, _, err := drive(t, c.Prompt("go"), path.stream); !errors.Is(err, client.ErrNoConversation) {
				t.Fatalf("err = %v", err)
			}
			resp, _, err := drive(t, c.Prompt("go").Param(client.ParamConversationID, "c1"), path.stream)
			if err != nil || resp.Outcome != client.OutcomeApproval {
				t.Fatalf("first: %v, %v", resp, err)
			}
			// A round's calls are marked running before they start and recorded when done; the
			// stop is saved.
			if got := store.record(); got != "running:1 ready:2 approval:3" {
				t.Fatalf("store: %s", got)
			}
			// Another process loads the turn from the store and resumes it.
			loaded, err := store.LoadTurn(context.Background(), "c1")
			if err != nil || loaded == nil || loaded.ConversationID != "c1" || loaded.Seq != 3 {
				t.Fatalf("loaded %+v, %v", loaded, err)
			}
			c2 := clienttest.New(t, m, client.WithTools(del, list), client.WithTurnStore(store))
			resp, _, err = drive(t, c2.Resume(loaded, client.Approve(loaded.Pending()[0].Call.ID)), path.stream)
			if err != nil || resp.Text() != "done" {
				t.Fatalf("resume: %v, %v", resp, err)
			}
			if got := store.record(); got != "running:1 ready:2 approval:3 running:4 ready:5 end:5" {
				t.Fatalf("store: %s", got)
			}
			// The first process's copy of the state is refused: the turn was resumed.
			err = c.Resume(roundTrip(t, loaded), client.Approve(loaded.Pending()[0].Call.ID)).Call(context.Background()).Err()
			if !errors.Is(err, client.ErrAlreadyResumed) {
				t.Fatalf("resume of a resumed state: %v", err)
			}
			if len(del.Args()) != 1 || len(list.Args()) != 1 {
				t.Fatalf("runs %v %v", del.Args(), list.Args())
			}
		})
	}
}

func TestModelFailureAfterToolRound(t *testing.T) {
	for _, path := range paths {
		for _, withStore := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/store=%v", path.name, withStore), func(t *testing.T) {
				charge := recordingTool("charge", tool.Metadata{}, nil)
				boom := errors.New("503 from the provider")
				m := chattest.New(
					chattest.Calls(chattest.Call("charge", `{"cents":500}`)),
					chattest.Fail(boom),
					chattest.Text("Charged 5 €."),
				)
				opts := []client.Option{client.WithTools(charge)}
				store := newMapStore()
				if withStore {
					opts = append(opts, client.WithTurnStore(store))
				}
				c := clienttest.New(t, m, opts...)
				_, _, err := drive(t, c.Prompt("charge me").Param(client.ParamConversationID, "c"), path.stream)
				var te *client.TurnError
				if !errors.Is(err, boom) || !errors.As(err, &te) {
					t.Fatalf("err = %v", err)
				}
				if te.State.Status != client.TurnReady || te.State.Iteration != 1 || len(te.Messages) != 2 || te.Messages[1].ToolResults[0].Content != "charge done" {
					t.Fatalf("turn error: %+v, messages %v", te.State, te.Messages)
				}
				state := te.State
				if withStore {
					if got := store.record(); got != "running:1 ready:2" {
						t.Fatalf("store: %s", got)
					}
					// The error's state is the stored one, which a resume with a store requires.
					loaded, _ := store.LoadTurn(context.Background(), "c")
					a, _ := json.Marshal(loaded)
					b, _ := json.Marshal(te.State)
					if string(a) != string(b) {
						t.Errorf("stored %s\nreturned %s", a, b)
					}
				}
				resp, _, err := drive(t, c.Resume(state), path.stream)
				if err != nil || resp.Text() != "Charged 5 €." {
					t.Fatalf("retry: %v, %v", resp, err)
				}
				if runs := charge.Args(); len(runs) != 1 {
					t.Fatalf("charge ran %d times", len(runs))
				}
				// The retry sent the recorded round.
				if r := m.ToolResults(t, 2); r[0].Content != "charge done" {
					t.Fatalf("results = %+v", r)
				}
				if len(resp.Messages) != 1 || resp.Messages[0].Content != "Charged 5 €." {
					t.Fatalf("messages = %v", resp.Messages)
				}
				if withStore {
					if got := store.record(); got != "running:1 ready:2 ready:3 end:3" {
						t.Fatalf("store: %s", got)
					}
				}
			})
		}
	}
}

func TestFailureBeforeAnyRoundIsPlain(t *testing.T) {
	boom := errors.New("down")
	c := clienttest.New(t, chattest.New(chattest.Fail(boom)))
	err := c.Prompt("hi").Call(context.Background()).Err()
	var te *client.TurnError
	if !errors.Is(err, boom) || errors.As(err, &te) {
		t.Fatalf("err = %v", err)
	}
}

func TestRoundCutShort(t *testing.T) {
	// The process "dies" after the calls ran and before their results were recorded: the store
	// holds the round as running, and resuming it asks what to do with each unfinished call.
	charge := recordingTool("charge", tool.Metadata{}, nil)
	note := recordingTool("note", tool.Metadata{}, nil)
	m := chattest.New(
		chattest.Calls(chattest.Call("charge", `{}`), chattest.Call("note", `{}`)),
		chattest.Text("Done."),
	)
	store := newMapStore()
	crash := errors.New("process died")
	store.failOn = func(st *client.TurnState) error {
		if st.Status == client.TurnReady {
			return crash
		}
		return nil
	}
	c := clienttest.New(t, m, client.WithTools(charge, note), client.WithTurnStore(store))
	if err := c.Prompt("go").Param(client.ParamConversationID, "c").Call(context.Background()).Err(); !errors.Is(err, crash) {
		t.Fatalf("err = %v", err)
	}
	store.failOn = nil
	st, _ := store.LoadTurn(context.Background(), "c")
	if st.Status != client.TurnRunning {
		t.Fatalf("stored = %+v", st)
	}
	p := st.Pending()
	if len(p) != 2 || p[0].Status != client.CallRunning {
		t.Fatalf("pending = %+v", p)
	}
	resp, err := c.Resume(st, p[0].Answer("charged (checked by hand)"), p[1].Approve()).Call(context.Background()).Response()
	if err != nil || resp.Text() != "Done." {
		t.Fatalf("resume: %v, %v", resp, err)
	}
	if len(charge.Args()) != 1 || len(note.Args()) != 2 {
		t.Fatalf("charge ran %d times, note %d", len(charge.Args()), len(note.Args()))
	}
}

func TestStoreFailureKeepsStateResumable(t *testing.T) {
	del := fileTool("delete", tool.Metadata{RequiresApproval: true})
	m := chattest.New(chattest.Calls(chattest.Call("delete", `{"path":"/a"}`)), chattest.Text("ok"))
	store := newMapStore()
	c := clienttest.New(t, m, client.WithTools(del), client.WithTurnStore(store))
	resp, err := c.Prompt("go").Param(client.ParamConversationID, "c").Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	down := errors.New("database down")
	store.failOn = func(*client.TurnState) error { return down }
	id := resp.Pending.Pending()[0].Call.ID
	if err := c.Resume(resp.Pending, client.Approve(id)).Call(context.Background()).Err(); !errors.Is(err, down) {
		t.Fatalf("err = %v", err)
	}
	store.failOn = nil
	if err := c.Resume(resp.Pending, client.Approve(id)).Call(context.Background()).Err(); err != nil {
		t.Fatalf("resume after the store came back: %v", err)
	}
	if len(del.Args()) != 1 {
		t.Fatalf("runs = %v", del.Args())
	}
}

func TestMalformedStatesAreRefused(t *testing.T) {
	del := fileTool("delete", tool.Metadata{RequiresApproval: true})
	m := chattest.New(chattest.Calls(chattest.Call("delete", `{"path":"/a"}`)), chattest.Text("ok"))
	c := clienttest.New(t, m, client.WithTools(del))
	resp, err := c.Prompt("go").Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	id := resp.Pending.Pending()[0].Call.ID
	for _, tt := range []struct {
		name  string
		spoil func(*client.TurnState)
	}{
		{"unknown status", func(s *client.TurnState) { s.Status = "sleeping" }},
		{"no round", func(s *client.TurnState) { s.Round = nil }},
		{"ready with a round", func(s *client.TurnState) { s.Status = client.TurnReady }},
		{"calls and message disagree", func(s *client.TurnState) { s.Round.Message.ToolCalls = nil }},
		{"done without a result", func(s *client.TurnState) {
			s.Round.Calls = append(s.Round.Calls, client.PendingCall{Call: chat.ToolCall{ID: "x", Name: "delete"}, Status: client.CallDone})
			s.Round.Message.ToolCalls = append(s.Round.Message.ToolCalls, chat.ToolCall{ID: "x", Name: "delete"})
		}},
		{"a tool the request does not offer", func(s *client.TurnState) {
			s.Round.Calls[0].Call.Name = "format_disk"
			s.Round.Message.ToolCalls[0].Name = "format_disk"
		}},
	} {
		s := roundTrip(t, resp.Pending)
		tt.spoil(s)
		if err := c.Resume(s, client.Approve(id)).Call(context.Background()).Err(); err == nil {
			t.Errorf("%s: resumed", tt.name)
		}
	}
	if len(del.Args()) != 0 || m.Requests() != 1 {
		t.Fatal("a malformed state ran something")
	}
}
