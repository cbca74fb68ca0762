package agui

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/wield-ai/wield/client"
)

// sse writes events to one response; once its client has gone, writes are dropped.
type sse struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	started bool
	dead    bool
}

func newSSE(w http.ResponseWriter, timeout time.Duration) *sse {
	return &sse{w: w, rc: http.NewResponseController(w), timeout: timeout}
}

// kill stops the writes: the request has ended, and its writer must not be used.
func (s *sse) kill() {
	s.mu.Lock()
	s.dead = true
	s.mu.Unlock()
}

func (s *sse) send(ev map[string]any) {
	data, err := json.Marshal(ev)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return
	}
	if !s.started {
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		s.w.WriteHeader(http.StatusOK)
		s.started = true
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if _, err := s.w.Write(append(append([]byte("data: "), data...), '\n', '\n')); err != nil {
		s.dead = true
		return
	}
	if err := s.rc.Flush(); err != nil {
		s.dead = true
	}
}

// callID is the AG-UI id of a call: a sub-agent's calls are named after it, since its model's
// ids may be those of its caller's.
func callID(agent, id string) string {
	if agent == "" {
		return id
	}
	return agent + ":" + id
}

// translator turns a turn's events into AG-UI events.
type translator struct {
	out      *sse
	threadID string
	runID    string

	textID, textAgent     string          // the open text message
	reasonID, reasonAgent string          // the open reasoning message
	lastText              string          // the last text message, the parent of the calls that follow
	open                  map[string]bool // tool calls started whose arguments are still coming
	started               map[string]bool // tool calls whose TOOL_CALL_START was sent
}

func (t *translator) emit(kind string, fields map[string]any, agent string) {
	fields["type"] = kind
	fields["timestamp"] = time.Now().UnixMilli()
	if agent != "" {
		fields["metadata"] = map[string]any{"agent": agent}
	}
	t.out.send(fields)
}

func (t *translator) run(ctx context.Context, h *Handler, spec *client.Spec, prior *client.TurnState) {
	t.emit("RUN_STARTED", map[string]any{"threadId": t.threadID, "runId": t.runID}, "")
	var before []pendingView
	if prior != nil {
		before = pendingViews(prior)
	} else {
		before = []pendingView{}
	}
	t.emit("STATE_SNAPSHOT", map[string]any{"snapshot": map[string]any{"pending": before}}, "")
	var done *client.Response
	for ev, err := range spec.Advisors(modelCalls(t)).Stream(ctx).Events() {
		if err != nil {
			t.closeAll()
			t.fail(ctx, h, err)
			return
		}
		if ev.Done != nil {
			done = ev.Done
			continue
		}
		t.event(ev)
	}
	t.closeAll()
	if done == nil {
		t.fail(ctx, h, errors.New("the turn ended without a response"))
		return
	}
	h.keepPending(t.threadID, done.Pending)
	after := []pendingView{}
	if done.Pending != nil {
		after = pendingViews(done.Pending)
	}
	if len(before) > 0 || len(after) > 0 {
		t.emit("STATE_DELTA", map[string]any{"delta": []map[string]any{{"op": "replace", "path": "/pending", "value": after}}}, "")
	}
	fin := map[string]any{"threadId": t.threadID, "runId": t.runID}
	usage := map[string]any{"inputTokens": done.Usage.InputTokens, "outputTokens": done.Usage.OutputTokens,
		"totalTokens": done.Usage.InputTokens + done.Usage.OutputTokens}
	fin["usage"] = []any{usage}
	if done.Pending != nil {
		interrupts := interruptsOf(after)
		fin["outcome"] = map[string]any{"type": "interrupt", "interrupts": interrupts}
	} else {
		fin["outcome"] = map[string]any{"type": "success"}
		fin["result"] = done.Text()
	}
	t.emit("RUN_FINISHED", fin, "")
}

// fail ends the run with RUN_ERROR: a short message for the front end, the error in the log.
func (t *translator) fail(ctx context.Context, h *Handler, err error) {
	msg, code := "the run failed", "run_failed"
	switch {
	case errors.Is(err, client.ErrInvalidDecision):
		msg, code = "a decision does not fit its call: "+err.Error(), "invalid_decision"
	case errors.Is(err, client.ErrAlreadyResumed), errors.Is(err, client.ErrTurnConflict):
		msg, code = "the stopped turn was already answered", "conflict"
	case errors.Is(err, context.DeadlineExceeded):
		msg, code = "the run took too long", "timeout"
	}
	h.cfg.Logger.ErrorContext(ctx, "agui: run failed", "thread", t.threadID, "run", t.runID, "error", err)
	t.emit("RUN_ERROR", map[string]any{"message": msg, "code": code}, "")
}

func (t *translator) event(ev *client.Event) {
	agent := ev.Agent()
	switch {
	case ev.Chunk != nil:
		for _, g := range ev.Chunk.Generations {
			if g.Index != 0 {
				continue
			}
			for _, r := range g.Message.Reasoning {
				if r.Text != "" {
					t.reasoning(r.Text, agent)
				}
			}
			if text := g.Message.Content; text != "" {
				t.text(text, agent)
			}
		}
	case ev.Compaction != nil:
		t.compaction(ev.Compaction, agent)
	case ev.ToolDelta != nil:
		d := ev.ToolDelta
		id := callID(agent, d.ID)
		t.closeText()
		t.startCall(id, d.Name, agent)
		if d.Arguments != "" && t.open[id] {
			t.emit("TOOL_CALL_ARGS", map[string]any{"toolCallId": id, "delta": d.Arguments}, agent)
		}
	case ev.Tool != nil:
		te := ev.Tool
		t.closeText()
		id := callID(agent, te.Call.ID)
		if !t.started[id] { // arguments that did not stream: all at once
			t.startCall(id, te.Call.Name, agent)
			if te.Call.Arguments != "" {
				t.emit("TOOL_CALL_ARGS", map[string]any{"toolCallId": id, "delta": te.Call.Arguments}, agent)
			}
		}
		t.endCall(id, agent)
		if te.Kind == client.ToolFinished {
			res := map[string]any{"messageId": newID(), "toolCallId": id, "content": te.Result.Content, "role": "tool"}
			if agent != "" || te.Result.IsError {
				res["metadata"] = map[string]any{"agent": agent, "error": te.Result.IsError, "elapsedMs": te.Elapsed.Milliseconds()}
			} else {
				res["metadata"] = map[string]any{"elapsedMs": te.Elapsed.Milliseconds()}
			}
			res["type"] = "TOOL_CALL_RESULT"
			res["timestamp"] = time.Now().UnixMilli()
			t.out.send(res)
		}
	}
}

func (t *translator) text(s, agent string) {
	t.closeReasoning()
	if t.textID != "" && t.textAgent != agent {
		t.closeText()
	}
	if t.textID == "" {
		t.textID, t.textAgent = newID(), agent
		t.emit("TEXT_MESSAGE_START", map[string]any{"messageId": t.textID, "role": "assistant"}, agent)
	}
	t.emit("TEXT_MESSAGE_CONTENT", map[string]any{"messageId": t.textID, "delta": s}, agent)
}

func (t *translator) closeText() {
	t.closeReasoning()
	if t.textID == "" {
		return
	}
	t.emit("TEXT_MESSAGE_END", map[string]any{"messageId": t.textID}, t.textAgent)
	t.lastText, t.textID = t.textID, ""
}

func (t *translator) reasoning(s, agent string) {
	if t.textID != "" {
		t.closeText()
	}
	if t.reasonID != "" && t.reasonAgent != agent {
		t.closeReasoning()
	}
	if t.reasonID == "" {
		t.reasonID, t.reasonAgent = newID(), agent
		t.emit("REASONING_START", map[string]any{"messageId": t.reasonID}, agent)
		t.emit("REASONING_MESSAGE_START", map[string]any{"messageId": t.reasonID, "role": "reasoning"}, agent)
	}
	t.emit("REASONING_MESSAGE_CONTENT", map[string]any{"messageId": t.reasonID, "delta": s}, agent)
}

func (t *translator) closeReasoning() {
	if t.reasonID == "" {
		return
	}
	t.emit("REASONING_MESSAGE_END", map[string]any{"messageId": t.reasonID}, t.reasonAgent)
	t.emit("REASONING_END", map[string]any{"messageId": t.reasonID}, t.reasonAgent)
	t.reasonID = ""
}

func (t *translator) startCall(id, name, agent string) {
	if t.started[id] {
		return
	}
	t.started[id], t.open[id] = true, true
	ev := map[string]any{"toolCallId": id, "toolCallName": name}
	if t.lastText != "" {
		ev["parentMessageId"] = t.lastText
	}
	t.emit("TOOL_CALL_START", ev, agent)
}

func (t *translator) endCall(id, agent string) {
	if !t.open[id] {
		return
	}
	delete(t.open, id)
	t.emit("TOOL_CALL_END", map[string]any{"toolCallId": id}, agent)
}

// closeAll ends what is open when the turn ends.
func (t *translator) closeAll() {
	t.closeText()
	for id := range t.open {
		t.endCall(id, "")
	}
}
