package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
)

// The race test: WIELD_TURN_WORKERS processes each own some of WIELD_TURN_ROUNDS rounds (one
// conversation each) and, at the same time, try to take up every round whose state they find
// running, approving every pending call as the docs say, while the owner's call runs for longer
// than its lease. Some rounds belong to a process killed inside its call, before the call's
// effect: those are taken up once their lease runs out. Every call must have its effect once.

const (
	// Generous for a loaded machine: a lease lost to a slow store is a lease, not a bug.
	raceLease    = 6 * time.Second
	raceCallTime = 7 * time.Second // longer than the lease: it is renewed
)

// crashRound reports whether round r's owner is killed inside its call.
func crashRound(r int) bool { return r%5 == 4 }

// raceClient returns the client of one turn in the race test: the pay tool waits raceCallTime
// (unless hold is set: it prints "inside" and waits to be killed), then appends its effect to
// the runs file; a call cancelled before (its lease lost) has no effect.
func raceClient(s *Store, m *chattest.Model, hold bool) (*client.Client, error) {
	runs := os.Getenv("WIELD_TURN_RUNS")
	pay, err := tool.Func("pay", "Pays a round", func(ctx context.Context, in struct {
		Round int `json:"round"`
	}) (string, error) {
		if hold {
			fmt.Println("inside")
			select {}
		}
		select {
		case <-ctx.Done():
			return "", context.Cause(ctx)
		case <-time.After(raceCallTime):
		}
		f, err := os.OpenFile(runs, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if _, err := fmt.Fprintf(f, "pay %d %d\n", in.Round, os.Getpid()); err != nil {
			return "", err
		}
		return "paid", nil
	})
	if err != nil {
		return nil, err
	}
	return client.New(m, client.WithTools(pay),
		client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(s, 50), memory.AdvisorConfig{})),
		client.WithTurnStore(memory.Turns(s)), client.WithRoundLease(raceLease))
}

func raceConv(r int) string { return "round-" + strconv.Itoa(r) }

// raceOwn runs round r's turn from its start.
func raceOwn(ctx context.Context, s *Store, r int, hold bool) error {
	m := chattest.New(chattest.Calls(chattest.Call("pay", fmt.Sprintf(`{"round":%d}`, r))), chattest.Text("done"))
	c, err := raceClient(s, m, hold)
	if err != nil {
		return err
	}
	return c.Prompt(fmt.Sprintf("pay round %d", r)).Param(client.ParamConversationID, raceConv(r)).Call(ctx).Err()
}

// raceFinished reports whether round r's turn has ended: its answer is stored.
func raceFinished(ctx context.Context, s *Store, r int) (bool, error) {
	_, msgs, err := s.Last(ctx, raceConv(r), 1)
	if err != nil {
		return false, err
	}
	return len(msgs) == 1 && msgs[0].Role == "assistant" && msgs[0].Content == "done", nil
}

// raceTake tries once to take up round r's running state, approving every pending call; it
// reports whether this process took it, and counts the attempts refused for a live lease.
func raceTake(ctx context.Context, s *Store, r int, refused *atomic.Int64) (bool, error) {
	st, err := memory.Turns(s).LoadTurn(ctx, raceConv(r))
	if err != nil || st == nil || st.Status != client.TurnRunning {
		return false, err
	}
	c, err := raceClient(s, chattest.New(chattest.Text("done")), false)
	if err != nil {
		return false, err
	}
	var ds []client.Decision
	for _, p := range st.Pending() {
		ds = append(ds, p.Approve())
	}
	err = c.Resume(st, ds...).Call(ctx).Err()
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, client.ErrRoundRunning):
		refused.Add(1)
	case errors.Is(err, client.ErrInvalidDecision) && len(ds) == 0:
		// Loaded while leased (nothing pending), resumed once the lease ran out: the calls
		// need decisions now, which the next load lists.
	case errors.Is(err, client.ErrAlreadyResumed), errors.Is(err, client.ErrTurnConflict):
		// Another process took it first, or the owner moved on since the load.
	default:
		return false, fmt.Errorf("round %d: resume: %w", r, err)
	}
	return false, nil
}

// raceChild is a child of the race test:
//   - turn-race-hold: owns round $WIELD_TURN_ROUND, prints "inside" in its call and waits to be
//     killed;
//   - turn-race: worker $WIELD_TURN_WORKER of $WIELD_TURN_WORKERS: owns the rounds r with
//     r % workers == worker that no killed process owns, and takes up any round it can; prints
//     "refused N took R1,R2,..." at the end.
func raceChild(ctx context.Context, s *Store, mode string) error {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	if mode == "turn-race-hold" {
		r, _ := strconv.Atoi(os.Getenv("WIELD_TURN_ROUND"))
		return raceOwn(ctx, s, r, true)
	}
	worker, _ := strconv.Atoi(os.Getenv("WIELD_TURN_WORKER"))
	workers, _ := strconv.Atoi(os.Getenv("WIELD_TURN_WORKERS"))
	rounds, _ := strconv.Atoi(os.Getenv("WIELD_TURN_ROUNDS"))
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		errs    []error
		took    []int
		refused atomic.Int64
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
	}
	for r := range rounds {
		if r%workers == worker && !crashRound(r) {
			wg.Go(func() {
				switch err := raceOwn(ctx, s, r, false); {
				case errors.Is(err, client.ErrTurnConflict):
					// Its lease ran out unrenewed (a store starved at high load) and another
					// process took the round: the owner's call was cancelled, which the effect
					// count below checks.
					fmt.Fprintf(os.Stderr, "round %d: the owner lost its lease: %v\n", r, err)
				case err != nil:
					fail(fmt.Errorf("round %d: own turn: %w", r, err))
				}
			})
		}
	}
	// One taker goes round the unfinished rounds until all have ended.
	ended := make([]bool, rounds)
	for left := rounds; left > 0; {
		for r := range rounds {
			if ended[r] {
				continue
			}
			done, err := raceFinished(ctx, s, r)
			if err == nil && !done {
				var t bool
				if t, err = raceTake(ctx, s, r, &refused); t {
					took = append(took, r)
				}
			}
			if err != nil {
				fail(err)
				done = true
			}
			if done {
				ended[r] = true
				left--
			}
		}
		select {
		case <-ctx.Done():
			fail(ctx.Err())
			left = 0
		case <-time.After(20 * time.Millisecond):
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	slices.Sort(took)
	ids := make([]string, len(took))
	for i, r := range took {
		ids[i] = strconv.Itoa(r)
	}
	fmt.Printf("refused %d took %s\n", refused.Load(), strings.Join(ids, ","))
	return nil
}

// TestRoundLeaseAcrossProcesses: 8 processes, 20 rounds; every process tries to take up every
// round it finds running, approving all its pending calls, while the round's owner runs the
// call past its lease (renewed). Every call has its effect exactly once; the takes are refused
// while owners live, and the rounds of owners killed inside their call are taken up.
func TestRoundLeaseAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 12 processes")
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		const workers, rounds = 8, 20
		dsn, dir := b.dsn(t), t.TempDir()
		open(t, dsn).Close() // migrated once, before the children race to
		env := append(turnEnv(dsn, dir), "WIELD_TURN_WORKERS="+strconv.Itoa(workers), "WIELD_TURN_ROUNDS="+strconv.Itoa(rounds))
		// The owners killed in their call go first, so that their rounds are found running.
		for r := range rounds {
			if crashRound(r) {
				cmd, out := startProcess(t, append(env, "WIELD_SQLSTORE_CHILD=turn-race-hold", "WIELD_TURN_ROUND="+strconv.Itoa(r)))
				killAt(t, cmd, out, "inside", fmt.Sprintf("round %d's call", r))
			}
		}
		var cmds []*exec.Cmd
		var outs []*strings.Builder
		for w := range workers {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(env, "WIELD_SQLSTORE_CHILD=turn-race", "WIELD_TURN_WORKER="+strconv.Itoa(w))
			cmd.Stderr = os.Stderr
			out := &strings.Builder{}
			cmd.Stdout = out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, cmd), append(outs, out)
		}
		refused, taken := 0, map[int]int{}
		for w, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("worker %d: %v", w, err)
			}
			var n int
			var took string
			line := strings.TrimSpace(outs[w].String())
			if _, err := fmt.Sscanf(line+" -", "refused %d took %s", &n, &took); err != nil {
				t.Fatalf("worker %d printed %q: %v", w, line, err)
			}
			refused += n
			for _, f := range strings.Split(strings.TrimSuffix(took, "-"), ",") {
				if r, err := strconv.Atoi(f); err == nil {
					taken[r]++
				}
			}
		}
		counts := map[int]int{}
		for _, line := range readRuns(t, dir) {
			var r, pid int
			if _, err := fmt.Sscanf(line, "pay %d %d", &r, &pid); err != nil {
				t.Fatalf("runs line %q: %v", line, err)
			}
			counts[r]++
		}
		for r := range rounds {
			if counts[r] != 1 {
				t.Errorf("round %d: the call had its effect %d times", r, counts[r])
			}
			// A killed owner's round is taken up once; a live owner's only if it lost its lease
			// (at high load, a starved store), and then its own call was cancelled.
			if crashRound(r) && taken[r] != 1 || taken[r] > 1 {
				t.Errorf("round %d taken up %d times", r, taken[r])
			}
		}
		if refused == 0 {
			t.Error("no take was refused: the rounds were never found running")
		}
		t.Logf("%d takes refused for a live lease; %d rounds of killed owners taken up", refused, len(taken))
		s := open(t, dsn)
		for r := range rounds {
			if st, err := memory.Turns(s).LoadTurn(t.Context(), raceConv(r)); err != nil || st != nil {
				t.Errorf("round %d: the finished turn is still stored: %+v, %v", r, st, err)
			}
		}
	})
}

// TestRunningRowWithoutLease: a running round stored by a version before leases (no lease in
// its JSON) reads as a round whose process ended: its call is listed, and approving it runs the
// tool once, at once.
func TestRunningRowWithoutLease(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		s := open(t, b.dsn(t))
		call := chat.ToolCall{ID: "call_1", Name: "pay", Arguments: `{"round":7}`}
		msg := chat.Assistant("")
		msg.ToolCalls = []chat.ToolCall{call}
		old := fmt.Sprintf(`{"version":1,"id":"turn_old","seq":2,"conversationId":%q,"status":"running","iteration":0,`+
			`"messages":[{"role":"user","content":"pay round 7"}],"round":{"message":%s,"calls":[{"call":%s,"status":"running"}]}}`,
			raceConv(7), testenv.JSON(t, msg), testenv.JSON(t, call))
		// Steps are saved in order: a first one, then the running round.
		if err := s.SaveTurn(t.Context(), raceConv(7), memory.TurnRecord{ID: "turn_old", Seq: 1, State: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveTurn(t.Context(), raceConv(7), memory.TurnRecord{ID: "turn_old", Seq: 2, State: []byte(old)}); err != nil {
			t.Fatal(err)
		}
		st, err := memory.Turns(s).LoadTurn(t.Context(), raceConv(7))
		if err != nil || st == nil || st.Lease != nil || st.Leased() || len(st.Pending()) != 1 {
			t.Fatalf("loaded %+v, %v", st, err)
		}
		dir := t.TempDir()
		t.Setenv("WIELD_TURN_RUNS", dir+"/runs")
		c, err := raceClient(s, chattest.New(chattest.Text("done")), false)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Resume(st, st.Pending()[0].Approve()).Call(t.Context()).Err(); err != nil {
			t.Fatalf("resume: %v", err)
		}
		if runs := readRuns(t, dir); len(runs) != 1 || !strings.HasPrefix(runs[0], "pay 7 ") {
			t.Fatalf("runs = %q", runs)
		}
	})
}
