package attack

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
)

// waitRunning polls the store until conversation conv holds a running round, and returns it.
func waitRunning(t *testing.T, store client.TurnStore, conv string) *client.TurnState {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		st, err := store.LoadTurn(context.Background(), conv)
		if err != nil {
			t.Fatal(err)
		}
		if st != nil && st.Status == client.TurnRunning {
			return st
		}
	}
	t.Fatal("no running round was stored")
	return nil
}

// approveAll resumes st approving every call Pending lists, as the docs tell an application
// that finds a stored turn.
func approveAll(ctx context.Context, c *client.Client, st *client.TurnState) error {
	var ds []client.Decision
	for _, p := range st.Pending() {
		ds = append(ds, p.Approve())
	}
	return c.Resume(st, ds...).Call(ctx).Err()
}

// TestAttackRunningRoundIsNotTakenWhileOwned: a second process that finds a round stored while
// its calls run, and approves every pending call, does not run the tool again while the first
// is inside it: the round is leased, Pending lists nothing, and a resume (even with a decision
// made up for the running call) fails with ErrRoundRunning. The review's reproduction ran the
// tool twice.
func TestAttackRunningRoundIsNotTakenWhileOwned(t *testing.T) {
	var r runs
	inside, release := make(chan struct{}), make(chan struct{})
	pay := chattest.NewTool("pay", func(_ context.Context, args string) (string, error) {
		close(inside)
		<-release
		r.add(args)
		return "paid", nil
	})
	store := memory.Turns(memory.NewInMemory())
	m := chattest.New(chattest.Calls(chattest.Call("pay", `{"to":"alice"}`)), chattest.Text("Paid."))
	owner := newClient(t, m, client.WithTools(pay), client.WithTurnStore(store), client.WithRoundLease(time.Second))
	ctx := context.Background()
	done := make(chan error, 1)
	go func() { done <- owner.Prompt("pay alice").Param(client.ParamConversationID, "c").Call(ctx).Err() }()
	<-inside

	other := newClient(t, chattest.New(chattest.Text("again")), client.WithTools(chattest.NewTool("pay", func(_ context.Context, args string) (string, error) {
		r.add(args)
		return "paid", nil
	})), client.WithTurnStore(store))
	// Across several renewals of the lease, every attempt is refused.
	for end := time.Now().Add(2500 * time.Millisecond); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		st := waitRunning(t, store, "c")
		if err := approveAll(ctx, other, st); !errors.Is(err, client.ErrRoundRunning) {
			t.Fatalf("resume with the pending calls approved: %v, want ErrRoundRunning; pay ran %d times", err, len(r.list()))
		}
		if !st.Leased() || len(st.Pending()) != 0 {
			t.Fatalf("a round whose owner runs it: leased %v, pending %v", st.Leased(), st.Pending())
		}
		err := other.Resume(st, client.Approve(st.Round.Calls[0].Call.ID)).Call(ctx).Err()
		var rr *client.RoundRunningError
		if !errors.As(err, &rr) || rr.TurnID != st.ID || rr.Lease.Owner == "" {
			t.Fatalf("resume with the running call approved: %v, want a RoundRunningError", err)
		}
		// A copy whose lease is cut out is refused too: the stored round decides.
		forged := viaJSON(t, st, func(m map[string]any) { delete(m, "lease") })
		if err := approveAll(ctx, other, forged); !errors.Is(err, client.ErrRoundRunning) {
			t.Fatalf("resume of a copy without its lease: %v, want ErrRoundRunning", err)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("the owner's turn: %v", err)
	}
	if got := r.list(); len(got) != 1 {
		t.Fatalf("pay ran %d times: %v", len(got), got)
	}
}

// frozenStore passes everything to a store until frozen, and then blocks every save until
// thawed or its context ends, as a process stopped dead would never write again.
type frozenStore struct {
	client.TurnStore
	mu     sync.Mutex
	frozen chan struct{} // nil while not frozen
}

func (s *frozenStore) freeze() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frozen = make(chan struct{})
}

func (s *frozenStore) thaw() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.frozen)
	s.frozen = nil
}

func (s *frozenStore) SaveTurn(ctx context.Context, conv string, st *client.TurnState) error {
	s.mu.Lock()
	f := s.frozen
	s.mu.Unlock()
	if f != nil {
		select {
		case <-f:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return s.TurnStore.SaveTurn(ctx, conv, st)
}

// TestAttackDeadOwnersRoundWaitsForItsLease: when the owner of a running round stops renewing
// its lease (it died, or hangs), the round is refused until the lease has run out and taken up
// after: the taker's approval runs the call once, and the owner, which cannot renew, cancels
// its call and does not record the round.
func TestAttackDeadOwnersRoundWaitsForItsLease(t *testing.T) {
	var r runs
	inside := make(chan struct{})
	ownerPay := chattest.NewTool("pay", func(ctx context.Context, args string) (string, error) {
		close(inside)
		<-ctx.Done() // the owner's call ends only when its round is cancelled
		return "", context.Cause(ctx)
	})
	mem := memory.Turns(memory.NewInMemory())
	frozen := &frozenStore{TurnStore: mem}
	const lease = 150 * time.Millisecond
	owner := newClient(t, chattest.New(chattest.Calls(chattest.Call("pay", `{"to":"alice"}`)), chattest.Text("Paid.")),
		client.WithTools(ownerPay), client.WithTurnStore(frozen), client.WithRoundLease(lease))
	ctx := context.Background()
	done := make(chan error, 1)
	go func() { done <- owner.Prompt("pay alice").Param(client.ParamConversationID, "c").Call(ctx).Err() }()
	<-inside
	frozen.freeze()
	defer frozen.thaw()
	st := waitRunning(t, mem, "c")
	until := st.Lease.Until

	taker := newClient(t, chattest.New(chattest.Text("Paid late.")), client.WithTools(chattest.NewTool("pay", func(_ context.Context, args string) (string, error) {
		r.add(args)
		return "paid", nil
	})), client.WithTurnStore(mem), client.WithRoundLease(lease))
	refused := 0
	for {
		st, err := mem.LoadTurn(ctx, "c")
		if err != nil || st == nil {
			t.Fatalf("load: %+v, %v", st, err)
		}
		before := time.Now()
		listed := len(st.Pending())
		err = approveAll(ctx, taker, st)
		if err == nil {
			if !before.After(until) && st.Lease.Until.Equal(until) {
				t.Fatalf("the round was taken at %v, before its lease ran out at %v", before, until)
			}
			break
		}
		// The lease may run out between Pending (which listed nothing while it was live) and
		// the resume (which then finds the calls undecided): read the state again.
		lapsed := errors.Is(err, client.ErrInvalidDecision) && listed == 0
		if !errors.Is(err, client.ErrRoundRunning) && !lapsed {
			t.Fatalf("resume: %v", err)
		}
		if time.Now().After(until.Add(10 * time.Second)) {
			t.Fatalf("still refused long after the lease ran out: %v", err)
		}
		refused++
		time.Sleep(10 * time.Millisecond)
	}
	if refused == 0 {
		t.Fatal("the live lease refused nothing")
	}
	if err := <-done; !errors.Is(err, client.ErrTurnConflict) {
		t.Fatalf("the owner's turn: %v, want ErrTurnConflict (its lease was lost)", err)
	}
	if got := r.list(); len(got) != 1 {
		t.Fatalf("pay ran %d times: %v", len(got), got)
	}
	if st, err := mem.LoadTurn(ctx, "c"); err != nil || st != nil {
		t.Fatalf("the finished turn is still stored: %+v, %v", st, err)
	}
}
