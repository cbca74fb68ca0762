package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/engine"
	"github.com/wield-ai/wield/toolcall"
)

// setUp prepares the turn's stopping and resuming: the store and conversation, and, for a
// resumed turn, the state it continues (r gets the state's messages).
func (t *Turn) setUp(ctx context.Context, req, r *Request) error {
	var key []byte
	if req.rt != nil {
		key = req.rt.turnKey
	}
	in := req.turnIn
	if in == nil || in.store == nil && in.resume == nil {
		if key != nil {
			t.dur = &durable{key: key}
		}
		return nil
	}
	d := &durable{store: in.store, key: key, lease: DefaultRoundLease}
	if req.rt != nil && req.rt.lease > 0 {
		d.lease = req.rt.lease
	}
	t.dur = d
	if d.store != nil {
		id, ok := req.StringParam(ParamConversationID)
		if !ok {
			return ErrNoConversation
		}
		d.conv = id
	}
	rs := in.resume
	if rs == nil {
		return nil
	}
	st := rs.state
	if key != nil && !st.verify(key) {
		return fmt.Errorf("%w: turn %s, step %d", ErrTurnTampered, st.ID, st.Seq)
	}
	if err := st.refuseLeased(time.Now()); err != nil {
		return err
	}
	if id, ok := req.StringParam(ParamConversationID); ok && st.ConversationID != "" && id != st.ConversationID {
		return fmt.Errorf("client: resume: the turn state belongs to conversation %q, the request names %q", st.ConversationID, id)
	}
	if d.store != nil && st.Status == TurnRunning {
		// The caller's copy may be older than the stored round, whose owner renews its lease:
		// the stored one says whether the round runs, before the decisions are checked.
		stored, err := d.store.LoadTurn(ctx, d.conv)
		if err != nil {
			return fmt.Errorf("client: loading the turn's stored state: %w", err)
		}
		if stored != nil && stored.ID == st.ID {
			if err := stored.refuseLeased(time.Now()); err != nil {
				return err
			}
		}
	}
	d.resumed = st
	d.id, d.seq = st.ID, st.Seq
	t.resumable = st.Status == TurnReady
	t.Iteration = st.Iteration
	t.exec.SetCounts(st.CallCounts, st.TotalCalls)
	t.carried = maps.Clone(st.Carried)
	r.Prompt.Messages = slices.Clip(st.Messages)
	return nil
}

// durable returns what the turn keeps to stop and resume, made on first use.
func (t *Turn) durable() *durable {
	if t.dur == nil {
		t.dur = &durable{}
	}
	return t.dur
}

// claiming reports whether the turn resumed a state it has not claimed yet.
func (t *Turn) claiming() bool {
	return t.dur != nil && t.dur.resumed != nil && !t.dur.claimed
}

// state returns the turn's state in status, at the next Seq, with r's messages.
func (t *Turn) state(r *Request, status TurnStatus) *TurnState {
	d := t.durable()
	if d.id == "" {
		d.id = newTurnID()
	}
	conv, _ := r.StringParam(ParamConversationID)
	counts, total := t.exec.Counts()
	return &TurnState{
		Version:        TurnStateVersion,
		ID:             d.id,
		Seq:            d.seq + 1,
		ConversationID: conv,
		Status:         status,
		Iteration:      t.Iteration,
		Messages:       slices.Clip(r.Prompt.Messages),
		CallCounts:     counts,
		TotalCalls:     total,
		Carried:        maps.Clone(t.carried),
		Tree:           t.tree.account(),
	}
}

// readyState is the state of a turn whose next step is a model call with r.
func (t *Turn) readyState(r *Request) *TurnState { return t.state(r, TurnReady) }

// roundState is the state of a turn in the middle of the round resp asked for, whose calls stand
// as outcomes say.
func (t *Turn) roundState(r *Request, status TurnStatus, resp *chat.Response, outcomes []toolcall.CallOutcome) *TurnState {
	st := t.state(r, status)
	st.Round = NewRound(resp, outcomes, status == TurnRunning)
	if status != TurnRunning {
		processTurns.handOut(st.ID, st.Seq) // the stopped state the caller gets
	}
	return st
}

// NewRound returns the round of [TurnState] for the tool round resp asked for, whose calls stand
// as outcomes say ([toolcall.Result.Calls], in the model's order): the assistant message with
// the calls as they stand (edited arguments included), each call's result, interrupt, or, for a
// sub-agent ([AgentTool]) that stopped, its nested state. Calls that have not finished are
// [toolcall.CallRunning] when running is set (the round was saved while they ran) and
// [toolcall.CallWaiting] otherwise. The tool loop builds its states with it; a program that runs a turn's steps
// elsewhere uses it to describe a stopped round the same way.
func NewRound(resp *chat.Response, outcomes []toolcall.CallOutcome, running bool) *Round {
	msg := resp.Message()
	msg.ToolCalls = make([]chat.ToolCall, len(outcomes))
	round := &Round{ResponseID: resp.ID, Model: resp.Model, Calls: make([]PendingCall, len(outcomes))}
	for i, o := range outcomes {
		msg.ToolCalls[i] = o.Call
		pc := &round.Calls[i]
		pc.Call = o.Call
		pc.Status = o.Status
		switch o.Status {
		case toolcall.CallDone:
			res := o.Result
			pc.Result = &res
		case toolcall.CallApproval:
		case toolcall.CallInterrupted:
			pc.Interrupt = o.Interrupt
			var as *agentStop
			if errors.As(o.Err, &as) {
				pc.Child, pc.Interrupt = as.state, as.interrupt
			}
		default:
			pc.Status = toolcall.CallWaiting
			if running {
				pc.Status = toolcall.CallRunning
			}
		}
	}
	round.Message = msg
	return round
}

// save records st as the turn's newest state: in the store, if any, and as the claim of the
// state the turn resumed, if not yet claimed.
func (t *Turn) save(ctx context.Context, st *TurnState) error {
	d := t.durable()
	if d.key != nil {
		st.sign(d.key)
	}
	claiming := t.claiming()
	// Without a store the process remembers what it resumed; a durable engine resumes the same
	// state again on every replay of a turn and guarantees once itself.
	if claiming && !d.resumed.claim(d.store == nil && engine.From(ctx) == nil) {
		return fmt.Errorf("%w: turn %s, step %d", ErrAlreadyResumed, d.resumed.ID, d.resumed.Seq)
	}
	if claiming && d.store != nil {
		if err := d.sameAsStored(ctx); err != nil {
			d.resumed.unclaim() // nothing ran
			return err
		}
	}
	if d.store != nil {
		if err := d.store.SaveTurn(ctx, d.conv, st); err != nil {
			if claiming {
				d.resumed.unclaim() // nothing ran: the state can be resumed again
				if errors.Is(err, ErrTurnConflict) {
					return fmt.Errorf("%w: turn %s is no longer stored at step %d: %w", ErrAlreadyResumed, st.ID, st.Seq-1, err)
				}
			}
			return fmt.Errorf("client: saving the turn's state: %w", err)
		}
	}
	d.seq, d.savedTree = st.Seq, st.Tree
	d.claimed = true
	d.running = nil
	if st.Status == TurnRunning && st.Lease != nil {
		d.running = st
	}
	return nil
}

// sameAsStored checks, before a resumed turn claims its state, that the state is the one the
// store holds: a state handed through a channel the application does not control (a browser, a
// queue) could otherwise carry another history or round into the turn, and only the stored one
// was written by the loop.
func (d *durable) sameAsStored(ctx context.Context) error {
	stored, err := d.store.LoadTurn(ctx, d.conv)
	if err != nil {
		return fmt.Errorf("client: loading the turn's stored state: %w", err)
	}
	if stored != nil && stored.ID == d.resumed.ID {
		// The round is running in a live process, whichever step of it the caller holds.
		if err := stored.refuseLeased(time.Now()); err != nil {
			return err
		}
	}
	if stored == nil || stored.ID != d.resumed.ID || stored.Seq != d.resumed.Seq {
		return nil // not the stored step: the store's compare-and-swap refuses the claim
	}
	a, err1 := json.Marshal(stored)
	b, err2 := json.Marshal(d.resumed)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("client: comparing the turn state with the stored one: %w", err)
	}
	if !bytes.Equal(a, b) {
		return fmt.Errorf("%w: the state of turn %s at step %d differs from the stored one", ErrTurnConflict, d.resumed.ID, d.resumed.Seq)
	}
	return nil
}

// end removes the finished turn's state from the store.
func (t *Turn) end(ctx context.Context) error {
	d := t.dur
	if d == nil || d.store == nil || d.seq == 0 || d.id == "" {
		return nil
	}
	if err := d.store.EndTurn(ctx, d.conv, d.id, d.seq); err != nil {
		return fmt.Errorf("client: ending the turn's stored state: %w", err)
	}
	d.running = nil
	return nil
}

// failed returns err, as a *TurnError with the turn's ready state when its tool rounds so far
// are recorded and the turn can go on from its next model call.
func (t *Turn) failed(r *Request, err error) error {
	if !t.resumable {
		return err
	}
	st := t.readyState(r)
	if t.dur.store != nil {
		st.Seq, st.Tree = t.dur.seq, t.dur.savedTree // what the store holds
	}
	if t.dur.key != nil {
		st.sign(t.dur.key)
	}
	processTurns.handOut(st.ID, st.Seq)
	return &TurnError{Err: err, State: st, Messages: t.messages}
}

// plans checks the decisions of the resumed round against the tools of cur and returns the
// round's plans.
func (t *Turn) plans(ctx context.Context, cur *Request, decisions []Decision) ([]toolcall.Plan, error) {
	return plans(ctx, t.dur.resumed, decisions, cur.Prompt.Options.Tools)
}
