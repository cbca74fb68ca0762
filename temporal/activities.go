package temporal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"go.temporal.io/sdk/activity"
	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/toolresult"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// activities are the steps of an agent's turns that touch the world or the client's code: model
// and tool calls, memory, and the decisions that read the tools (approval, limits, decisions,
// return-direct). Each is recorded in the workflow's history, so a replay decides the same.
type activities struct {
	c   *client.Client
	cfg Config
	// assembler finishes rounds whose every call has its result: no call runs, so it needs no
	// telemetry, and one call at a time keeps it on the activity's goroutine.
	assembler *toolcall.Manager
}

func newActivities(c *client.Client, cfg Config) *activities {
	return &activities{c: c, cfg: cfg, assembler: toolcall.New(toolcall.Config{
		Concurrency:    1,
		TracerProvider: tracenoop.NewTracerProvider(),
		MeterProvider:  noop.NewMeterProvider(),
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
	})}
}

// client returns the client whose turn in is: the worker's, or a sub-agent's.
func (a *activities) client(in *Request) (*client.Client, error) {
	if in == nil || in.Agent == nil {
		return a.c, nil
	}
	return agentClient(a.c, in.Agent.Path)
}

// agentClient finds the sub-agent's client at path from c: each name an agent tool of the
// client before.
func agentClient(c *client.Client, path []string) (*client.Client, error) {
	for i, name := range path {
		sub, ok := c.Agent(name)
		if !ok {
			return nil, sdktemporal.NewNonRetryableApplicationError(fmt.Sprintf(
				"temporal: the worker's client has no agent %q (path %q): run workers of the build that started the turn", cut(name, maxCallIDInActivityID), strings.Join(path[:i+1], "/")), errTypeConfig, nil)
		}
		c = sub
	}
	return c, nil
}

// request builds the turn's request with the worker's client: its system message, options and
// tools, with the turn's over them, and msgs as the conversation.
func (a *activities) request(ctx context.Context, in *Request, msgs []chat.Message) (*client.Request, error) {
	if in == nil {
		in = &Request{}
	}
	c, err := a.client(in)
	if err != nil {
		return nil, err
	}
	spec := c.Prompt().Messages(msgs...).ToolNames(in.ToolNames...)
	if in.System != nil {
		spec.System(*in.System)
	}
	if in.Options != nil {
		if len(in.Options.Tools) > 0 {
			return nil, sdktemporal.NewNonRetryableApplicationError("temporal: a turn's options carry no tools; name them", errTypeConfig, nil)
		}
		spec.Options(in.Options)
	}
	if len(in.ToolContext) > 0 {
		spec.ToolContext(in.ToolContext)
	}
	if in.ConversationID != "" {
		spec.Param(client.ParamConversationID, in.ConversationID)
	}
	req, err := spec.Request(ctx)
	if err != nil {
		return nil, sdktemporal.NewNonRetryableApplicationError(err.Error(), errTypeConfig, err)
	}
	return req, nil
}

// Model calls the client's model with the turn's conversation.
func (a *activities) Model(ctx context.Context, in modelInput) (*chat.Response, error) {
	req, err := a.request(ctx, in.Turn, in.Messages)
	if err != nil {
		return nil, err
	}
	if in.Final {
		o := req.Prompt.Options.Clone()
		o.ToolChoice = "none"
		req = req.WithOptions(o)
	}
	return a.callModel(ctx, a.c.Model(), &req.Prompt, in.MaxBytes, false)
}

// callModel calls the client's model with p; the response is bounded by maxBytes as JSON
// (0: no bound).
func (a *activities) callModel(ctx context.Context, m chat.Model, p *chat.Prompt, maxBytes int, stream bool) (*chat.Response, error) {
	// Temporal retries the activity: the provider's own retries would multiply its attempts.
	ctx = chat.WithoutRetries(ctx)
	ctx, hb := heartbeat(ctx)
	defer hb.stop()
	var resp *chat.Response
	var err error
	if stream {
		resp, err = streamModel(ctx, m, p, hb, a.cfg.StreamInterval)
	} else {
		resp, err = m.Call(ctx, p)
	}
	if err != nil {
		var pe *chat.ProviderError
		if errors.As(err, &pe) && !pe.Temporary() {
			return nil, sdktemporal.NewNonRetryableApplicationError(err.Error(), errTypeProvider, err)
		}
		return nil, err
	}
	if resp == nil || len(resp.Generations) == 0 { // nothing to answer with, as on a client
		return nil, sdktemporal.NewNonRetryableApplicationError(client.ErrNoResponse.Error(), errTypeProvider, nil)
	}
	out := *resp
	out.Raw = nil // the provider's own value is neither needed nor always encodable
	if n := encodedSize(out); maxBytes > 0 && n > maxBytes {
		// Not retried: another attempt costs as much, and most likely answers alike.
		return nil, payloadError(fmt.Sprintf("temporal: the model's response is %d bytes, over the turn's bound of %d (MaxPayloadBytes)", n, maxBytes))
	}
	return &out, nil
}

// maxStreamedText bounds the text a model call's heartbeats carry: past it, a reader of the
// turn's events gets the rest with the response.
const maxStreamedText = 64 << 10

// modelProgress is the heartbeat detail of a streamed model call: the text of its first
// generation so far, which [Turn.Events] shows as it grows.
type modelProgress struct {
	Text string `json:"text"`
}

// streamModel streams the model's answer, heartbeating its text so far every interval while it
// grows, and returns the whole answer. A call shorter than every heartbeats no text: its
// response brings the text as soon.
func streamModel(ctx context.Context, m chat.Model, p *chat.Prompt, hb *beater, every time.Duration) (*chat.Response, error) {
	var mu sync.Mutex
	var text strings.Builder
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		sent := 0
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			mu.Lock()
			var d *modelProgress
			if text.Len() > sent {
				sent, d = text.Len(), &modelProgress{Text: text.String()}
			}
			mu.Unlock()
			if d != nil {
				hb.set(*d)
			}
		}
	})
	defer func() {
		close(done)
		wg.Wait()
	}()
	var agg chat.Aggregator
	for chunk, err := range m.Stream(ctx, p) {
		if err != nil {
			return nil, err
		}
		agg.Add(chunk)
		if len(chunk.Generations) > 0 && chunk.Generations[0].Index == 0 {
			if t := chunk.Generations[0].Message.Content; t != "" {
				mu.Lock()
				if n := maxStreamedText - text.Len(); n > 0 {
					t = t[:min(len(t), n)]
					for !utf8.ValidString(t) { // not half a character at the cut
						t = t[:len(t)-1]
					}
					text.WriteString(t)
				}
				mu.Unlock()
			}
		}
	}
	return agg.Response(), nil
}

// Tool runs one call with the worker's client's tools and manager: arguments validated, errors
// processed, panics and the tool's timeout turned into results for the model, as in any turn.
func (a *activities) Tool(ctx context.Context, in toolInput) (*toolOutput, error) {
	req, err := a.request(ctx, in.Turn, nil)
	if err != nil {
		return nil, err
	}
	resp := &chat.Response{Generations: []chat.Generation{{
		Message:      chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{in.Call}},
		FinishReason: chat.FinishToolCalls,
	}}}
	turn := &toolcall.Turn{ToolContext: req.ToolContext}
	plans := []toolcall.Plan{{Approved: true, Resume: in.Resume}}
	ctx, hb := heartbeat(ctx)
	defer hb.stop()
	start := time.Now()
	result, err := a.c.Manager().ResumeTurn(ctx, turn, &req.Prompt, resp, plans)
	elapsed := time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err // the attempt was cancelled or timed out: Temporal decides what next
		}
		// A fatal tool error, or the error processor's: the turn ends, as in any turn.
		return nil, sdktemporal.NewNonRetryableApplicationError(err.Error(), errTypeTurnEnded, err)
	}
	limit := a.cfg.MaxToolResultBytes
	if result.Stopped {
		pc := client.NewRound(resp, result.Calls, false).Calls[0]
		// What the tool stopped with (its interrupt's data, a sub-agent's state) travels in the
		// history as a result does, and is bounded alike. The call's arguments do not travel:
		// the workflow has the call.
		pc.Call.Arguments = ""
		n := encodedSize(pc)
		if limit <= 0 || n <= limit {
			return &toolOutput{Elapsed: elapsed, Stopped: &pc}, nil
		}
		return &toolOutput{Elapsed: elapsed, Result: chat.ToolResult{ID: in.Call.ID, Name: in.Call.Name, IsError: true, Content: fmt.Sprintf(
			"The tool stopped the turn for a decision, but what it stopped with is %d bytes, over the %d bytes a result may have in this turn; it was dropped.", n, limit)}}, nil
	}
	res := result.ToolResults()[0]
	if n := encodedSize(res); limit > 0 && n > limit {
		res = chat.ToolResult{ID: res.ID, Name: res.Name, IsError: true, Content: fmt.Sprintf(
			"The tool's result is %d bytes, over the %d bytes a result may have in this turn; it was dropped. Ask for less.", n, limit)}
	}
	return &toolOutput{Result: res, Elapsed: elapsed}, nil
}

// encodedSize returns the size of v's JSON encoding, as the history holds it; a value that does
// not encode counts as 0, and fails where the SDK encodes it.
func encodedSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// errProbe stops a round after its approval and limits were decided, before any call runs.
var errProbe = errors.New("temporal: round planned")

// Plan decides a new round as the client's manager would before running it: the limits (the
// turn's counts go on from in's), the approval policy, the calls refused.
func (a *activities) Plan(ctx context.Context, in planInput) (*planOutput, error) {
	req, err := a.request(ctx, in.Turn, in.Messages)
	if err != nil {
		return nil, err
	}
	turn := &toolcall.Turn{Approval: req.Approval()}
	turn.SetCounts(in.CallCounts, in.TotalCalls)
	var outcomes []toolcall.CallOutcome
	turn.BeforeRun = func(_ context.Context, calls []toolcall.CallOutcome) error {
		outcomes = calls
		return errProbe
	}
	out := &planOutput{}
	result, err := a.c.Manager().ExecuteTurn(ctx, turn, &req.Prompt, in.Response)
	switch {
	case errors.Is(err, errProbe):
	case err != nil:
		var le *toolcall.LimitError
		if errors.As(err, &le) {
			return nil, sdktemporal.NewNonRetryableApplicationError(err.Error(), errTypeLimit, err, *le)
		}
		return nil, sdktemporal.NewNonRetryableApplicationError(err.Error(), errTypeConfig, err)
	default:
		out.Stopped, outcomes = true, result.Calls
	}
	out.Round = client.NewRound(in.Response, outcomes, false)
	out.Info = infos(req.Prompt.Options.Tools, out.Round.Message.ToolCalls)
	if in.Lean {
		for i := range out.Round.Calls {
			out.Round.Calls[i].Call.Arguments = ""
			out.Round.Message.ToolCalls[i].Arguments = ""
		}
	}
	out.CallCounts, out.TotalCalls = turn.Counts()
	return out, nil
}

// Decide checks the application's decisions for a stopped round against the tools and returns
// the round's plans.
func (a *activities) Decide(ctx context.Context, in decideInput) (*decideOutput, error) {
	req, err := a.request(ctx, in.Turn, nil)
	if err != nil {
		return nil, err
	}
	plans, err := in.State.Plans(ctx, in.Decisions, req.Prompt.Options.Tools)
	if err != nil {
		return nil, sdktemporal.NewNonRetryableApplicationError(err.Error(), errTypeInvalidDecision, err)
	}
	calls := make([]chat.ToolCall, len(in.State.Round.Calls))
	for i, c := range in.State.Round.Calls {
		calls[i] = c.Call
	}
	out := &decideOutput{Plans: plans, Info: infos(req.Prompt.Options.Tools, calls)}
	if in.Lean {
		out.Kept = leave(plans, in.State.Round)
	}
	return out, nil
}

// leave takes out of plans what round holds already (the results of calls that are done, the
// calls' interrupts, their sub-agents' states) and says, per plan, what it took out. Nothing
// is taken out that restore would not give back equal.
func leave(plans []toolcall.Plan, round *client.Round) []kept {
	out := make([]kept, len(plans))
	for i := range plans {
		p, c, k := &plans[i], &round.Calls[i], &out[i]
		if p.Result != nil && c.Status == client.CallDone && c.Result != nil && sameJSON(p.Result, c.Result) {
			p.Result, k.Result = nil, true
		}
		if p.Resume == nil {
			continue
		}
		r := *p.Resume
		p.Resume = &r
		if r.Interrupt != nil && c.Interrupt != nil && sameJSON(r.Interrupt, c.Interrupt) {
			p.Resume.Interrupt, k.Interrupt = nil, true
		}
		if c.Child == nil || len(r.Data) == 0 {
			continue
		}
		var m map[string]json.RawMessage
		state, err := json.Marshal(c.Child)
		if err != nil || json.Unmarshal(r.Data, &m) != nil {
			continue
		}
		for name, v := range m {
			if !bytes.Equal(v, state) {
				continue
			}
			delete(m, name)
			if lean, err := json.Marshal(m); err == nil {
				p.Resume.Data, k.Child = lean, name
			}
			break
		}
	}
	return out
}

// restore gives plans back what leave took out of them, from round.
func restore(plans []toolcall.Plan, kept []kept, round *client.Round) error {
	if len(kept) == 0 {
		return nil
	}
	if len(kept) != len(plans) || len(plans) != len(round.Calls) {
		return fmt.Errorf("temporal: %d plans left out parts of %d for %d calls", len(kept), len(plans), len(round.Calls))
	}
	for i, k := range kept {
		p, c := &plans[i], &round.Calls[i]
		if k.Result {
			if c.Result == nil {
				return fmt.Errorf("temporal: the plan of call %d takes the call's result, which it has not", i)
			}
			r := *c.Result
			p.Result = &r
		}
		if (k.Interrupt || k.Child != "") && p.Resume == nil {
			return fmt.Errorf("temporal: the plan of call %d resumes nothing", i)
		}
		if k.Interrupt {
			p.Resume.Interrupt = c.Interrupt
		}
		if k.Child != "" {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(p.Resume.Data, &m); err != nil || c.Child == nil {
				return fmt.Errorf("temporal: the plan of call %d resumes no sub-agent", i)
			}
			state, err := json.Marshal(c.Child)
			if err != nil {
				return fmt.Errorf("temporal: the sub-agent state of call %d: %w", i, err)
			}
			m[k.Child] = state
			data, err := json.Marshal(m)
			if err != nil {
				return fmt.Errorf("temporal: the resume data of call %d: %w", i, err)
			}
			p.Resume.Data = data
		}
	}
	return nil
}

// sameJSON reports whether a and b encode alike.
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// Assemble finishes a round whose every call has its result, with the manager's own rules: the
// assistant message with the calls as they ran, the tool message with the results in the
// model's order, and whether they are the answer (every tool return-direct, none failed).
func (a *activities) Assemble(ctx context.Context, in assembleInput) (*assembleOutput, error) {
	req, err := a.request(ctx, in.Turn, nil)
	if err != nil {
		return nil, err
	}
	for i := range in.Plans {
		if in.Plans[i].Result == nil {
			return nil, sdktemporal.NewNonRetryableApplicationError(fmt.Sprintf("temporal: call %d of the round has no result", i), errTypeConfig, nil)
		}
	}
	p := &chat.Prompt{Options: &chat.Options{Tools: req.Prompt.Options.Tools}}
	result, err := a.assembler.ResumeTurn(ctx, nil, p, in.Response, in.Plans)
	if err != nil {
		return nil, sdktemporal.NewNonRetryableApplicationError(err.Error(), errTypeConfig, err)
	}
	out := &assembleOutput{Messages: result.History, ReturnDirect: result.ReturnDirect}
	if in.MaxBytes > 0 && len(out.Messages) == 2 {
		size := encodedSize(out.Messages[0]) + 1 + encodedSize(out.Messages[1])
		if size > in.MaxBytes {
			out.Messages[1] = fitResults(out.Messages[1], size, in.MaxBytes)
			out.ReturnDirect = false // a dropped result failed: the model reads it
		}
	}
	return out, nil
}

// fitResults returns tool message m with its largest results replaced by error results that
// say how large they were, as few as bring the message under limit, given that its size with
// what goes beside it is size. It does what memory.Window does with a message over its cap.
func fitResults(m chat.Message, size, limit int) chat.Message {
	m, _, _ = toolresult.Fit(m, size, limit, func(v any) (int, error) { return encodedSize(v), nil }, func(n int) string {
		return droppedNote(n, limit)
	})
	return m
}

// droppedNote is the text of the error result that replaces a result of size bytes dropped from
// a round for which limit bytes of the model's input were left.
func droppedNote(size, limit int) string {
	return fmt.Sprintf("The tool ran, but its result (%d bytes) was too large for the turn: the results of this round together were over what the model's input may take (%d bytes of it were left for them), so it was dropped. Ask for less.",
		size, limit)
}

// LoadMemory adds a turn's new messages to its conversation and returns the conversation.
func (a *activities) LoadMemory(ctx context.Context, in memoryInput) ([]chat.Message, error) {
	if err := a.remember(ctx, in); err != nil {
		return nil, err
	}
	msgs, err := a.cfg.Memory.Get(ctx, in.ConversationID)
	if err != nil {
		return nil, fmt.Errorf("temporal: loading conversation %q: %w", in.ConversationID, err)
	}
	if n := encodedSize(msgs); in.MaxBytes > 0 && n > in.MaxBytes {
		return nil, payloadError(fmt.Sprintf("temporal: conversation %q is %d bytes, over the turn's bound of %d (MaxPayloadBytes); a memory window of fewer messages keeps less",
			in.ConversationID, n, in.MaxBytes))
	}
	return msgs, nil
}

// Remember adds messages to a conversation.
func (a *activities) Remember(ctx context.Context, in memoryInput) error {
	return a.remember(ctx, in)
}

// remember appends in's messages. A retried attempt first checks whether the attempt before
// stored them already (its completion was lost), so a retry never stores a message twice.
func (a *activities) remember(ctx context.Context, in memoryInput) error {
	if len(in.Messages) == 0 {
		return nil
	}
	if activity.GetInfo(ctx).Attempt > 1 {
		stored, err := a.cfg.Memory.Get(ctx, in.ConversationID)
		if err != nil {
			return fmt.Errorf("temporal: loading conversation %q: %w", in.ConversationID, err)
		}
		if memory.EndsWith(stored, in.Messages) {
			return nil
		}
	}
	if err := a.cfg.Memory.Add(ctx, in.ConversationID, in.Messages...); err != nil {
		if errors.Is(err, memory.ErrInvalidConversationID) || errors.Is(err, memory.ErrMessageTooLarge) {
			return sdktemporal.NewNonRetryableApplicationError(err.Error(), errTypeConfig, err)
		}
		return fmt.Errorf("temporal: storing conversation %q: %w", in.ConversationID, err)
	}
	return nil
}

// infos tells, for each call, what its tool's metadata says of scheduling it.
func infos(tools []tool.Tool, calls []chat.ToolCall) []callInfo {
	out := make([]callInfo, len(calls))
	for i, c := range calls {
		for _, t := range tools {
			if t.Definition().Name != c.Name {
				continue
			}
			m := t.Metadata()
			out[i] = callInfo{Known: true, Alone: m.Sequential, Retry: m.ReadOnly || m.Idempotent, Timeout: m.Timeout}
			break
		}
	}
	return out
}

// maxProgressMessage bounds the message of a progress report sent as heartbeat details: a
// tool's (or an MCP server's) report is not trusted to fit what the server takes.
const maxProgressMessage = 4 << 10

// heartbeatDetails returns p as the server and JSON take it: a message cut to
// maxProgressMessage bytes, and amounts that JSON cannot encode (NaN, infinities), on which
// the SDK panics, as 0 (unknown).
func heartbeatDetails(p tool.Progress) tool.Progress {
	finite := func(f float64) float64 {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0
		}
		return f
	}
	p.Progress, p.Total = finite(p.Progress), finite(p.Total)
	p.Message = cut(p.Message, maxProgressMessage)
	return p
}

// heartbeat keeps the activity of ctx heartbeating while it runs, three times per heartbeat
// timeout, with the last details set (a tool's progress report, a model's text so far); details
// are sent as they come (the SDK batches them, see Config.StreamInterval). stop ends it.
func heartbeat(ctx context.Context) (context.Context, *beater) {
	b := &beater{ctx: ctx, done: make(chan struct{})}
	progressCtx := tool.WithProgress(ctx, func(p tool.Progress) { b.set(heartbeatDetails(p)) })
	every := activity.GetInfo(ctx).HeartbeatTimeout / 3
	if every <= 0 {
		return progressCtx, b
	}
	b.wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				b.send()
			case <-b.done:
				return
			case <-ctx.Done():
				return
			}
		}
	})
	return progressCtx, b
}

// beater heartbeats an activity with its last details.
type beater struct {
	ctx    context.Context
	mu     sync.Mutex
	last   any       // a model's text so far (modelProgress), or a tool's progress (tool.Progress)
	agents *agentLog // a tool call's agents' events, sent beside its progress (toolBeat)
	done   chan struct{}
	wg     sync.WaitGroup
}

// set makes d the details of the activity's heartbeats and sends them.
func (b *beater) set(d any) {
	b.mu.Lock()
	b.last = d
	b.mu.Unlock()
	b.send()
}

func (b *beater) send() {
	b.mu.Lock()
	d, agents := b.last, b.agents
	b.mu.Unlock()
	if agents != nil {
		tb := &toolBeat{NoProgress: true}
		if p, ok := d.(tool.Progress); ok {
			tb.Progress, tb.NoProgress = p, false
		}
		agents.beat(tb)
		d = tb
	}
	if d != nil {
		activity.RecordHeartbeat(b.ctx, d)
	} else {
		activity.RecordHeartbeat(b.ctx)
	}
}

// stop ends the heartbeats.
func (b *beater) stop() {
	close(b.done)
	b.wg.Wait()
}
