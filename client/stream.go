package client

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/toolcall"
)

// ErrStreamIncomplete is returned when a stream chain ends without its final Done event.
var ErrStreamIncomplete = errors.New("client: stream ended without a final response")

// Stream runs the tool loop for a stream. The caller receives the text of every model call as
// it arrives (tool-call fragments are consumed here), a started and a finished event for each
// tool call while the tools run between rounds, and the turn's response last.
func (a *ToolCallingAdvisor) Stream(ctx context.Context, req *Request, next StreamNext) iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		var final *Response
		var err error
		mgr, err := a.manager(req)
		if err != nil {
			yield(nil, err)
			return
		}
		obs := req.rt.telemetry()
		ctx, span := obs.startLoop(ctx, req)
		defer func() { span.end(final, err) }()

		h := &a.cfg.Hooks
		end := h.EndLoopStream
		if end == nil {
			end = h.EndLoop
		}
		var r *Request // the loop's request, once there is a loop
		returned := false
		defer func() { endLoop(ctx, end, r, final, err, returned) }()
		final, err = a.stream(ctx, req, next, mgr, obs, span, yield, &r)
		returned = true
	}
}

// stream is the loop of [ToolCallingAdvisor.Stream]; it yields the events and the error that
// ends the turn, returns the turn's response or the error, context.Canceled if the consumer
// stopped, and keeps *loopReq at the loop's current request.
func (a *ToolCallingAdvisor) stream(ctx context.Context, req *Request, next StreamNext, mgr *toolcall.Manager, obs *telemetry, span loopSpan,
	yield func(*Event, error) bool, loopReq **Request) (final *Response, err error) {
	h := &a.cfg.Hooks
	init, before, afterHook, nextHook, finalize := h.InitializeLoopStream, h.BeforeStream, h.AfterStream, h.NextInstructionsStream, h.FinalizeLoopStream
	if init == nil {
		init = h.InitializeLoop
	}
	if before == nil {
		before = h.BeforeCall
	}
	if afterHook == nil {
		afterHook = h.AfterCall
	}
	if nextHook == nil {
		nextHook = h.NextInstructions
	}
	if finalize == nil {
		finalize = h.FinalizeLoop
	}
	fail := func(err error) (*Response, error) {
		yield(nil, err)
		return nil, err
	}

	r, loop, err := a.start(ctx, req, span, init)
	*loopReq = r
	if err != nil {
		return fail(err)
	}
	for calls := 1; ; calls++ {
		base, cur, err := a.prepare(ctx, r, loop, before)
		if err != nil {
			return fail(err)
		}
		var resp *Response
		for ev, e := range next(ctx, cur) {
			if e != nil {
				return fail(e)
			}
			switch {
			case ev.Done != nil:
				resp = ev.Done
			case ev.Chunk != nil:
				c := textOnly(ev.Chunk)
				if c == nil {
					continue
				}
				if c != ev.Chunk {
					ev = &Event{Chunk: c}
				}
				if !yield(ev, nil) {
					return nil, context.Canceled
				}
			case ev.Tool != nil:
				if !yield(ev, nil) {
					return nil, context.Canceled
				}
			}
		}
		if resp == nil {
			return fail(ErrStreamIncomplete)
		}
		if resp, err = a.after(ctx, cur, resp, loop, afterHook); err != nil {
			return fail(err)
		}
		if loop.Final || !a.eligible(resp) {
			final = a.finish(resp, loop, calls)
		} else {
			obs.logRound(ctx, loop, resp.Chat)
			result, stopped, err := executeObserved(loop.execContext(ctx), mgr, &cur.Prompt, resp.Chat, yield)
			if stopped {
				return nil, context.Canceled
			}
			if err != nil {
				return fail(fmt.Errorf("client: tool loop: %w", err))
			}
			if result.ReturnDirect {
				final = direct(resp, result, loop, calls)
			} else {
				if r, err = a.next(ctx, r, base, resp, result, loop, nextHook); err != nil {
					return fail(err)
				}
				*loopReq = r
			}
		}
		if final != nil {
			if finalize != nil {
				if final, err = finalize(ctx, r, final); err != nil {
					return fail(fmt.Errorf("client: tool loop: finalize: %w", err))
				}
			}
			yield(&Event{Done: final}, nil)
			return final, nil
		}
	}
}

// textOnly returns the chunk without its tool-call fragments, or nil if nothing is left to
// show: tool calls are the loop's business, not the caller's text.
func textOnly(c *chat.Response) *chat.Response {
	hasCalls, hasContent := false, false
	for i := range c.Generations {
		m := &c.Generations[i].Message
		if len(m.ToolCalls) > 0 {
			hasCalls = true
		}
		if m.Content != "" || len(m.Reasoning) > 0 {
			hasContent = true
		}
	}
	if !hasCalls {
		if hasContent {
			return c
		}
		return nil
	}
	if !hasContent {
		return nil
	}
	out := *c
	out.Generations = make([]chat.Generation, 0, len(c.Generations))
	for _, g := range c.Generations {
		g.Message.ToolCalls = nil
		if g.Message.Content != "" || len(g.Message.Reasoning) > 0 {
			out.Generations = append(out.Generations, g)
		}
	}
	return &out
}

// eventObserver turns the manager's observer calls, made on the tools' goroutines, into events
// for the stream's goroutine.
type eventObserver struct {
	events chan *Event
	stop   chan struct{}
}

func (o *eventObserver) send(ev *Event) {
	select {
	case o.events <- ev:
	case <-o.stop:
	}
}

func (o *eventObserver) ToolStarted(_ context.Context, call chat.ToolCall) {
	o.send(&Event{Tool: &ToolEvent{Kind: ToolStarted, Call: call}})
}

func (o *eventObserver) ToolFinished(_ context.Context, call chat.ToolCall, result chat.ToolResult, elapsed time.Duration) {
	o.send(&Event{Tool: &ToolEvent{Kind: ToolFinished, Call: call, Result: result, Elapsed: elapsed}})
}

// executeObserved runs the tool calls and yields their events as they happen. If the consumer
// stops, the calls are cancelled and stopped is true.
func executeObserved(ctx context.Context, mgr *toolcall.Manager, p *chat.Prompt, resp *chat.Response,
	yield func(*Event, error) bool) (result *toolcall.Result, stopped bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	obs := &eventObserver{events: make(chan *Event), stop: make(chan struct{})}
	go func() {
		defer close(obs.events)
		result, err = mgr.Execute(toolcall.WithObserver(ctx, obs), p, resp)
	}()
	for ev := range obs.events {
		if !yield(ev, nil) {
			close(obs.stop)
			cancel()
			for range obs.events {
			}
			return nil, true, nil
		}
	}
	return result, false, err
}
