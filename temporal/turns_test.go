package temporal_test

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/memory/sqlstore"
	"github.com/wield-ai/wield/memory/sqlstore/sqlstoretest"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/temporal/internal/servertest"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

var record = flag.Bool("record", false, "write the histories of the end-to-end turns to testdata, for the replay test")

// The environment of a child process.
const (
	envAddr  = "WIELD_TEMPORAL_ADDR"
	envNS    = "WIELD_TEMPORAL_NS"
	envRuns  = "WIELD_TEMPORAL_RUNS"
	envDSN   = "WIELD_TEMPORAL_DSN"
	envTurn  = "WIELD_TEMPORAL_TURN"
	envSeq   = "WIELD_TEMPORAL_SEQ"
	envCall  = "WIELD_TEMPORAL_CALL"
	envQueue = "WIELD_TEMPORAL_QUEUE"
)

// helper runs a child process's role and returns its exit code.
func helper(role string) int {
	tc, err := dialServer(os.Getenv(envAddr), os.Getenv(envNS))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer tc.Close()
	switch role {
	case "tools": // the tool worker of the parallel turn, until stdin closes
		return serve(temporal.NewToolWorker(tc, parallelClient(true), atLoad(parallelConfig(os.Getenv(envQueue)))))
	case "worker", "engine-worker": // a worker of a crash turn whose lookup hangs, until it is killed
		agent := crashClient
		if role == "engine-worker" {
			agent = engineCrashClient
		}
		mem, closeMem, err := openMemory(os.Getenv(envDSN))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		defer closeMem()
		return serve(temporal.NewWorker(tc, agent(os.Getenv(envRuns), true), atLoad(crashConfig(os.Getenv(envQueue), mem))))
	case "decide": // approve a call of a waiting turn
		c, err := temporal.NewClient(tc, approvalConfig(os.Getenv(envQueue)))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		seq, _ := strconv.ParseInt(os.Getenv(envSeq), 10, 64)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Turn(os.Getenv(envTurn)).Decide(ctx, seq, client.Approve(os.Getenv(envCall))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("approved")
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown role", role)
	return 2
}

// serve runs w, if making it did not fail with err, until stdin closes.
func serve(w *temporal.Worker, err error) int {
	if err == nil {
		err = w.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	w.Stop()
	return 0
}

// child is a helper process.
type child struct {
	cmd   *exec.Cmd
	stdin io.Closer
	out   testenv.Buffer
}

// startChild starts this test binary in role with env and waits until it says it is ready
// (roles that serve) or returns at once.
func startChild(t *testing.T, role string, waitReady bool, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	addr, ns := servertest.Start(t)
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + role, envAddr + "=" + addr, envNS + "=" + ns}, env...)...)
	c := &child{cmd: cmd}
	cmd.Stdout, cmd.Stderr = &c.out, &c.out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.stdin = stdin
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	if waitReady {
		eventually(t, time.Minute, "the child "+role+" to be ready", func() bool { return strings.Contains(c.out.String(), "ready") })
	}
	return c
}

// eventually polls cond until it holds, failing t after d.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// atLoad gives cfg's workers a deadlock detector that a loaded machine does not trip: the SDK's
// default (1 s without the workflow yielding) fails workflow tasks of the race detector's builds
// on a busy CI machine, though nothing is stuck.
func atLoad(cfg temporal.Config) temporal.Config {
	if cfg.Worker.DeadlockDetectionTimeout == 0 {
		cfg.Worker.DeadlockDetectionTimeout = time.Minute
	}
	return cfg
}

// startWorker runs a worker of agent on cfg until the test ends.
func startWorker(t testing.TB, tc sdkclient.Client, agent *client.Client, cfg temporal.Config) *temporal.Worker {
	t.Helper()
	w, err := temporal.NewWorker(tc, agent, atLoad(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

// turnClient returns a client of the turns of cfg's agent.
func turnClient(t testing.TB, tc sdkclient.Client, cfg temporal.Config) *temporal.Client {
	t.Helper()
	c, err := temporal.NewClient(tc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startTurn starts the turn req on cfg's queue; the context returned ends after d.
func startTurn(t *testing.T, tc sdkclient.Client, cfg temporal.Config, d time.Duration, req temporal.Request) (context.Context, *temporal.Turn) {
	t.Helper()
	c := turnClient(t, tc, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	turn, err := c.Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, turn
}

// waitPending waits for turn to stop for a decision and returns where it stands; a turn that
// ends instead fails t, with its result.
func waitPending(t *testing.T, ctx context.Context, turn *temporal.Turn) *client.TurnState {
	t.Helper()
	st, err := turn.WaitPending(ctx)
	if err != nil {
		t.Fatalf("waiting for the turn to stop: %v", err)
	}
	if st == nil {
		t.Fatalf("the turn ended without stopping: %s", resultText(ctx, turn))
	}
	return st
}

// resultText returns the answer of a turn that ended, for a failure's message.
func resultText(ctx context.Context, turn *temporal.Turn) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := turn.Result(ctx)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%.300q", resp.Text())
}

// readEvents reads turn's events to their end, failing t on an error, hands each to fn but the
// turn's response, and returns that (nil if none came).
func readEvents(t *testing.T, ctx context.Context, turn *temporal.Turn, fn func(ev *client.Event)) *client.Response {
	t.Helper()
	var done *client.Response
	for ev, err := range turn.Events(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Done != nil {
			done = ev.Done
			continue
		}
		fn(ev)
	}
	return done
}

func newClient(m chat.Model, opts ...client.Option) *client.Client {
	opts = append([]client.Option{client.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)
	return tool.Must(client.New(m, opts...))
}

// script is a model whose answer depends on the conversation only, so any worker in any process
// answers alike: the calls of first for a user's message, then text over the results.
func script(first ...chat.ToolCall) chat.Model {
	return chattest.New(chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		last := p.Messages[len(p.Messages)-1]
		msg := chat.Message{Role: chat.RoleAssistant}
		finish := chat.FinishStop
		if last.Role == chat.RoleTool {
			parts := make([]string, len(last.ToolResults))
			for i, r := range last.ToolResults {
				parts[i] = r.Content
			}
			msg.Content = "Done: " + strings.Join(parts, "; ")
		} else {
			msg.ToolCalls, finish = first, chat.FinishToolCalls
		}
		return &chat.Response{Model: "script", Generations: []chat.Generation{{Message: msg, FinishReason: finish}},
			Usage: chat.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12}}, nil
	})).Repeat().DiscardPrompts()
}

type pathIn struct {
	Path string `json:"path"`
}

// parallelClient is the agent of the parallel turn. Its tools each wait until all three run (in
// the tool worker's process), then say which process ran them; in the turn worker, where they
// must not run, they fail.
func parallelClient(toolWorker bool) *client.Client {
	var mu sync.Mutex
	started := 0
	all := make(chan struct{})
	mk := func(name string) tool.Tool {
		return tool.Must(tool.Func(name, "Reads "+name, func(ctx context.Context, in pathIn) (string, error) {
			if !toolWorker {
				return "", errors.New("ran in the turn worker")
			}
			mu.Lock()
			if started++; started == 3 {
				close(all)
			}
			mu.Unlock()
			select {
			case <-all:
			case <-time.After(30 * time.Second):
				return "", errors.New("the other calls did not run beside this one")
			}
			return fmt.Sprintf("%s %s by %d", name, in.Path, os.Getpid()), nil
		}, tool.ReadOnly()))
	}
	m := script(chat.ToolCall{ID: "c1", Name: "a", Arguments: `{"path":"1"}`},
		chat.ToolCall{ID: "c2", Name: "b", Arguments: `{"path":"2"}`},
		chat.ToolCall{ID: "c3", Name: "c", Arguments: `{"path":"3"}`})
	return newClient(m, client.WithTools(mk("a"), mk("b"), mk("c")))
}

func parallelConfig(queue string) temporal.Config {
	return temporal.Config{TaskQueue: queue + "-turns", ToolTaskQueue: queue + "-tools", EventPoll: 20 * time.Millisecond}
}

func TestParallelToolCallsOnTheirOwnQueue(t *testing.T) {
	tc := dial(t)
	queue := "parallel-" + rand.Text()[:8]
	cfg := parallelConfig(queue)
	startChild(t, "tools", true, envQueue+"="+queue)
	startWorker(t, tc, parallelClient(false), cfg)
	ctx, turn := startTurn(t, tc, cfg, 2*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("read three files")}})
	var kinds []string
	done := readEvents(t, ctx, turn, func(ev *client.Event) {
		switch {
		case ev.Tool != nil && ev.Tool.Kind == client.ToolStarted:
			kinds = append(kinds, "start")
		case ev.Tool != nil && ev.Tool.Kind == client.ToolFinished:
			kinds = append(kinds, "finish")
		}
	})
	if !slices.Equal(kinds, []string{"start", "start", "start", "finish", "finish", "finish"}) {
		t.Fatalf("tool events = %v", kinds)
	}
	if done == nil || done.Outcome != client.OutcomeAnswer || done.ModelCalls != 2 || done.Usage.InputTokens != 20 {
		t.Fatalf("response = %+v", done)
	}
	results := done.Messages[1].ToolResults
	for i, name := range []string{"a", "b", "c"} {
		r := results[i]
		if r.IsError || !strings.HasPrefix(r.Content, fmt.Sprintf("%s %d by ", name, i+1)) || strings.HasSuffix(r.Content, fmt.Sprintf(" %d", os.Getpid())) {
			t.Fatalf("result %d = %+v", i, r)
		}
	}
	checkReplay(t, tc, parallelClient(false), cfg, turn.ID(), "parallel")
}

// crashClient is the agent of the crash turn: a charge that must never run twice and a
// read-only lookup that reports progress and, in a worker that is to be killed, hangs.
func crashClient(runs string, hang bool) *client.Client {
	charge := tool.Must(tool.Func("charge", "Charges the card", func(ctx context.Context, in pathIn) (string, error) {
		if err := appendLine(runs, "charge "+in.Path); err != nil {
			return "", err
		}
		return "charged " + in.Path, nil
	}))
	lookup := crashLookup(runs, hang, "Looks the order up")
	m := script(chat.ToolCall{ID: "c1", Name: "charge", Arguments: `{"path":"card-4242"}`},
		chat.ToolCall{ID: "c2", Name: "lookup", Arguments: `{"path":"A17"}`})
	return newClient(m, client.WithTools(charge, lookup))
}

// crashLookup is the read-only lookup of a crash turn, described as desc: it records its start
// and end in runs, reports progress, and, in a worker that is to be killed, hangs.
func crashLookup(runs string, hang bool, desc string) tool.Tool {
	return tool.Must(tool.Func("lookup", desc, func(ctx context.Context, in pathIn) (string, error) {
		if err := appendLine(runs, "lookup started"); err != nil {
			return "", err
		}
		tool.ReportProgress(ctx, tool.Progress{Progress: 1, Total: 2, Message: "searching"})
		if hang {
			<-ctx.Done()
			return "", ctx.Err()
		}
		if err := appendLine(runs, "lookup finished"); err != nil {
			return "", err
		}
		return "order " + in.Path + " found", nil
	}, tool.ReadOnly()))
}

func crashConfig(queue string, mem memory.Memory) temporal.Config {
	return temporal.Config{
		TaskQueue:        queue,
		HeartbeatTimeout: 5 * time.Second, // a lost worker shows within seconds, a busy one is not taken for lost
		Memory:           mem,
		EventPoll:        20 * time.Millisecond,
		Worker:           worker.Options{StickyScheduleToStartTimeout: time.Second},
	}
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(b)), " ", "_"))
}

func count(ls []string, s string) int {
	n := 0
	for _, l := range ls {
		if l == s {
			n++
		}
	}
	return n
}

func openMemory(dsn string) (memory.Memory, func(), error) {
	s, err := sqlstore.Open(context.Background(), dsn)
	if err != nil {
		return nil, nil, err
	}
	return memory.NewWindow(s, 50), func() { s.Close() }, nil
}

// memoryDSN returns a database the test's processes share: a schema of its own on the test
// PostgreSQL server, or without one (outside CI) an SQLite file.
func memoryDSN(t *testing.T) string {
	base := os.Getenv("WIELD_TEST_POSTGRES_URL")
	if base == "" {
		if testenv.CI() {
			t.Fatal("WIELD_TEST_POSTGRES_URL is not set; scripts/test sets it")
		}
		t.Log("WIELD_TEST_POSTGRES_URL is not set: the workers share an SQLite file")
		return filepath.Join(t.TempDir(), "chat.db")
	}
	return sqlstoretest.Postgres(t, base)
}

// TestWorkerKilledMidTurn: a turn loses its worker (kill -9) while a read-only call runs; a
// second worker finishes it from the history. The charge ran once, the lookup again.
func TestWorkerKilledMidTurn(t *testing.T) {
	killWorkerMidLookup(t, "worker", crashClient, "worker-crash", []string{"assistant", "tool", "assistant"})
}

// killWorkerMidLookup runs a crash turn of agent (crashClient or engineCrashClient) whose first
// worker, a child process in role, is killed while the lookup hangs, reporting its progress,
// once the charge's completion reached the server: a charge that ran but whose worker died
// before saying so stops the turn for a decision instead (it is not retried). A second worker
// finishes the turn. The charge ran once (and each line of once), the lookup twice; the turn
// added messages of roles, which the conversation kept holds after the user's; and the
// history replays (recorded as name).
func killWorkerMidLookup(t *testing.T, role string, agent func(runs string, hang bool) *client.Client, name string, roles []string, once ...string) {
	tc := dial(t)
	queue := role + "-" + rand.Text()[:8]
	runs := filepath.Join(t.TempDir(), "runs")
	dsn := memoryDSN(t)
	a := startChild(t, role, true, envQueue+"="+queue, envRuns+"="+runs, envDSN+"="+dsn)

	mem, closeMem, err := openMemory(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeMem) // after the workers stop
	cfg := crashConfig(queue, mem)
	conv := "order-" + queue
	ctx, turn := startTurn(t, tc, cfg, 5*time.Minute, temporal.Request{ConversationID: conv, Messages: []chat.Message{chat.User("charge and look up")}})
	eventually(t, time.Minute, "the charge to finish and the lookup to start", func() bool {
		ls := lines(t, runs)
		return count(ls, "charge_card-4242") == 1 && count(ls, "lookup_started") == 1 && activityCompleted(t, tc, turn.ID(), "/c1")
	})
	eventually(t, 30*time.Second, "the lookup's progress in its heartbeat", func() bool {
		ps, err := turn.Progress(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(ps) == 1 && ps[0].CallID == "c2" && ps[0].Progress != nil && ps[0].Progress.Message == "searching" && ps[0].Attempt == 1
	})
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = a.cmd.Wait()

	startWorker(t, tc, agent(runs, false), cfg)
	resp, err := turn.Result(ctx)
	if err != nil {
		t.Fatalf("%v\nchild output:\n%s\nruns: %v\n%s", err, a.out.String(), lines(t, runs), turnDiagnosis(t, tc, turn.ID()))
	}
	ls := lines(t, runs)
	if count(ls, "charge_card-4242") != 1 || count(ls, "lookup_started") != 2 || count(ls, "lookup_finished") != 1 {
		t.Fatalf("runs = %v", ls)
	}
	for _, l := range once {
		if count(ls, l) != 1 {
			t.Fatalf("runs = %v, want %s once", ls, l)
		}
	}
	if resp.Outcome != client.OutcomeAnswer || resp.Text() != "Done: charged card-4242; order A17 found" || len(resp.Messages) != len(roles) {
		t.Fatalf("response = %+v", resp)
	}
	stored, err := mem.Get(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range stored {
		got = append(got, string(m.Role))
	}
	if !slices.Equal(got, append([]string{"user"}, roles...)) || stored[len(stored)-1].Content != resp.Text() {
		t.Fatalf("stored = %v", got)
	}
	checkReplay(t, tc, agent(runs, false), cfg, turn.ID(), name)
}

func approvalClient(runs string) *client.Client {
	del := tool.Must(tool.Func("delete", "Deletes a file", func(ctx context.Context, in pathIn) (string, error) {
		if err := appendLine(runs, "delete "+in.Path); err != nil {
			return "", err
		}
		return "deleted " + in.Path, nil
	}, tool.RequiresApproval()))
	return newClient(script(chat.ToolCall{ID: "d1", Name: "delete", Arguments: `{"path":"/tmp/a"}`}), client.WithTools(del))
}

func approvalConfig(queue string) temporal.Config {
	return temporal.Config{TaskQueue: queue, EventPoll: 20 * time.Millisecond}
}

// startApprovalTurn starts a worker of approvalClient on a task queue of its own, named after
// name, and on it a turn asking to delete /tmp/a, which stops for approval; it returns the
// turn's context (ending after d), the turn, the workers' configuration and the file the calls
// that ran are written to.
func startApprovalTurn(t *testing.T, tc sdkclient.Client, name string, d time.Duration) (context.Context, *temporal.Turn, temporal.Config, string) {
	t.Helper()
	runs := filepath.Join(t.TempDir(), "runs")
	cfg := approvalConfig(name + "-" + rand.Text()[:8])
	startWorker(t, tc, approvalClient(runs), cfg)
	ctx, turn := startTurn(t, tc, cfg, d, temporal.Request{Messages: []chat.Message{chat.User("delete /tmp/a")}})
	return ctx, turn, cfg, runs
}

func TestApprovalFromAnotherProcess(t *testing.T) {
	tc := dial(t)
	ctx, turn, cfg, runs := startApprovalTurn(t, tc, "approval", 2*time.Minute)
	st := waitPending(t, ctx, turn)
	if st.ID != turn.ID() || st.Status != client.TurnApproval || len(st.Pending()) != 1 || st.Pending()[0].Call.ID != "d1" {
		t.Fatalf("pending = %+v", st)
	}
	if err := turn.Decide(ctx, st.Seq, client.ApproveWith("d1", `{"path":3}`)); !errors.Is(err, client.ErrInvalidDecision) {
		t.Fatalf("a bad edit: %v", err)
	}
	if again, err := turn.Pending(ctx); err != nil || again == nil || again.Seq != st.Seq {
		t.Fatalf("after a refused decision: %+v, %v", again, err)
	}
	if len(lines(t, runs)) != 0 {
		t.Fatal("the call ran before its approval")
	}

	d := startChild(t, "decide", false, envQueue+"="+cfg.TaskQueue, envTurn+"="+turn.ID(), envSeq+"="+strconv.FormatInt(st.Seq, 10), envCall+"=d1")
	if err := d.cmd.Wait(); err != nil {
		t.Fatalf("the deciding process: %v\n%s", err, d.out.String())
	}
	resp, err := turn.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "Done: deleted /tmp/a" || !slices.Equal(lines(t, runs), []string{"delete_/tmp/a"}) {
		t.Fatalf("response %q, runs %v", resp.Text(), lines(t, runs))
	}
	// Another decision for the same stop is refused; the same one again is answered as before.
	if err := turn.Decide(ctx, st.Seq, client.Reject("d1", "no")); !errors.Is(err, client.ErrAlreadyResumed) {
		t.Fatalf("a second decision: %v", err)
	}
	if err := turn.Decide(ctx, st.Seq, client.Approve("d1")); err != nil {
		t.Fatalf("the same decision again: %v", err)
	}
	if len(lines(t, runs)) != 1 {
		t.Fatal("the call ran twice")
	}
	checkReplay(t, tc, approvalClient(runs), cfg, turn.ID(), "approval")
}

func TestLimitErrorReachesTheCaller(t *testing.T) {
	for _, clientLoop := range []bool{false, true} {
		t.Run(fmt.Sprintf("clientLoop=%v", clientLoop), func(t *testing.T) { limitErrorReachesTheCaller(t, clientLoop) })
	}
}

func limitErrorReachesTheCaller(t *testing.T, clientLoop bool) {
	tc := dial(t)
	queue := "limit-" + rand.Text()[:8]
	runs := filepath.Join(t.TempDir(), "runs")
	cfg := temporal.Config{TaskQueue: queue, WorkflowLoop: !clientLoop}
	mgr := toolcall.New(toolcall.Config{Limits: toolcall.Limits{Total: 1}})
	cc := crashClient(runs, false)
	startWorker(t, tc, newClient(cc.Model(), client.WithTools(tool.Must(tool.Func("charge", "Charges", func(ctx context.Context, in pathIn) (string, error) {
		return "", appendLine(runs, "charge")
	})), tool.Must(tool.Func("lookup", "Looks up", func(ctx context.Context, in pathIn) (string, error) { return "", appendLine(runs, "lookup") }))),
		client.WithManager(mgr)), cfg)
	ctx, turn := startTurn(t, tc, cfg, time.Minute, temporal.Request{Messages: []chat.Message{chat.User("go")}})
	_, err := turn.Result(ctx)
	var le *toolcall.LimitError
	if !errors.Is(err, toolcall.ErrLimitExceeded) || !errors.As(err, &le) || le.Limit != 1 || le.CallID != "c2" {
		t.Fatalf("err = %v (%+v)", err, le)
	}
	if len(lines(t, runs)) != 0 {
		t.Fatalf("calls ran: %v", lines(t, runs))
	}
}

// fetchHistory returns the history of a turn's latest run.
func fetchHistory(t *testing.T, tc sdkclient.Client, id string) *historypb.History {
	t.Helper()
	it := tc.GetWorkflowHistory(t.Context(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, ev)
	}
	return h
}

// checkReplay replays the turn's history with c and a new workflow of cfg's agent, as a worker
// of a new build would, and with -record writes it to testdata/client-loop-history-NAME.json for
// the replay test when that test keeps NAME (replayed).
func checkReplay(t *testing.T, tc sdkclient.Client, c *client.Client, cfg temporal.Config, id, name string) {
	t.Helper()
	h := fetchHistory(t, tc, id)
	r, err := temporal.NewClientReplayer(c, atLoad(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.ReplayWorkflowHistory(nil, h); err != nil {
		t.Fatalf("replaying the turn's history: %v", err)
	}
	if _, kept := replayed[name]; *record && kept {
		b, err := protojson.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", "client-loop-history-"+name+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCancelAWaitingTurn(t *testing.T) {
	ctx, turn, _, runs := startApprovalTurn(t, dial(t), "cancel", time.Minute)
	st := waitPending(t, ctx, turn)
	if err := turn.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := turn.Result(ctx); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("result of a cancelled turn: %v", err)
	}
	if err := turn.Decide(ctx, st.Seq, client.Approve("d1")); !errors.Is(err, client.ErrAlreadyResumed) {
		t.Fatalf("deciding a cancelled turn: %v", err)
	}
	if st, err := turn.WaitPending(ctx); st != nil || err != nil {
		t.Fatalf("a cancelled turn waits: %+v, %v", st, err)
	}
	if len(lines(t, runs)) != 0 {
		t.Fatal("the call ran")
	}
}

func TestConstructorsAndStartRefuse(t *testing.T) {
	tc := dial(t)
	c := approvalClient(filepath.Join(t.TempDir(), "runs"))
	if _, err := temporal.NewClient(tc, temporal.Config{}); err == nil {
		t.Error("a client without a task queue")
	}
	if _, err := temporal.NewClient(nil, temporal.Config{TaskQueue: "q"}); err == nil {
		t.Error("a client without Temporal")
	}
	if _, err := temporal.NewWorker(tc, nil, temporal.Config{TaskQueue: "q"}); err == nil {
		t.Error("a worker without a wield client")
	}
	if _, err := temporal.NewToolWorker(tc, c, temporal.Config{TaskQueue: "q"}); err == nil {
		t.Error("a tool worker on the turns' queue")
	}
	if _, err := temporal.NewReplayer(temporal.Config{}); err == nil {
		t.Error("a replayer without a task queue")
	}
	tcl, err := temporal.NewClient(tc, temporal.Config{TaskQueue: "refused-" + rand.Text()[:8]})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if _, err := tcl.Start(ctx, temporal.Request{}); err == nil {
		t.Error("a turn without messages")
	}
	if _, err := tcl.Start(ctx, temporal.Request{Messages: []chat.Message{chat.User("x")}, Options: &chat.Options{Tools: []tool.Tool{tool.Must(tool.Func("x", "x", func(context.Context, pathIn) (string, error) { return "", nil }))}}}); err == nil {
		t.Error("a turn with tools in its options")
	}
	if _, err := tcl.Start(ctx, temporal.Request{Messages: []chat.Message{chat.User("x")}, ToolContext: tool.Context{"f": func() {}}}); err == nil {
		t.Error("a turn whose tool context does not encode")
	}
}

// A tool whose result is over Temporal's payload limit does not leave its call lost after it
// ran (waiting for a decision the application cannot make well): the model reads that the
// result was too large, and the turn goes on.
func TestHugeToolResultReachesTheModelAsAnError(t *testing.T) {
	overTheCap(t, "huge", func() (string, error) { return strings.Repeat("x", 3<<20), nil })
}

// overTheCap runs a turn whose model calls a tool once, the tool doing what call does, and checks
// that the tool ran once and the model read an error result saying the cap (the default
// MaxToolResultBytes) was passed, so the turn went on to its answer.
func overTheCap(t *testing.T, name string, call func() (string, error)) {
	t.Helper()
	tc := dial(t)
	queue := name + "-" + rand.Text()[:8]
	cfg := temporal.Config{TaskQueue: queue}
	runs := 0
	tl := tool.Must(tool.Func("dump", "Dumps a file", func(ctx context.Context, in pathIn) (string, error) {
		runs++
		return call()
	}))
	m := script(chat.ToolCall{ID: "c1", Name: "dump", Arguments: `{"path":"/var/log"}`})
	startWorker(t, tc, newClient(m, client.WithTools(tl)), cfg)
	ctx, turn := startTurn(t, tc, cfg, time.Minute, temporal.Request{Messages: []chat.Message{chat.User("go")}})
	resp, err := turn.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The model reads why: over the turn's result cap, or, for an interrupt, over toolcall's own
	// cap on what an interrupt carries (MaxInterruptBytes), which comes first.
	tooLarge := strings.Contains(resp.Text(), "over the 524288 bytes") || strings.Contains(resp.Text(), fmt.Sprintf("over the cap of %d", toolcall.MaxInterruptBytes))
	if resp.Outcome != client.OutcomeAnswer || !tooLarge || runs != 1 {
		t.Fatalf("outcome %v, runs %d, answer %.200q", resp.Outcome, runs, resp.Text())
	}
}
