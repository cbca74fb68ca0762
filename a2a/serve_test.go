package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
)

// served is a wield client served as an A2A agent on a test server, with a client of the Go SDK.
type served struct {
	srv   *Server
	http  *httptest.Server
	sdk   *a2aclient.Client
	card  *sdk.AgentCard
	model *chattest.Model
}

func serve(t *testing.T, c *client.Client, cfg ServerConfig) *served {
	t.Helper()
	cfg.Client = c
	s, err := NewServer(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	card, err := agentcard.NewResolver(hs.Client()).Resolve(context.Background(), hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := a2aclient.NewFromCard(context.Background(), card, a2aclient.WithJSONRPCTransport(hs.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return &served{srv: s, http: hs, sdk: cl, card: card}
}

// get returns the task as s's client gets it.
func (s *served) get(t *testing.T, id sdk.TaskID) *sdk.Task {
	t.Helper()
	got, err := s.sdk.GetTask(context.Background(), &sdk.TaskQueryParams{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// as returns a client of s that sends who's bearer token.
func (s *served) as(t *testing.T, who string) *a2aclient.Client {
	t.Helper()
	cl, err := a2aclient.NewFromCard(context.Background(), s.card, a2aclient.WithJSONRPCTransport(s.http.Client()), a2aclient.WithInterceptors(bearer(who)))
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func userMsg(text string) *sdk.MessageSendParams {
	return &sdk.MessageSendParams{Message: sdk.NewMessage(sdk.MessageRoleUser, sdk.TextPart{Text: text})}
}

func onTask(t *sdk.Task, parts ...sdk.Part) *sdk.MessageSendParams {
	m := sdk.NewMessage(sdk.MessageRoleUser, parts...)
	m.TaskID = t.ID
	m.ContextID = t.ContextID
	return &sdk.MessageSendParams{Message: m}
}

func answerOf(t *sdk.Task) string {
	var b strings.Builder
	for _, a := range t.Artifacts {
		b.WriteString(partsText(a.Parts))
	}
	return b.String()
}

func sendTask(t *testing.T, cl *a2aclient.Client, p *sdk.MessageSendParams) *sdk.Task {
	t.Helper()
	res, err := cl.SendMessage(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*sdk.Task)
	if !ok {
		t.Fatalf("result %T, want a task", res)
	}
	return task
}

func TestServeCardAndSend(t *testing.T) {
	lookup := chattest.NewTool("lookup", func(context.Context, string) (string, error) { return "42", nil })
	m := chattest.New(chattest.Calls(chattest.Call("lookup", `{}`)), chattest.Text("The answer is 42."))
	s := serve(t, clienttest.New(t, m, client.WithTools(lookup)), ServerConfig{Name: "Oracle"})
	if s.card.Name != "Oracle" || len(s.card.Skills) != 1 || s.card.Skills[0].ID != "lookup" || !s.card.Capabilities.Streaming ||
		s.card.URL != s.http.URL+"/" {
		t.Fatalf("card %+v", s.card)
	}
	task := sendTask(t, s.sdk, userMsg("what is it?"))
	if task.Status.State != sdk.TaskStateCompleted || answerOf(task) != "The answer is 42." {
		t.Fatalf("task %s %q", task.Status.State, answerOf(task))
	}
	got, err := s.sdk.GetTask(context.Background(), &sdk.TaskQueryParams{ID: task.ID})
	if err != nil || got.Status.State != sdk.TaskStateCompleted || answerOf(got) != "The answer is 42." {
		t.Fatalf("get: %v %+v", err, got)
	}
	// The progress carried the tool call.
	var sawTool bool
	for _, h := range got.History {
		for _, p := range h.Parts {
			if d, ok := p.(sdk.DataPart); ok && d.Data["tool"] == "lookup" && d.Data["event"] == "finished" && d.Data["result"] == "42" {
				sawTool = true
			}
		}
	}
	if !sawTool {
		t.Fatalf("history without the tool's progress: %+v", got.History)
	}
}

// approvalAgent serves a client whose "delete" tool needs approval.
func approvalAgent(t *testing.T, runs *atomic.Int32, replies ...chattest.Reply) (*client.Client, *chattest.Model) {
	return approvalAgentWith(t, runs, nil, replies...)
}

// approvalAgentWith is approvalAgent whose turns and history are kept in repo, when not nil.
func approvalAgentWith(t *testing.T, runs *atomic.Int32, repo *memory.InMemory, replies ...chattest.Reply) (*client.Client, *chattest.Model) {
	del := chattest.NewTool("delete", func(_ context.Context, args string) (string, error) {
		runs.Add(1)
		return "deleted " + args, nil
	}).WithMetadata(tool.Metadata{RequiresApproval: true})
	if replies == nil {
		replies = []chattest.Reply{chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete", Arguments: `{"path":"notes.txt"}`}), chattest.Text("Done.")}
	}
	m := chattest.New(replies...).WithChunkSize(3)
	opts := []client.Option{client.WithTools(del)}
	if repo != nil {
		opts = append(opts, client.WithTurnStore(memory.Turns(repo)),
			client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, 50), memory.AdvisorConfig{})))
	}
	return clienttest.New(t, m, opts...), m
}

func TestServeStreamApprovalResume(t *testing.T) {
	var runs atomic.Int32
	c, _ := approvalAgent(t, &runs)
	s := serve(t, c, ServerConfig{})
	var last *sdk.TaskStatusUpdateEvent
	var task sdk.Task
	for ev, err := range s.sdk.SendStreamingMessage(context.Background(), userMsg("delete my notes")) {
		if err != nil {
			t.Fatal(err)
		}
		if su, ok := ev.(*sdk.TaskStatusUpdateEvent); ok {
			last = su
			task.ID, task.ContextID = su.TaskID, su.ContextID
		}
	}
	if last == nil || last.Status.State != sdk.TaskStateInputRequired || !last.Final {
		t.Fatalf("last status %+v", last)
	}
	var pending []PendingView
	for _, p := range last.Status.Message.Parts {
		if d, ok := p.(sdk.DataPart); ok {
			b, _ := json.Marshal(d.Data["pending"])
			_ = json.Unmarshal(b, &pending)
		}
	}
	if len(pending) != 1 || pending[0].ID != "c1" || pending[0].Reason != "approval" || string(pending[0].Arguments) != `{"path":"notes.txt"}` {
		t.Fatalf("pending %+v", pending)
	}
	if runs.Load() != 0 {
		t.Fatal("the tool ran before its approval")
	}
	// A reply that decides nothing leaves the task waiting, and says why.
	again := sendTask(t, s.sdk, onTask(&task, sdk.TextPart{Text: "maybe"}))
	if again.Status.State != sdk.TaskStateInputRequired || !strings.Contains(partsText(again.Status.Message.Parts), "reply yes or no") {
		t.Fatalf("after an unclear reply: %s %q", again.Status.State, partsText(again.Status.Message.Parts))
	}
	yes := true
	done := sendTask(t, s.sdk, onTask(&task, sdk.DataPart{Data: map[string]any{"decisions": []any{CallDecision{ID: "c1", Approved: &yes}}}}))
	if done.Status.State != sdk.TaskStateCompleted || answerOf(done) != "Done." || runs.Load() != 1 {
		t.Fatalf("after approval: %s %q runs %d", done.Status.State, answerOf(done), runs.Load())
	}
	// The task is over: another reply is refused, and the tool does not run again.
	if _, err := s.sdk.SendMessage(context.Background(), onTask(&task, sdk.TextPart{Text: "yes"})); !errors.Is(err, sdk.ErrInvalidParams) {
		t.Fatalf("reply to a completed task: %v", err)
	}
	if runs.Load() != 1 {
		t.Fatalf("tool ran %d times", runs.Load())
	}
}

// A task waiting for approval survives its server: another server on the same store, whose
// client keeps its turns and history there too, resumes it; the history holds the whole turn.
func TestServeTaskSurvivesRestart(t *testing.T) {
	var runs atomic.Int32
	repo := memory.NewInMemory()
	c1, _ := approvalAgentWith(t, &runs, repo, chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete", Arguments: `{"path":"a"}`}))
	s1 := serve(t, c1, ServerConfig{Tasks: repo})
	task := sendTask(t, s1.sdk, userMsg("delete a"))
	if task.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("state %s", task.Status.State)
	}
	s1.http.Close()
	c2, m2 := approvalAgentWith(t, &runs, repo, chattest.Text("Deleted a."))
	s2 := serve(t, c2, ServerConfig{Tasks: repo})
	got, err := s2.sdk.GetTask(context.Background(), &sdk.TaskQueryParams{ID: task.ID})
	if err != nil || got.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("get after restart: %v %+v", err, got)
	}
	done := sendTask(t, s2.sdk, onTask(task, sdk.TextPart{Text: "yes"}))
	if done.Status.State != sdk.TaskStateCompleted || answerOf(done) != "Deleted a." || runs.Load() != 1 {
		t.Fatalf("after restart: %s %q runs %d", done.Status.State, answerOf(done), runs.Load())
	}
	if res := m2.ToolResults(t, 0); len(res) != 1 || res[0].Content != `deleted {"path":"a"}` {
		t.Fatalf("the resumed turn's model read %+v", res)
	}
	msgs, err := repo.Messages(context.Background(), conversation("", task.ContextID))
	if err != nil || len(msgs) != 4 {
		t.Fatalf("history: %v %v", err, msgs)
	}
}

func TestServeCancel(t *testing.T) {
	started := make(chan struct{})
	var ended atomic.Bool
	slow := chattest.NewTool("slow", func(ctx context.Context, _ string) (string, error) {
		close(started)
		<-ctx.Done()
		ended.Store(true)
		return "", ctx.Err()
	})
	m := chattest.New(chattest.Calls(chattest.Call("slow", `{}`)), chattest.Text("never"))
	s := serve(t, clienttest.New(t, m, client.WithTools(slow)), ServerConfig{})
	var id sdk.TaskID
	stream := s.sdk.SendStreamingMessage(context.Background(), userMsg("go"))
	var final sdk.TaskState
	for ev, err := range stream {
		if err != nil {
			t.Fatal(err)
		}
		su, ok := ev.(*sdk.TaskStatusUpdateEvent)
		if !ok {
			continue
		}
		if id == "" {
			id = su.TaskID
			go func() {
				<-started
				if _, err := s.sdk.CancelTask(context.Background(), &sdk.TaskIDParams{ID: id}); err != nil {
					t.Error(err)
				}
			}()
		}
		final = su.Status.State
	}
	if final != sdk.TaskStateCanceled {
		t.Fatalf("final state %s", final)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !ended.Load() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !ended.Load() {
		t.Fatal("the canceled task's tool is still running")
	}
	// A task waiting for input is canceled too, and a later reply refused.
	var runs atomic.Int32
	c, _ := approvalAgent(t, &runs)
	s2 := serve(t, c, ServerConfig{})
	task := sendTask(t, s2.sdk, userMsg("delete"))
	ct, err := s2.sdk.CancelTask(context.Background(), &sdk.TaskIDParams{ID: task.ID})
	if err != nil || ct.Status.State != sdk.TaskStateCanceled {
		t.Fatalf("cancel waiting task: %v %+v", err, ct)
	}
	if _, err := s2.sdk.SendMessage(context.Background(), onTask(task, sdk.TextPart{Text: "yes"})); err == nil || runs.Load() != 0 {
		t.Fatalf("reply to a canceled task: %v, runs %d", err, runs.Load())
	}
}

// Tasks belong to who created them: another principal, or an unknown id, finds nothing.
func TestServeOwnersAndUnknownTasks(t *testing.T) {
	var runs atomic.Int32
	c, _ := approvalAgent(t, &runs)
	auth := func(r *http.Request) (string, error) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || (tok != "alice" && tok != "mallory") {
			return "", errors.New("bad token")
		}
		return tok, nil
	}
	s := serve(t, c, ServerConfig{Authorize: auth})
	alice, mallory := s.as(t, "alice"), s.as(t, "mallory")
	task := sendTask(t, alice, userMsg("delete"))
	if task.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("state %s", task.Status.State)
	}
	ctx := context.Background()
	if _, err := mallory.GetTask(ctx, &sdk.TaskQueryParams{ID: task.ID}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("mallory gets alice's task: %v", err)
	}
	if _, err := mallory.CancelTask(ctx, &sdk.TaskIDParams{ID: task.ID}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("mallory cancels alice's task: %v", err)
	}
	if _, err := mallory.SendMessage(ctx, onTask(task, sdk.TextPart{Text: "yes"})); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("mallory approves alice's task: %v", err)
	}
	for _, err := range mallory.ResubscribeToTask(ctx, &sdk.TaskIDParams{ID: task.ID}) {
		if !errors.Is(err, sdk.ErrTaskNotFound) {
			t.Fatalf("mallory resubscribes to alice's task: %v", err)
		}
	}
	if _, err := alice.GetTask(ctx, &sdk.TaskQueryParams{ID: "no-such-task"}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("unknown task: %v", err)
	}
	if _, err := alice.GetTask(ctx, &sdk.TaskQueryParams{ID: sdk.TaskID(strings.Repeat("x", 5000))}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("overlong task id: %v", err)
	}
	// Resubscribing to a task that is not running yields its state.
	var seen []sdk.Event
	for ev, err := range alice.ResubscribeToTask(ctx, &sdk.TaskIDParams{ID: task.ID}) {
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, ev)
	}
	if len(seen) != 1 || seen[0].(*sdk.Task).Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("resubscribe: %+v", seen)
	}
	// Alice's context has a task waiting: her new task there must wait; Mallory's context of the
	// same id is another conversation.
	again := userMsg("delete more")
	again.Message.ContextID = task.ContextID
	if _, err := alice.SendMessage(ctx, again); !errors.Is(err, sdk.ErrInvalidParams) || !strings.Contains(err.Error(), "waiting for input") {
		t.Fatalf("a second task in a waiting context: %v", err)
	}
	if other := sendTask(t, mallory, again); other.Status.State != sdk.TaskStateCompleted || other.ContextID != task.ContextID {
		t.Fatalf("mallory's task in a context of the same id: %s %s", other.Status.State, other.ContextID)
	}
	if runs.Load() != 0 {
		t.Fatal("the tool ran")
	}
	// Without a token, nothing is read.
	resp, err := http.Post(s.http.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %d", resp.StatusCode)
	}
}

type bearer string

func (b bearer) Before(ctx context.Context, req *a2aclient.Request) (context.Context, error) {
	req.Meta["Authorization"] = []string{"Bearer " + string(b)}
	return ctx, nil
}

func (bearer) After(context.Context, *a2aclient.Response) error { return nil }

func TestServeHostileRequests(t *testing.T) {
	m := chattest.New(chattest.Text("hi"))
	s := serve(t, clienttest.New(t, m), ServerConfig{MaxRequestBytes: 4096})
	post := func(body string, header ...string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, s.http.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp.StatusCode, b.String()
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"` + strings.Repeat("a", 10000) + `"}]}}}`
	if code, _ := post(big); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized body: %d", code)
	}
	if code, body := post(`{"jsonrpc":"2.0","id":1,"method":`); code != 200 || !strings.Contains(body, "-32700") {
		t.Fatalf("broken JSON: %d %s", code, body)
	}
	if code, body := post(`{"jsonrpc":"2.0","id":1,"method":"tasks/nope","params":{}}`); !strings.Contains(body, "-32601") {
		t.Fatalf("unknown method: %d %s", code, body)
	}
	if code, body := post(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","taskId":"nope","parts":[{"kind":"text","text":"x"}]}}}`); !strings.Contains(body, "-32001") {
		t.Fatalf("message to an unknown task: %d %s", code, body)
	}
	if code, _ := post(`{}`, "Origin", "https://evil.example"); code != http.StatusForbidden {
		t.Fatalf("foreign origin: %d", code)
	}
	if code, body := post(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"file","file":{"uri":"file:///etc/passwd"}}]}}}`); !strings.Contains(body, `"rejected"`) || strings.Contains(body, "goroutine") {
		t.Fatalf("file part: %d %s", code, body)
	}
}

// A turn that outlives RunTimeout fails its task, saying so and no more.
func TestServeRunTimeout(t *testing.T) {
	m := chattest.New(chattest.Respond(func(ctx context.Context, _ *chat.Prompt) (*chat.Response, error) {
		<-ctx.Done()
		return nil, errors.New("provider detail: " + ctx.Err().Error())
	}))
	s := serve(t, clienttest.New(t, m), ServerConfig{RunTimeout: 100 * time.Millisecond})
	task := sendTask(t, s.sdk, userMsg("think hard"))
	if task.Status.State != sdk.TaskStateFailed || partsText(task.Status.Message.Parts) != "the agent's turn ran out of time" {
		t.Fatalf("%s %q", task.Status.State, partsText(task.Status.Message.Parts))
	}
}

// Resubscribing to a running task streams the rest of its events.
func TestServeResubscribeRunning(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	wait := chattest.NewTool("wait", func(ctx context.Context, _ string) (string, error) {
		close(started)
		<-release
		return "waited", nil
	})
	m := chattest.New(chattest.Calls(chattest.Call("wait", `{}`)), chattest.Text("All done."))
	s := serve(t, clienttest.New(t, m, client.WithTools(wait)), ServerConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var id sdk.TaskID
	for ev, err := range s.sdk.SendStreamingMessage(ctx, userMsg("go")) {
		if err != nil {
			t.Fatal(err)
		}
		id = ev.TaskInfo().TaskID
		break // the first client goes away; the task goes on
	}
	<-started
	done := make(chan []sdk.Event)
	go func() {
		var evs []sdk.Event
		for ev, err := range s.sdk.ResubscribeToTask(context.Background(), &sdk.TaskIDParams{ID: id}) {
			if err != nil {
				t.Error(err)
				break
			}
			evs = append(evs, ev)
		}
		done <- evs
	}()
	time.Sleep(50 * time.Millisecond) // most often, the resubscription attaches while the task runs
	close(release)
	evs := <-done
	// A resubscription that came after the end reads the task as it ended.
	var final sdk.TaskState
	switch v := evs[len(evs)-1].(type) {
	case *sdk.TaskStatusUpdateEvent:
		final = v.Status.State
	case *sdk.Task:
		final = v.Status.State
	}
	if final != sdk.TaskStateCompleted {
		t.Fatalf("resubscription's events end with %+v", evs[len(evs)-1])
	}
	got, err := s.sdk.GetTask(context.Background(), &sdk.TaskQueryParams{ID: id})
	if err != nil || answerOf(got) != "All done." {
		t.Fatalf("get: %v %q", err, answerOf(got))
	}
}
