package compact

import (
	"context"
	"errors"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
)

// Order places the compactor's advisor just inside the tool loop, next to the model call it
// retries.
func (c *Compactor) Order() int { return client.OrderToolCalling + 1 }

// Advise implements [client.Advisor]: a context-length refusal is answered by compacting the
// request against a tighter budget once and retrying; a second refusal ends the turn with an
// [*OverflowError] saying by how much. The tighter budget holds for the rest of the turn.
func (c *Compactor) Advise(ctx context.Context, req *client.Request, next client.Next) (*client.Response, error) {
	resp, err := next(ctx, req)
	if err == nil || c.cfg.DisableRetry || !errors.Is(err, chat.ErrContextLength) {
		return resp, err
	}
	e := c.estimator(ctx, req, peekState(req.Turn))
	est := e.Prompt(&req.Prompt)
	requested, limit, ok := chat.ContextOverflow(err)
	target := est * 3 / 4
	if ok && requested > 0 && limit > 0 && limit < requested {
		// The provider counted differently: scale its limit into our estimate's units, with a margin.
		target = int(int64(est) * int64(limit) / int64(requested) * 9 / 10)
	}
	if b := c.Budget(&req.Prompt); b > 0 && b < target {
		target = b * 9 / 10
	}
	st := c.stateOf(req)
	st.budget = target
	out, ev, _, cerr := c.compact(ctx, req, st, target, e)
	if cerr != nil {
		return nil, cerr
	}
	if ev == nil { // nothing left to cut
		return nil, overflow(err, est, target)
	}
	ev.Retry = true
	if !out.Emit(&client.Event{Compaction: ev}) {
		return nil, context.Canceled
	}
	st.retried = true // this call's usage is of out, not of the request the loop sent
	resp, err2 := next(ctx, out)
	if err2 != nil && errors.Is(err2, chat.ErrContextLength) {
		return nil, overflow(err2, e.Prompt(&out.Prompt), target)
	}
	return resp, err2
}

// overflow is the typed end of a request too large even compacted: the provider's numbers when
// its refusal gives them, else the estimate against the target.
func overflow(err error, est, target int) *OverflowError {
	if r, l, ok := chat.ContextOverflow(err); ok {
		return &OverflowError{Requested: r, Limit: l, Err: err}
	}
	return &OverflowError{Requested: est, Limit: target, Err: err}
}
