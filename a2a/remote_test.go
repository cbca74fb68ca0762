package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
)

// approvingAgent asks for input on a new task and completes it with the answer it was given.
type approvingAgent struct{ runs atomic.Int32 }

func (a *approvingAgent) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	text := partsText(rc.Message.Parts)
	if rc.StoredTask == nil {
		if err := q.Write(ctx, sdk.NewStatusUpdateEvent(rc, sdk.TaskStateSubmitted, nil)); err != nil {
			return err
		}
		ev := sdk.NewStatusUpdateEvent(rc, sdk.TaskStateInputRequired,
			sdk.NewMessageForTask(sdk.MessageRoleAgent, rc, sdk.TextPart{Text: "approve deleting " + text + "?"}))
		ev.Final = true
		return q.Write(ctx, ev)
	}
	a.runs.Add(1)
	ev := sdk.NewStatusUpdateEvent(rc, sdk.TaskStateCompleted,
		sdk.NewMessageForTask(sdk.MessageRoleAgent, rc, sdk.TextPart{Text: "done: " + text}))
	ev.Final = true
	return q.Write(ctx, ev)
}

func (a *approvingAgent) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	ev := sdk.NewStatusUpdateEvent(rc, sdk.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}

// remoteTurn is a caller's turn stopped at a remote agent's question: the caller's model calls
// the remote agent's tool once, then says "ok".
type remoteTurn struct {
	m    *chattest.Model
	c    *client.Client
	resp *client.Response
	pc   client.PendingCall
}

// stopAtRemote runs the caller's turn with tl until it stops, with one pending call.
func stopAtRemote(t *testing.T, ctx context.Context, tl tool.Tool, input string) *remoteTurn {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"input": input})
	m := chattest.New(chattest.Calls(chat.ToolCall{ID: "p1", Name: tl.Definition().Name, Arguments: string(args)}), chattest.Text("ok"))
	c := clienttest.New(t, m, client.WithTools(tl))
	resp, _, err := runTurn(t, ctx, c.Prompt("go"))
	if err != nil || resp.Pending == nil || len(resp.Pending.Pending()) != 1 {
		t.Fatalf("turn: %v %+v", err, resp)
	}
	return &remoteTurn{m: m, c: c, resp: resp, pc: resp.Pending.Pending()[0]}
}

// answer resumes the turn with a and returns the remote agent's result as the caller's model
// read it.
func (r *remoteTurn) answer(t *testing.T, ctx context.Context, a Answer) string {
	t.Helper()
	data, _ := json.Marshal(a)
	resp, _, err := runTurn(t, ctx, r.c.Resume(r.resp.Pending, r.pc.Restart("", data)))
	if err != nil || resp.Text() != "ok" {
		t.Fatalf("resume: %v %+v", err, resp)
	}
	res := r.m.ToolResults(t, 1)
	if len(res) != 1 {
		t.Fatalf("the caller's model read %+v", res)
	}
	return res[0].Content
}

// runTurn streams a turn of c, returning its response and the events attributed to agents.
func runTurn(t *testing.T, ctx context.Context, spec *client.Spec) (*client.Response, []*client.Event, error) {
	t.Helper()
	var resp *client.Response
	var sub []*client.Event
	for ev, err := range spec.Stream(ctx).Events() {
		if err != nil {
			return nil, sub, err
		}
		if ev.Done != nil {
			resp = ev.Done
		} else if ev.Agent() != "" {
			sub = append(sub, ev)
		}
	}
	return resp, sub, nil
}

func TestRemoteAgentInputRequiredThenResume(t *testing.T) {
	for _, streaming := range []bool{true, false} {
		t.Run(fmt.Sprint("streaming=", streaming), func(t *testing.T) {
			ag := &approvingAgent{}
			srv := httptest.NewServer(a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(ag)))
			defer srv.Close()
			card := &sdk.AgentCard{Name: "Deleter", Description: "deletes files", URL: srv.URL,
				PreferredTransport: sdk.TransportProtocolJSONRPC, ProtocolVersion: "0.3.0",
				Capabilities: sdk.AgentCapabilities{Streaming: streaming}}
			tl, err := RemoteAgent(context.Background(), Config{Card: card})
			if err != nil {
				t.Fatal(err)
			}
			if got := tl.Definition().Name; got != "deleter" {
				t.Fatalf("name %q, want deleter", got)
			}
			r := stopAtRemote(t, context.Background(), tl, "notes.txt")
			if !strings.Contains(r.pc.Interrupt.Message, "approve deleting notes.txt?") {
				t.Fatalf("interrupt %q", r.pc.Interrupt.Message)
			}
			var p Pending
			if err := json.Unmarshal(r.pc.Interrupt.Data, &p); err != nil || p.TaskID == "" || p.State != "input-required" {
				t.Fatalf("interrupt data %s: %v", r.pc.Interrupt.Data, err)
			}
			if n := ag.runs.Load(); n != 0 {
				t.Fatalf("agent ran %d times before the answer", n)
			}
			if got := r.answer(t, context.Background(), Answer{Text: "yes"}); got != "done: yes" {
				t.Fatalf("the model read %q", got)
			}
			if n := ag.runs.Load(); n != 1 {
				t.Fatalf("agent ran %d times, want 1", n)
			}
		})
	}
}

// Two wield sides: the callee stops for approval, the caller's user approves through the
// caller's own resume, and the callee's tool runs exactly once; the callee's progress reaches
// the caller's stream attributed to the remote agent.
func TestTwoWieldAgentsApprovalAcrossTheBoundary(t *testing.T) {
	var runs atomic.Int32
	callee, _ := approvalAgent(t, &runs,
		chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete", Arguments: `{"path":"notes.txt"}`}).WithText("Let me delete it. "),
		chattest.Text("Deleted notes.txt."))
	s := serve(t, callee, ServerConfig{Name: "Janitor"})
	tl, err := RemoteAgent(context.Background(), Config{CardURL: s.http.URL})
	if err != nil {
		t.Fatal(err)
	}
	pm := chattest.New(chattest.Calls(chat.ToolCall{ID: "p1", Name: "janitor", Arguments: `{"input":"delete notes.txt"}`}), chattest.Text("All clean."))
	caller := clienttest.New(t, pm, client.WithTools(tl))
	resp, _, err := runTurn(t, context.Background(), caller.Prompt("clean up"))
	if err == nil && resp.Pending == nil {
		t.Fatalf("caller did not stop: %+v", resp)
	}
	if err != nil {
		t.Fatal(err)
	}
	_ = resp
	pc := resp.Pending.Pending()[0]
	var p Pending
	if err := json.Unmarshal(pc.Interrupt.Data, &p); err != nil || len(p.Calls) != 1 || p.Calls[0].ID != "c1" || p.Calls[0].Reason != "approval" || p.Calls[0].Tool != "delete" {
		t.Fatalf("pending %s: %v", pc.Interrupt.Data, err)
	}
	if runs.Load() != 0 {
		t.Fatal("the callee's tool ran before approval")
	}
	yes := true
	data, _ := json.Marshal(Answer{Decisions: []CallDecision{{ID: "c1", Approved: &yes}}})
	resp, sub, err := runTurn(t, context.Background(), caller.Resume(resp.Pending, pc.Restart("", data)))
	if err != nil || resp.Text() != "All clean." {
		t.Fatalf("resume: %v %+v", err, resp)
	}
	if runs.Load() != 1 {
		t.Fatalf("the callee's tool ran %d times", runs.Load())
	}
	if res := pm.ToolResults(t, 1); len(res) != 1 || res[0].Content != "Deleted notes.txt." {
		t.Fatalf("the caller's model read %+v", res)
	}
	var kinds []string
	var text strings.Builder
	for _, ev := range sub {
		if ev.Agent() != "janitor" {
			t.Fatalf("event attributed to %q", ev.Agent())
		}
		if ev.Tool != nil {
			kinds = append(kinds, fmt.Sprint(ev.Tool.Kind, ev.Tool.Call.Name))
		}
		text.WriteString(ev.Text())
	}
	if want := []string{fmt.Sprint(client.ToolStarted, "delete"), fmt.Sprint(client.ToolFinished, "delete")}; fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("tool events %v, want %v", kinds, want)
	}
	if text.String() != "Deleted notes.txt." {
		t.Fatalf("callee's text in the caller's stream: %q", text.String())
	}
	// Resuming the same caller state again does not run the callee's tool again.
	if _, _, err := runTurn(t, context.Background(), caller.Resume(resp.Pending, pc.Restart("", data))); err == nil && runs.Load() != 1 {
		t.Fatalf("a second resume ran the tool again: %d", runs.Load())
	}
}

// The calling turn's end cancels the remote task.
func TestRemoteAgentCancelledWithTheTurn(t *testing.T) {
	started := make(chan struct{})
	stopped := make(chan struct{})
	slow := chattest.NewTool("slow", func(ctx context.Context, _ string) (string, error) {
		close(started)
		<-ctx.Done()
		close(stopped)
		return "", ctx.Err()
	})
	callee := clienttest.New(t, chattest.New(chattest.Calls(chattest.Call("slow", `{}`)), chattest.Text("never")), client.WithTools(slow))
	s := serve(t, callee, ServerConfig{})
	tl, err := RemoteAgent(context.Background(), Config{CardURL: s.http.URL})
	if err != nil {
		t.Fatal(err)
	}
	pm := chattest.New(chattest.Calls(chat.ToolCall{ID: "p1", Name: "wield", Arguments: `{"input":"go"}`}), chattest.Text("x"))
	caller := clienttest.New(t, pm, client.WithTools(tl))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	_, _, err = runTurn(t, ctx, caller.Prompt("go"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("turn: %v", err)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the remote task's tool still runs")
	}
}

func TestRemoteAgentAuth(t *testing.T) {
	m := chattest.New(chattest.Text("secret answer")).Repeat()
	s := serve(t, clienttest.New(t, m), ServerConfig{
		Authorize: func(r *http.Request) (string, error) {
			if r.Header.Get("Authorization") != "Bearer s3cret" {
				return "", errors.New("no")
			}
			return "caller", nil
		},
		SecuritySchemes: sdk.NamedSecuritySchemes{"bearer": sdk.HTTPAuthSecurityScheme{Scheme: "bearer"}},
		Security:        []sdk.SecurityRequirements{{"bearer": {}}},
	})
	if _, err := RemoteAgent(context.Background(), Config{CardURL: s.http.URL}); err == nil || !strings.Contains(err.Error(), "bearer") {
		t.Fatalf("no credentials for a card that asks for them: %v", err)
	}
	tl, err := RemoteAgent(context.Background(), Config{CardURL: s.http.URL, Auth: &Auth{BearerToken: "s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tl.Call(context.Background(), `{"input":"hi"}`); err != nil || out != "secret answer" {
		t.Fatalf("call: %q %v", out, err)
	}
	bad, err := RemoteAgent(context.Background(), Config{CardURL: s.http.URL, Auth: &Auth{BearerToken: "wrong"}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Call(context.Background(), `{"input":"hi"}`); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("wrong token: %v", err)
	}
}

// A message is sent again only when the agent cannot have taken it; reads on any transient
// failure.
func TestRemoteAgentRetries(t *testing.T) {
	m := chattest.New(chattest.Text("fine")).Repeat()
	s := serve(t, clienttest.New(t, m), ServerConfig{})
	var sends atomic.Int32
	var status atomic.Int32
	status.Store(http.StatusServiceUnavailable)
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && r.Method == http.MethodPost {
			if n := sends.Add(1); n <= 2 {
				w.Header().Set("Retry-After", "0")
				http.Error(w, "busy", int(status.Load()))
				return
			}
		}
		s.srv.ServeHTTP(w, r)
	}))
	defer flaky.Close()
	card := *s.card
	card.URL = flaky.URL + "/"
	tl, err := RemoteAgent(context.Background(), Config{Card: &card})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tl.Call(context.Background(), `{"input":"hi"}`); err != nil || out != "fine" || sends.Load() != 3 {
		t.Fatalf("after two 503s: %q %v, %d sends", out, err, sends.Load())
	}
	sends.Store(0)
	status.Store(http.StatusInternalServerError)
	if _, err := tl.Call(context.Background(), `{"input":"hi"}`); err == nil || sends.Load() != 1 {
		t.Fatalf("a 500 to a message: %v, %d sends", err, sends.Load())
	}
}

// hostile serves a card pointing at itself and answers every JSON-RPC request with rpc.
func hostile(t *testing.T, streaming bool, rpc http.HandlerFunc) *httptest.Server {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == CardPath {
			_ = json.NewEncoder(w).Encode(sdk.AgentCard{Name: "Hostile", URL: srv.URL + "/", ProtocolVersion: "0.3.0",
				PreferredTransport: sdk.TransportProtocolJSONRPC, Capabilities: sdk.AgentCapabilities{Streaming: streaming}})
			return
		}
		rpc(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func sseEvent(w http.ResponseWriter, v any) bool {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "1", "result": v})
	if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
		return false
	}
	w.(http.Flusher).Flush()
	return true
}

func TestRemoteAgentHostileServers(t *testing.T) {
	ctx := context.Background()
	t.Run("malformed card", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"name": 12`) }))
		defer srv.Close()
		if _, err := RemoteAgent(ctx, Config{CardURL: srv.URL}); err == nil || !strings.Contains(err.Error(), "agent card") {
			t.Fatalf("broken card: %v", err)
		}
		for _, c := range []*sdk.AgentCard{{Name: "x"}, {URL: "http://127.0.0.1:1/"}, {Name: "x", URL: "file:///etc/passwd"}} {
			if _, err := RemoteAgent(ctx, Config{Card: c}); err == nil {
				t.Fatalf("card %+v accepted", c)
			}
		}
		if _, err := RemoteAgent(ctx, Config{}); err == nil {
			t.Fatal("no card nor URL: no error")
		}
	})
	t.Run("invalid JSON-RPC", func(t *testing.T) {
		srv := hostile(t, false, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"jsonrpc":"2.0","result":{"kind":"nonsense"}}`)
		})
		tl, err := RemoteAgent(ctx, Config{CardURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tl.Call(ctx, `{"input":"hi"}`); err == nil {
			t.Fatal("no error")
		}
		srv2 := hostile(t, true, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {not json\n\n")
		})
		tl, _ = RemoteAgent(ctx, Config{CardURL: srv2.URL})
		if _, err := tl.Call(ctx, `{"input":"hi"}`); err == nil {
			t.Fatal("no error for a broken stream")
		}
	})
	t.Run("huge artifacts", func(t *testing.T) {
		big := strings.Repeat("x", 30000)
		srv := hostile(t, true, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for i := 0; ; i++ {
				ev := sdk.TaskArtifactUpdateEvent{TaskID: "t1", ContextID: "c1", Append: i > 0, Artifact: &sdk.Artifact{ID: "a", Parts: sdk.ContentParts{sdk.TextPart{Text: big}}}}
				if !sseEvent(w, ev) {
					return
				}
			}
		})
		tl, err := RemoteAgent(ctx, Config{CardURL: srv.URL, MaxResponseBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = tl.Call(ctx, `{"input":"hi"}`)
		if err == nil || !strings.Contains(err.Error(), "too large") {
			t.Fatalf("huge artifacts: %v", err)
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("took too long")
		}
		// Under the response bound, the answer's own bound holds.
		tl, _ = RemoteAgent(ctx, Config{CardURL: srv.URL, MaxResponseBytes: 64 << 20})
		if _, err := tl.Call(ctx, `{"input":"hi"}`); err == nil || !strings.Contains(err.Error(), "artifacts are over") {
			t.Fatalf("huge artifacts under the body bound: %v", err)
		}
	})
	t.Run("endless stream", func(t *testing.T) {
		var cancels atomic.Int32
		srv := hostile(t, true, func(w http.ResponseWriter, r *http.Request) {
			var req struct{ Method string }
			_ = json.NewDecoder(r.Body).Decode(&req)
			if req.Method == "tasks/cancel" {
				cancels.Add(1)
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "1", "result": sdk.Task{ID: "t1", ContextID: "c1", Status: sdk.TaskStatus{State: sdk.TaskStateCanceled}}})
				w.Write(b)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			for {
				ev := sdk.TaskStatusUpdateEvent{TaskID: "t1", ContextID: "c1", Status: sdk.TaskStatus{State: sdk.TaskStateWorking}}
				if !sseEvent(w, ev) {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
		tl, err := RemoteAgent(ctx, Config{CardURL: srv.URL, Timeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tl.Call(ctx, `{"input":"hi"}`); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("endless stream: %v", err)
		}
		if cancels.Load() != 1 {
			t.Fatalf("the endless task was cancelled %d times", cancels.Load())
		}
	})
	t.Run("silent server", func(t *testing.T) {
		srv := hostile(t, true, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		})
		tl, err := RemoteAgent(ctx, Config{CardURL: srv.URL, IdleTimeout: 200 * time.Millisecond, Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tl.Call(ctx, `{"input":"hi"}`); err == nil || !strings.Contains(err.Error(), "stalled") {
			t.Fatalf("silent server: %v", err)
		}
	})
}

var _ tool.Tool = (*remoteTool)(nil)

// An agent whose card does not stream is sent the message without waiting and polled: a wield
// agent's stop and its resume go through tasks/get.
func TestRemoteAgentPollsAWieldAgent(t *testing.T) {
	var runs atomic.Int32
	callee, _ := approvalAgent(t, &runs)
	s := serve(t, callee, ServerConfig{})
	card := *s.card
	card.Capabilities.Streaming = false
	tl, err := RemoteAgent(context.Background(), Config{Card: &card})
	if err != nil {
		t.Fatal(err)
	}
	r := stopAtRemote(t, context.Background(), tl, "delete notes")
	var p Pending
	if err := json.Unmarshal(r.pc.Interrupt.Data, &p); err != nil || len(p.Calls) != 1 || p.Calls[0].ID != "c1" {
		t.Fatalf("pending %s: %v", r.pc.Interrupt.Data, err)
	}
	if got := r.answer(t, context.Background(), Answer{Text: "yes"}); got != "Done." || runs.Load() != 1 {
		t.Fatalf("the model read %q, runs %d", got, runs.Load())
	}
}

// TestRemoteAgentSpendsTheCallersTree: a wield agent called over A2A spends a share of its
// caller's agent tree and says what it spent, which the caller's tree counts; a share spent
// ends the remote turn and then the caller's.
func TestRemoteAgentSpendsTheCallersTree(t *testing.T) {
	ls := chattest.NewTool("ls", func(context.Context, string) (string, error) { return "a b", nil })
	// Three rounds of ls, then the answer: 4 model calls, 3 tool calls, 12 tokens a call.
	calleeModel := chattest.New(chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		rounds := 0
		for _, m := range p.Messages {
			if m.Role == chat.RoleTool {
				rounds++
			}
		}
		msg, finish := chat.Assistant("listed"), chat.FinishStop
		if rounds < 3 {
			msg = chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: fmt.Sprintf("l%d", rounds), Name: "ls", Arguments: "{}"}}}
			finish = chat.FinishToolCalls
		}
		return &chat.Response{Generations: []chat.Generation{{Message: msg, FinishReason: finish}},
			Usage: chat.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12}}, nil
	})).Repeat().DiscardPrompts()
	callee := clienttest.New(t, calleeModel, client.WithTools(ls))
	s := serve(t, callee, ServerConfig{Name: "Lister"})
	tl, err := RemoteAgent(context.Background(), Config{CardURL: s.http.URL})
	if err != nil {
		t.Fatal(err)
	}
	caller := func(opts ...client.Option) *client.Client {
		pm := chattest.New(chattest.Calls(chat.ToolCall{ID: "p1", Name: "lister", Arguments: `{"input":"list"}`}).WithUsage(10, 2), chattest.Text("Listed.").WithUsage(10, 2))
		return clienttest.New(t, pm, append(opts, client.WithTools(tl))...)
	}

	resp, _, err := runTurn(t, context.Background(), caller().Prompt("list it"))
	if err != nil {
		t.Fatal(err)
	}
	want := client.TreeSpent{ModelCalls: 2 + 4, ToolCalls: 1 + 3, Tokens: 2*12 + 4*12}
	if resp.Tree != want {
		t.Fatalf("the caller's tree spent %+v, want %+v with the remote turn's", resp.Tree, want)
	}

	// A budget of 3 model calls: the remote turn gets the 2 left, spends them, and is refused its
	// third; the caller's tree is then spent too.
	_, _, err = runTurn(t, context.Background(), caller(client.WithTreeBudget(client.TreeBudget{ModelCalls: 3})).Prompt("list it"))
	var be *client.TreeBudgetError
	if !errors.As(err, &be) || be.Spent.ModelCalls != 3 {
		t.Fatalf("error %v, want the caller's tree spent with 3 model calls (its 1 and the remote's 2)", err)
	}
}
