package client

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"time"
)

// DefaultRoundLease is how long a round's lease lasts unless [WithRoundLease] says otherwise.
const DefaultRoundLease = 30 * time.Second

// MinRoundLease is the shortest lease [WithRoundLease] accepts: a lease is renewed every third
// of it, with a store write each time.
const MinRoundLease = 30 * time.Millisecond

// Lease is the hold of a process on a running round ([TurnRunning]): the process that saved
// the round is running its calls, and renews the lease while they run. A round whose lease has
// not run out is not to be decided on: its calls are not waiting, they are running.
type Lease struct {
	// Owner names the process that holds the round (host, process id and a random part).
	Owner string `json:"owner"`
	// Until is when the lease runs out unless renewed, by the owner's clock.
	Until time.Time `json:"until"`
}

// ErrRoundRunning is matched by the error of a resume of a round whose calls are running in a
// live process: its lease ([TurnState.Lease]) has not run out. Nothing ran; the same state can
// be resumed once the round is over (a newer state is stored) or its lease has run out.
var ErrRoundRunning = errors.New("client: the round's calls are running in a live process")

// RoundRunningError is the error of a resume refused because the round is running elsewhere;
// it matches [ErrRoundRunning].
type RoundRunningError struct {
	// TurnID is the turn's id, Lease the hold that refused the resume.
	TurnID string
	Lease  Lease
}

func (e *RoundRunningError) Error() string {
	return fmt.Sprintf("%v: turn %s is held by %s until %s", ErrRoundRunning, e.TurnID, e.Lease.Owner,
		e.Lease.Until.UTC().Format(time.RFC3339Nano))
}

// Is makes the error match [ErrRoundRunning].
func (e *RoundRunningError) Is(target error) bool { return target == ErrRoundRunning }

// Leased reports whether the state is a running round whose lease has not run out: its calls
// are running in a live process, and [TurnState.Pending] does not list them. A running round
// without a lease (saved by an older version) or whose lease ran out belongs to a process that
// ended in the middle of it, and its unfinished calls each need a decision.
func (s *TurnState) Leased() bool { return s.leasedAt(time.Now()) }

func (s *TurnState) leasedAt(now time.Time) bool {
	return s != nil && s.Status == TurnRunning && s.Lease != nil && now.Before(s.Lease.Until)
}

// refuseLeased returns a [RoundRunningError] if s is leased at now.
func (s *TurnState) refuseLeased(now time.Time) error {
	if s.leasedAt(now) {
		return &RoundRunningError{TurnID: s.ID, Lease: *s.Lease}
	}
	return nil
}

// leaseOwner names this process in the leases it takes.
var leaseOwner = func() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), rand.Text()[:8])
}()

// renewed returns a copy of s at step seq whose lease runs until until.
func (s *TurnState) renewed(seq int64, until time.Time) *TurnState {
	return &TurnState{
		Version:        s.Version,
		ID:             s.ID,
		Seq:            seq,
		ConversationID: s.ConversationID,
		Status:         s.Status,
		Iteration:      s.Iteration,
		Messages:       s.Messages,
		Round:          s.Round,
		CallCounts:     s.CallCounts,
		TotalCalls:     s.TotalCalls,
		Carried:        s.Carried,
		Tree:           s.Tree,
		Lease:          &Lease{Owner: s.Lease.Owner, Until: until},
	}
}

// errLeaseLost is the cause with which a round's context is cancelled when its lease was taken
// over or could not be renewed before it ran out: another process may be running the calls.
var errLeaseLost = fmt.Errorf("%w: the round's lease was lost", ErrTurnConflict)

// renewal renews a running round's lease while its calls run.
type renewal struct {
	stop chan struct{}
	done chan struct{}
	last *TurnState // the state stored last; read once done is closed
	lost bool       // the lease was lost; read once done is closed
}

// renew starts renewing the lease of st, the running state just stored, every third of the
// lease, until stopped; if the lease is lost, lost is called.
func (d *durable) renew(ctx context.Context, st *TurnState, lost context.CancelCauseFunc) {
	rn := &renewal{stop: make(chan struct{}), done: make(chan struct{}), last: st}
	d.renewal = rn
	ctx = context.WithoutCancel(ctx) // a cancelled round stops renewing through stop, after its calls end
	go func() {
		defer close(rn.done)
		tick := time.NewTicker(d.lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-rn.stop:
				return
			case <-tick.C:
			}
			next := rn.last.renewed(rn.last.Seq+1, time.Now().Add(d.lease))
			if d.key != nil {
				next.sign(d.key)
			}
			// A slow store gets until the lease runs out, not one tick.
			sctx, cancel := context.WithDeadline(ctx, rn.last.Lease.Until)
			err := d.store.SaveTurn(sctx, d.conv, next)
			cancel()
			switch {
			case err == nil:
				rn.last = next
			case errors.Is(err, ErrTurnConflict) || !time.Now().Before(rn.last.Lease.Until):
				// Taken over, or unrenewed past its end: another process may take the round up.
				rn.lost = true
				lost(errLeaseLost)
				return
			}
		}
	}()
}

// stopRenewal stops renewing the round's lease and records the state stored last.
func (d *durable) stopRenewal() (lost bool) {
	rn := d.renewal
	if rn == nil {
		return false
	}
	d.renewal = nil
	close(rn.stop)
	<-rn.done
	d.seq, d.running = rn.last.Seq, rn.last
	return rn.lost
}

// release gives up the lease of the running round the turn stored last, when the turn ends
// without finishing the round (an error after its calls started): its calls can then be decided
// at once instead of when the lease runs out. A failure leaves the lease to run out.
func (d *durable) release(ctx context.Context) {
	st := d.running
	if st == nil || st.Lease == nil || d.store == nil {
		return
	}
	d.running = nil
	next := st.renewed(st.Seq+1, time.Time{})
	next.Lease = nil
	if d.key != nil {
		next.sign(d.key)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.lease/3)
	defer cancel()
	if d.store.SaveTurn(ctx, d.conv, next) == nil {
		d.seq = next.Seq
	}
}
