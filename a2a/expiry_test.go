package a2a

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/memory"
)

// fakeClock is the time a server's tasks live by, moved by the test.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Now()} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func (s *served) clock(c *fakeClock) { s.srv.tasks.now = c.Now }

func stored(t *testing.T, repo memory.TurnRepository, key string) bool {
	t.Helper()
	_, ok, err := repo.LoadTurn(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// A finished task is kept KeepFinished and a waiting one KeepWaiting, then removed: a get or a
// reply meets the protocol's task-not-found, and the repository keeps nothing of them (the
// record, the index, the context's waiting mark, the stopped turn in the client's turn store).
func TestServeTaskExpiry(t *testing.T) {
	var runs atomic.Int32
	repo := memory.NewInMemory()
	c, _ := approvalAgentWith(t, &runs, repo,
		chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete", Arguments: `{"path":"a"}`}), chattest.Text("Hello."), chattest.Text("Later."))
	s := serve(t, c, ServerConfig{Tasks: repo, TurnStore: memory.Turns(repo), KeepWaiting: 24 * time.Hour, KeepFinished: time.Hour})
	clk := newClock()
	s.clock(clk)
	ctx := context.Background()
	waiting := sendTask(t, s.sdk, userMsg("delete a"))
	finished := sendTask(t, s.sdk, userMsg("hello"))
	if waiting.Status.State != sdk.TaskStateInputRequired || finished.Status.State != sdk.TaskStateCompleted {
		t.Fatalf("states %s %s", waiting.Status.State, finished.Status.State)
	}
	conv := conversation("", waiting.ContextID)
	if !stored(t, repo, conv) || !stored(t, repo, waitingKey(conv)) {
		t.Fatal("the waiting task's turn or mark is not stored")
	}

	clk.Add(time.Hour - time.Second)
	if got, err := s.sdk.GetTask(ctx, &sdk.TaskQueryParams{ID: finished.ID}); err != nil || got.Status.State != sdk.TaskStateCompleted {
		t.Fatalf("a finished task before its time: %v %+v", err, got)
	}
	clk.Add(2 * time.Second)
	if _, err := s.sdk.GetTask(ctx, &sdk.TaskQueryParams{ID: finished.ID}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("a finished task after its time: %v", err)
	}
	if stored(t, repo, taskKey(finished.ID)) {
		t.Fatal("the expired task is still stored")
	}
	if got, err := s.sdk.GetTask(ctx, &sdk.TaskQueryParams{ID: waiting.ID}); err != nil || got.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("a waiting task before its time: %v %+v", err, got)
	}

	// The sweep removes the waiting task without anyone asking for it.
	clk.Add(24 * time.Hour)
	if err := s.srv.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{taskKey(waiting.ID), conv, waitingKey(conv), indexKey(""), principalsKey} {
		if stored(t, repo, key) {
			t.Errorf("%s is still stored after the sweep", key)
		}
	}
	if _, err := s.sdk.GetTask(ctx, &sdk.TaskQueryParams{ID: waiting.ID}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("an expired waiting task: %v", err)
	}
	if _, err := s.sdk.SendMessage(ctx, onTask(waiting, sdk.TextPart{Text: "yes"})); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("a reply to an expired task: %v", err)
	}
	if _, err := s.sdk.CancelTask(ctx, &sdk.TaskIDParams{ID: waiting.ID}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("cancelling an expired task: %v", err)
	}
	if runs.Load() != 0 {
		t.Fatal("the expired task's tool ran")
	}
	// Its context is free for a new task.
	again := userMsg("delete b")
	again.Message.ContextID = waiting.ContextID
	if _, err := s.sdk.SendMessage(ctx, again); err != nil {
		t.Fatalf("a new task in the expired task's context: %v", err)
	}
}

// A principal has at most MaxOpenTasks tasks working or waiting; others' tasks do not count,
// and a task that ends or expires frees its place.
func TestServeMaxOpenTasks(t *testing.T) {
	var runs atomic.Int32
	c, m := approvalAgent(t, &runs, chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete", Arguments: `{}`}))
	m.Repeat()
	auth := func(r *http.Request) (string, error) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		return tok, nil
	}
	s := serve(t, c, ServerConfig{Authorize: auth, MaxOpenTasks: 2, KeepWaiting: time.Hour})
	clk := newClock()
	s.clock(clk)
	alice, bob := s.as(t, "alice"), s.as(t, "bob")
	ctx := context.Background()
	first := sendTask(t, alice, userMsg("delete 1"))
	sendTask(t, alice, userMsg("delete 2"))
	if _, err := alice.SendMessage(ctx, userMsg("delete 3")); !errors.Is(err, sdk.ErrInvalidRequest) || !strings.Contains(err.Error(), "open") {
		t.Fatalf("a third open task: %v", err)
	}
	if got := sendTask(t, bob, userMsg("delete 1")); got.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("bob's task: %s", got.Status.State)
	}
	// What the first check cannot see (two new tasks at once) the admission refuses.
	if err := s.srv.tasks.admit(ctx, "alice", "racing", "ctx"); !errors.Is(err, errTooManyTasks) {
		t.Fatalf("admission over the bound: %v", err)
	}
	if _, err := alice.CancelTask(ctx, &sdk.TaskIDParams{ID: first.ID}); err != nil {
		t.Fatal(err)
	}
	third := sendTask(t, alice, userMsg("delete 3"))
	if third.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("after a cancel: %s", third.Status.State)
	}
	clk.Add(time.Hour)
	if got := sendTask(t, alice, userMsg("delete 4")); got.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("after the waiting tasks expired: %s", got.Status.State)
	}
	if runs.Load() != 0 {
		t.Fatal("a tool ran")
	}
}

// A task left working by a process that ended (here: whose task lease passed on a second
// server's clock, and whose round's lease lapsed when its store died) is settled by the next
// look at it, not before the round's lease ends. With the client's turn store, it waits for a
// decision on the call that was running, and the decision continues the turn elsewhere; the
// first process, coming back, finds the task taken and changes nothing.
func TestServeTaskOfAnEndedProcessResumes(t *testing.T) {
	repo := memory.NewInMemory()
	turns := memory.Turns(repo)
	started, release := make(chan struct{}), make(chan struct{})
	var runs1, runs2 atomic.Int32
	slow1 := chattest.NewTool("slow", func(ctx context.Context, _ string) (string, error) {
		runs1.Add(1)
		close(started)
		<-release
		return "slow done", nil
	})
	m1 := chattest.New(chattest.Calls(chat.ToolCall{ID: "c1", Name: "slow", Arguments: `{}`}), chattest.Text("first process"))
	// The first process's client holds its round with a lease it renews through a store that
	// dies with the process. A second is long enough that a loaded machine's late renewal does
	// not lapse it while the process lives, nor a renewal begun before the death outlast it.
	dying := &dyingStore{TurnStore: turns}
	dyingTasks := &dyingRepo{TurnRepository: repo, dead: &dying.dead}
	s1 := serve(t, clienttest.New(t, m1, client.WithTools(slow1), client.WithTurnStore(dying), client.WithRoundLease(time.Second)),
		ServerConfig{Tasks: dyingTasks, TurnStore: turns})
	clk1 := newClock()
	s1.clock(clk1)
	slow2 := chattest.NewTool("slow", func(context.Context, string) (string, error) {
		runs2.Add(1)
		return "slow done again", nil
	})
	m2 := chattest.New(chattest.Text("Recovered."))
	s2 := serve(t, clienttest.New(t, m2, client.WithTools(slow2), client.WithTurnStore(turns)), ServerConfig{Tasks: repo, TurnStore: turns})
	clk2 := &fakeClock{t: clk1.Now()}
	s2.clock(clk2)
	ctx := context.Background()

	p := userMsg("go")
	no := false
	p.Config = &sdk.MessageSendConfig{Blocking: &no}
	task := sendTask(t, s1.sdk, p)
	<-started
	get := func() *sdk.Task { return s2.get(t, task.ID) }
	// The first process renews its lease; within it the task works.
	clk1.Add(20 * time.Second)
	if err := s1.srv.tasks.renew(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	clk2.Add(40 * time.Second)
	if got := get(); got.Status.State != sdk.TaskStateWorking {
		t.Fatalf("within the renewed lease: %s", got.Status.State)
	}
	// While its round's owner holds the client's lease, the task is not taken, whatever the
	// task's own lease says.
	clk2.Add(time.Minute)
	if got := get(); got.Status.State != sdk.TaskStateWorking {
		t.Fatalf("within the round's lease: %s", got.Status.State)
	}
	// The process dies: its round's lease lapses.
	dying.dead.Store(true)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		st, err := turns.LoadTurn(ctx, conversation("", task.ContextID))
		if err != nil {
			t.Fatal(err)
		}
		if !st.Leased() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the round's lease did not lapse")
		}
	}
	got := get()
	if got.Status.State != sdk.TaskStateInputRequired || !strings.Contains(partsText(got.Status.Message.Parts), "process ended") {
		t.Fatalf("after the lease: %s %q", got.Status.State, partsText(got.Status.Message.Parts))
	}
	pending := pendingCalls(got.Status.Message)
	if len(pending) != 1 || pending[0].ID != "c1" || pending[0].Reason != "running" {
		t.Fatalf("pending %+v", pending)
	}
	done := sendTask(t, s2.sdk, onTask(task, sdk.DataPart{Data: map[string]any{"decisions": []any{CallDecision{ID: "c1", Restart: true}}}}))
	if done.Status.State != sdk.TaskStateCompleted || answerOf(done) != "Recovered." || runs2.Load() != 1 {
		t.Fatalf("resumed: %s %q runs %d", done.Status.State, answerOf(done), runs2.Load())
	}
	if res := m2.ToolResults(t, 0); len(res) != 1 || res[0].Content != "slow done again" {
		t.Fatalf("the resumed turn's model read %+v", res)
	}
	close(release)
	if got := get(); got.Status.State != sdk.TaskStateCompleted || runs1.Load() != 1 {
		t.Fatalf("after the first process's call returned: %s, runs %d", got.Status.State, runs1.Load())
	}
}

// endedProcessTask returns a task working in a first process, whose tool call runs until the
// test ends, and a second process of runner sharing its tasks, whose clock the test moves.
func endedProcessTask(t *testing.T, runner Runner) (*served, *sdk.Task, *fakeClock) {
	t.Helper()
	repo := memory.NewInMemory()
	started, release := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(release) })
	slow := chattest.NewTool("slow", func(ctx context.Context, _ string) (string, error) {
		close(started)
		<-release
		return "slow done", nil
	})
	m1 := chattest.New(chattest.Calls(chat.ToolCall{ID: "c1", Name: "slow", Arguments: `{}`}), chattest.Text("first process"))
	s1 := serve(t, clienttest.New(t, m1, client.WithTools(slow)), ServerConfig{Tasks: repo})
	s2 := serve(t, nil, ServerConfig{Tasks: repo, Runner: runner})
	clk := newClock()
	s2.clock(clk)
	p := userMsg("go")
	no := false
	p.Config = &sdk.MessageSendConfig{Blocking: &no}
	task := sendTask(t, s1.sdk, p)
	<-started
	return s2, task, clk
}

// Without the client's turn store, a task whose process ended fails; a sweep settles it
// without anyone asking.
func TestServeTaskOfAnEndedProcessFails(t *testing.T) {
	// The second process's runner keeps turns of its own (a durable engine's): the task's
	// failure ends its turn there too.
	cr := &cancelingRunner{Runner: ClientRunner(clienttest.New(t, chattest.New()))}
	s2, task, clk := endedProcessTask(t, cr)
	ctx := context.Background()
	if err := s2.srv.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	rec, _, _, err := s2.srv.tasks.load(ctx, task.ID)
	if err != nil || rec.Task.Status.State != sdk.TaskStateWorking {
		t.Fatalf("within the lease: %v %+v", err, rec.Task)
	}
	clk.Add(DefaultTaskLease + time.Second)
	if err := s2.srv.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	rec, _, _, err = s2.srv.tasks.load(ctx, task.ID)
	if err != nil || rec.Task.Status.State != sdk.TaskStateFailed || !strings.Contains(partsText(rec.Task.Status.Message.Parts), "process ended") {
		t.Fatalf("after the lease: %v %+v", err, rec.Task.Status)
	}
	if got := cr.canceled(); len(got) != 1 || got[0] != string(task.ID) {
		t.Fatalf("turns cancelled: %v", got)
	}
	// Failed, it is kept KeepFinished, then removed like any other.
	clk.Add(DefaultKeepFinished)
	if _, err := s2.sdk.GetTask(ctx, &sdk.TaskQueryParams{ID: task.ID}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("an expired failed task: %v", err)
	}
}

// followingRunner is a runner whose turns go on without their process, each in the status
// the test gives it.
type followingRunner struct {
	cancelingRunner
	status func(id string) TurnStatus
}

func (r *followingRunner) TurnStatus(_ context.Context, id string) (TurnStatus, error) {
	return r.status(id), nil
}

// A task whose process ended follows its turn when the runner's turns outlive it
// (TurnFollower): working while the turn runs, then completed with its answer, or failed as the
// turn failed, without cancelling a turn that is over.
func TestServeTaskOfAnEndedProcessFollowsItsTurn(t *testing.T) {
	for _, c := range []struct {
		name   string
		ended  TurnStatus
		state  sdk.TaskState
		answer string
	}{
		{"ended", TurnStatus{Response: &client.Response{Chat: &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("Answered elsewhere.")}}}, Tree: client.TreeSpent{ModelCalls: 2}}}, sdk.TaskStateCompleted, "Answered elsewhere."},
		{"failed", TurnStatus{Failed: errors.New("boom")}, sdk.TaskStateFailed, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ended atomic.Bool
			fr := &followingRunner{cancelingRunner: cancelingRunner{Runner: ClientRunner(clienttest.New(t, chattest.New()))}, status: func(string) TurnStatus {
				if ended.Load() {
					return c.ended
				}
				return TurnStatus{Running: true}
			}}
			s2, task, clk := endedProcessTask(t, fr)
			ctx := context.Background()
			clk.Add(DefaultTaskLease + time.Second)
			get := func() *sdk.Task { return s2.get(t, task.ID) }
			if got := get(); got.Status.State != sdk.TaskStateWorking {
				t.Fatalf("while its turn runs: %s", got.Status.State)
			}
			ended.Store(true)
			if err := s2.srv.Sweep(ctx); err != nil {
				t.Fatal(err)
			}
			got := get()
			if got.Status.State != c.state || answerOf(got) != c.answer {
				t.Fatalf("once its turn %s: %s %q", c.name, got.Status.State, answerOf(got))
			}
			if c.state == sdk.TaskStateCompleted && treeSpent(got.Metadata).ModelCalls != 2 {
				t.Fatalf("spent %v", got.Metadata)
			}
			if n := len(fr.canceled()); n != 0 {
				t.Fatalf("%d turns cancelled", n)
			}
		})
	}
}

// Past MaxFinishedTasks, a principal's oldest finished tasks are removed before their time, so
// that the index stays small; open tasks are not.
func TestServeFinishedTasksBounded(t *testing.T) {
	var runs atomic.Int32
	c, m := approvalAgent(t, &runs, chattest.Text("done"))
	m.Repeat()
	repo := memory.NewInMemory()
	s := serve(t, c, ServerConfig{Tasks: repo})
	clk := newClock()
	s.clock(clk)
	s.srv.tasks.maxFinished = 3
	var ids []sdk.TaskID
	for range 5 {
		clk.Add(time.Second)
		ids = append(ids, sendTask(t, s.sdk, userMsg("hi")).ID)
	}
	for i, id := range ids {
		_, err := s.sdk.GetTask(context.Background(), &sdk.TaskQueryParams{ID: id})
		if gone := errors.Is(err, sdk.ErrTaskNotFound); gone != (i < 2) || !gone && err != nil {
			t.Errorf("task %d: %v", i, err)
		}
		if stored(t, repo, taskKey(id)) != (i >= 2) {
			t.Errorf("task %d stored: %v", i, !(i >= 2))
		}
	}
}

// dyingRepo is a process's task repository that fails every write once the process is dead.
type dyingRepo struct {
	memory.TurnRepository
	dead *atomic.Bool
}

func (d *dyingRepo) SaveTurn(ctx context.Context, conv string, rec memory.TurnRecord) error {
	if d.dead.Load() {
		return errors.New("the process is dead")
	}
	return d.TurnRepository.SaveTurn(ctx, conv, rec)
}

func (d *dyingRepo) DeleteTurn(ctx context.Context, conv, id string, seq int64) error {
	if d.dead.Load() {
		return errors.New("the process is dead")
	}
	return d.TurnRepository.DeleteTurn(ctx, conv, id, seq)
}

// dyingStore is a process's turn store that fails every save once the process is dead.
type dyingStore struct {
	client.TurnStore
	dead atomic.Bool
}

func (d *dyingStore) SaveTurn(ctx context.Context, conv string, st *client.TurnState) error {
	if d.dead.Load() {
		return errors.New("the process is dead")
	}
	return d.TurnStore.SaveTurn(ctx, conv, st)
}

// A task admitted by a process that ended before the task's first save (so its record was never
// written) counts as open until its admission lapses (TaskLease); the next sweep then takes it
// out of the index, and its owner may open another.
func TestServeAdmittedTaskOfAnEndedProcess(t *testing.T) {
	m := chattest.New(chattest.Text("done")).Repeat()
	s := serve(t, clienttest.New(t, m), ServerConfig{MaxOpenTasks: 1, TaskLease: time.Minute})
	clk := newClock()
	s.clock(clk)
	ctx := context.Background()
	if err := s.srv.tasks.admit(ctx, "", "ghost", "ctx"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.sdk.SendMessage(ctx, userMsg("hi")); !errors.Is(err, sdk.ErrInvalidRequest) || !strings.Contains(err.Error(), "open") {
		t.Fatalf("a task beside the admitted one: %v", err)
	}
	clk.Add(30 * time.Second)
	if err := s.srv.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _, err := s.srv.tasks.openTasks(ctx, ""); err != nil || n != 1 {
		t.Fatalf("within its admission: %d open tasks, %v", n, err)
	}
	clk.Add(31 * time.Second)
	if err := s.srv.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if got := sendTask(t, s.sdk, userMsg("hi")); got.Status.State != sdk.TaskStateCompleted {
		t.Fatalf("after the admission lapsed: %s", got.Status.State)
	}
}

// countingRepo counts the writes of a repository's records by key.
type countingRepo struct {
	memory.TurnRepository
	mu     sync.Mutex
	writes map[string]int
}

func (r *countingRepo) SaveTurn(ctx context.Context, key string, rec memory.TurnRecord) error {
	r.mu.Lock()
	r.writes[key]++
	r.mu.Unlock()
	return r.TurnRepository.SaveTurn(ctx, key, rec)
}

func (r *countingRepo) count(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writes[key]
}

// A task that runs to its end writes its owner's index twice, when it is admitted and when it
// ends: its first save finds the entry as the admission left it, and a sweep that finds nothing
// to change writes nothing.
func TestServeIndexWrites(t *testing.T) {
	repo := &countingRepo{TurnRepository: memory.NewInMemory(), writes: map[string]int{}}
	m := chattest.New(chattest.Text("done")).Repeat()
	s := serve(t, clienttest.New(t, m), ServerConfig{Tasks: repo})
	for i := range 3 {
		if got := sendTask(t, s.sdk, userMsg("hi")); got.Status.State != sdk.TaskStateCompleted {
			t.Fatalf("task %d: %s", i, got.Status.State)
		}
		if n := repo.count(indexKey("")); n != 2*(i+1) {
			t.Fatalf("after %d tasks the index was written %d times, want %d", i+1, n, 2*(i+1))
		}
	}
	if err := s.srv.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := repo.count(indexKey("")); n != 6 {
		t.Fatalf("a sweep with nothing to do wrote the index: %d writes", n)
	}
}

// cancelingRunner is a runner whose turns outlive their runs, recording the turns cancelled.
type cancelingRunner struct {
	Runner
	mu  sync.Mutex
	ids []string
}

func (r *cancelingRunner) CancelTurn(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids = append(r.ids, id)
	return nil
}

func (r *cancelingRunner) canceled() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ids)
}

// Anonymous callers (no Authorize) share a principal, but each, by its address, has
// MaxOpenTasks of its own: one that fills its place does not lock the others out, and all of
// them together are bounded too.
func TestServeAnonymousClientsOpenTasksApart(t *testing.T) {
	m := chattest.New(chattest.Text("done")).Repeat()
	s := serve(t, clienttest.New(t, m), ServerConfig{MaxOpenTasks: 2})
	from := func(addr string) context.Context {
		return context.WithValue(context.Background(), clientKey{}, "addr:"+addr)
	}
	for i := range 2 {
		if err := s.srv.tasks.admit(from("10.0.0.1"), "", sdk.TaskID(fmt.Sprintf("a%d", i)), "ctx"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.srv.tasks.admit(from("10.0.0.1"), "", "a2", "ctx"); !errors.Is(err, errTooManyTasks) {
		t.Fatalf("a third task of one client: %v", err)
	}
	if _, full, err := s.srv.tasks.openTasks(from("10.0.0.1"), ""); err != nil || !full {
		t.Fatalf("the first check for the full client: full %v, %v", full, err)
	}
	if _, full, err := s.srv.tasks.openTasks(from("10.0.0.2"), ""); err != nil || full {
		t.Fatalf("the first check for another client: full %v, %v", full, err)
	}
	n := 2
	for c := 2; c <= anonymousClients; c++ {
		for i := range 2 {
			if err := s.srv.tasks.admit(from(fmt.Sprintf("10.0.0.%d", c)), "", sdk.TaskID(fmt.Sprintf("t%d-%d", c, i)), "ctx"); err != nil {
				t.Fatalf("client %d, task %d (%d open): %v", c, i, n, err)
			}
			n++
		}
	}
	if err := s.srv.tasks.admit(from("10.0.0.99"), "", "over", "ctx"); !errors.Is(err, errTooManyTasks) {
		t.Fatalf("past %d anonymous tasks in all: %v", n, err)
	}
	// An authenticated principal's count is its own, as before.
	if err := s.srv.tasks.admit(context.Background(), "alice", "b0", "ctx"); err != nil {
		t.Fatal(err)
	}
}
