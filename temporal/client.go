package temporal

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	sdkclient "go.temporal.io/sdk/client"
	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// Client starts the turns of an agent on Temporal and follows them, from any process that
// reaches the Temporal service: the one that started a turn, or another hours later.
type Client struct {
	tc  sdkclient.Client
	cfg Config
}

// NewClient returns a client of the agent cfg describes (its Name, TaskQueue and EventPoll).
func NewClient(tc sdkclient.Client, cfg Config) (*Client, error) {
	if tc == nil {
		return nil, errors.New("temporal: nil Temporal client")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Client{tc: tc, cfg: cfg}, nil
}

// StartOption sets how a turn's workflow starts ([Client.Start]).
type StartOption func(*sdkclient.StartWorkflowOptions)

// StartTimeout bounds the whole turn, waits for decisions included: past it, Temporal ends it.
// Without it a turn may wait for a decision forever.
func StartTimeout(d time.Duration) StartOption {
	return func(o *sdkclient.StartWorkflowOptions) { o.WorkflowExecutionTimeout = d }
}

// ReuseID sets whether a turn may start with the id of a turn that ended (Temporal's
// WorkflowIdReusePolicy); the default allows it.
func ReuseID(p enumspb.WorkflowIdReusePolicy) StartOption {
	return func(o *sdkclient.StartWorkflowOptions) { o.WorkflowIDReusePolicy = p }
}

// SearchAttributes indexes the turn under attributes registered on the namespace, to find
// turns with the visibility API (by customer, by team...).
func SearchAttributes(sa sdktemporal.SearchAttributes) StartOption {
	return func(o *sdkclient.StartWorkflowOptions) { o.TypedSearchAttributes = sa }
}

// Memo keys a turn carries from its start, readable with no worker (DescribeWorkflowExecution,
// the Temporal UI): the agent's name and the conversation.
const (
	MemoAgent        = "wield.agent"
	MemoConversation = "wield.conversation"
)

// Start starts a turn and returns it while it runs. Its memo names the agent and the
// conversation (MemoAgent, MemoConversation).
func (c *Client) Start(ctx context.Context, req Request, opts ...StartOption) (*Turn, error) {
	if req.Options != nil && len(req.Options.Tools) > 0 {
		return nil, errors.New("temporal: a turn's options carry no tools: the workers' client has them; name others with ToolNames")
	}
	if len(req.Messages) == 0 {
		return nil, errors.New("temporal: a turn needs messages")
	}
	if req.ID == "" {
		req.ID = "turn_" + rand.Text()
	}
	if _, err := json.Marshal(req); err != nil {
		return nil, fmt.Errorf("temporal: the request does not encode: %w", err)
	}
	so := sdkclient.StartWorkflowOptions{
		ID:        req.ID,
		TaskQueue: c.cfg.TaskQueue,
		Memo:      map[string]any{MemoAgent: c.cfg.Name},
		// A turn with the id of one running, or of one ended that the reuse policy keeps, is
		// refused, not handed back as if it were new.
		WorkflowExecutionErrorWhenAlreadyStarted: true,
	}
	if req.ConversationID != "" {
		so.Memo[MemoConversation] = req.ConversationID
	}
	for _, o := range opts {
		o(&so)
	}
	run, err := c.tc.ExecuteWorkflow(ctx, so, c.cfg.workflowName(), &req)
	if err != nil {
		return nil, fmt.Errorf("temporal: starting turn %s: %w", req.ID, err)
	}
	return &Turn{c: c, id: run.GetID()}, nil
}

// Schedule starts a turn of req at the times spec says (Temporal's schedules: intervals,
// calendars, cron), each a turn of its own whose workflow id is id followed by its scheduled
// time, and returns the schedule's handle, to pause, trigger, describe or delete it. req.ID must
// be empty. A turn with a conversation continues it each time, as with Start.
func (c *Client) Schedule(ctx context.Context, id string, spec sdkclient.ScheduleSpec, req Request) (sdkclient.ScheduleHandle, error) {
	if req.ID != "" {
		return nil, errors.New("temporal: a scheduled turn's request names no id: each run gets the schedule's id and its time")
	}
	if len(req.Messages) == 0 {
		return nil, errors.New("temporal: a turn needs messages")
	}
	if req.Options != nil && len(req.Options.Tools) > 0 {
		return nil, errors.New("temporal: a turn's options carry no tools: the workers' client has them; name others with ToolNames")
	}
	memo := map[string]any{MemoAgent: c.cfg.Name}
	if req.ConversationID != "" {
		memo[MemoConversation] = req.ConversationID
	}
	h, err := c.tc.ScheduleClient().Create(ctx, sdkclient.ScheduleOptions{
		ID:   id,
		Spec: spec,
		Action: &sdkclient.ScheduleWorkflowAction{
			ID:        id,
			Workflow:  c.cfg.workflowName(),
			Args:      []any{&req},
			TaskQueue: c.cfg.TaskQueue,
			Memo:      memo,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("temporal: scheduling turns %s: %w", id, err)
	}
	return h, nil
}

// Turn returns the turn with the given id (a workflow id), started by this process or another.
func (c *Client) Turn(id string) *Turn { return &Turn{c: c, id: id} }

// Turn is one turn of an agent, running, waiting for a decision, or ended.
type Turn struct {
	c  *Client
	id string
}

// ID returns the turn's id: its workflow id, and the ID of its pending states.
func (t *Turn) ID() string { return t.id }

// Pending returns what the turn waits for: its stopped state, whose [client.TurnState.Pending]
// calls need a decision; nil while it runs or once it ended. A state too large for one answer
// of a query is read in parts. (The workflow's query "wield.pending" returns the same to the
// Temporal CLI and UI, in one answer, which the server refuses over its payload limit.)
func (t *Turn) Pending(ctx context.Context) (*client.TurnState, error) {
	if st, ok, err := t.memoPending(ctx); err != nil || ok {
		return st, err
	}
	return t.queriedPending(ctx)
}

// queriedPending is [Turn.Pending] read by the query, whole (the memo's state leaves out its
// messages and tree account).
func (t *Turn) queriedPending(ctx context.Context) (*client.TurnState, error) {
	for {
		page, err := t.page(ctx, math.MaxInt)
		if err != nil {
			return nil, err
		}
		st, again, err := t.pendingOf(ctx, page)
		if err != nil || !again {
			return st, err
		}
	}
}

// memoPending reads what a client-loop turn waits for from its memo, which needs no worker: ok
// is false when the memo cannot tell (a turn of the workflow's own loop, or a state too large
// for the memo), and the query must. The state has no Messages: deciding needs none.
func (t *Turn) memoPending(ctx context.Context) (_ *client.TurnState, ok bool, _ error) {
	desc, err := t.c.tc.DescribeWorkflowExecution(ctx, t.id, "")
	if err != nil {
		return nil, false, t.err("reading", err)
	}
	info := desc.GetWorkflowExecutionInfo()
	if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return nil, true, nil // an ended turn waits for nothing
	}
	p, found := info.GetMemo().GetFields()[memoPending]
	if !found {
		return nil, false, nil
	}
	var m *memoState
	if err := t.c.cfg.DataConverter.FromPayload(p, &m); err != nil {
		return nil, false, fmt.Errorf("temporal: reading turn %s: its memo: %w", t.id, err)
	}
	switch {
	case m == nil || m.Seq == 0:
		return nil, true, nil // running
	case m.State == nil:
		return nil, false, nil // too large for the memo: the query reads it
	}
	return m.State, true, nil
}

// pendingOf returns the pending state page tells of, reading it in parts when the page left
// it out; again says that the turn moved on while it was read, and the page must be asked
// again.
func (t *Turn) pendingOf(ctx context.Context, page *eventsPage) (_ *client.TurnState, again bool, _ error) {
	if page.Pending != nil || page.Waiting == 0 {
		return page.Pending, false, nil
	}
	b, found, err := t.part(ctx, partPending, page.Waiting)
	if err != nil || !found {
		return nil, err == nil, err
	}
	var st client.TurnState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, false, fmt.Errorf("temporal: querying turn %s: the pending state: %w", t.id, err)
	}
	return &st, false, nil
}

// WaitPending waits until the turn waits for a decision and returns its pending state, or
// returns nil once the turn ended without stopping again (its [Turn.Result] says how).
func (t *Turn) WaitPending(ctx context.Context) (*client.TurnState, error) {
	for {
		page, err := t.page(ctx, math.MaxInt)
		if err != nil {
			if closed, cerr := t.closed(ctx); cerr == nil && closed {
				return nil, nil
			}
			return nil, err
		}
		st, again, err := t.pendingOf(ctx, page)
		if err != nil {
			return nil, err
		}
		if st != nil {
			return st, nil
		}
		if again {
			continue
		}
		if page.Finished {
			return nil, nil
		}
		if err := t.sleep(ctx); err != nil {
			return nil, err
		}
	}
}

// Events yields the turn's events from its start: each model response's text as it streams
// (pieces of the text while the call runs, read from its heartbeats every [Config.EventPoll],
// then the rest of the response with its reasoning), each tool call as it starts and finishes,
// the calls that wait for approval or interrupted the turn when it stops, then, after the
// application's decision, the rest, and the whole response last (a Done event). Text shown as
// it streamed is not sent again with the response; a model call whose attempt was lost (its
// worker died) may answer otherwise on its next attempt, and then its response's text comes
// whole after the lost attempt's pieces. It polls the workflow every [Config.EventPoll];
// stopping the iteration does not affect the turn.
func (t *Turn) Events(ctx context.Context) iter.Seq2[*client.Event, error] {
	return t.events(ctx, eventsFrom{}, -1)
}

// eventsFrom is where a reader of a turn's events starts: its event, and the sub-agents' turns
// it started.
type eventsFrom struct{ event, agents int }

// events yields the turn's events from from, as [Turn.Events] does, until the turn ends, or, when
// stopAfter is not negative, until it stops at a step after stopAfter: the last event is then a
// Done event whose response is pending on that stop.
func (t *Turn) events(ctx context.Context, from eventsFrom, stopAfter int64) iter.Seq2[*client.Event, error] {
	return func(yield func(*client.Event, error) bool) {
		next := from.event
		var streamed string // the text of the running model call shown so far
		agents := map[string]shownAgents{}
		var children []*childTurn // sub-agents' turns whose events are still to be read
		agentsSeen := from.agents
		for {
			page, err := t.page(ctx, next)
			if err != nil {
				if closed, cerr := t.closed(ctx); cerr == nil && closed {
					// A query of an ended turn replays it on a worker; without one, the events
					// are not to be had, which a short list must not hide.
					yield(nil, fmt.Errorf("temporal: turn %s has ended, and reading its events needs a worker of its agent to replay it: %w", t.id, err))
					return
				}
				yield(nil, err)
				return
			}
			for i, a := range page.Agents {
				if page.AgentsFrom+i >= agentsSeen {
					children = append(children, &childTurn{turn: &Turn{c: t.c, id: a.ID}, name: a.Name})
				}
			}
			agentsSeen = max(agentsSeen, page.AgentsFrom+len(page.Agents))
			if !t.childEvents(ctx, &children, yield) {
				return
			}
			for i := range page.Events {
				var ev *client.Event
				ev, streamed = afterStreamed(&page.Events[i], streamed)
				if !yield(ev, nil) {
					return
				}
			}
			next = page.Next
			if page.Large {
				ev, err := t.event(ctx, next)
				if err != nil {
					yield(nil, err)
					return
				}
				if !yield(ev, nil) {
					return
				}
				next++
				continue
			}
			if page.More {
				continue
			}
			if page.Finished {
				break
			}
			if stopAfter >= 0 {
				st, again, err := t.pendingOf(ctx, page)
				if err != nil {
					yield(nil, err)
					return
				}
				if again {
					continue
				}
				if st != nil && st.Seq > stopAfter {
					yield(&client.Event{Done: stopped(st)}, nil)
					return
				}
			}
			if page.Modeling && t.c.cfg.StreamInterval > 0 {
				if text := t.modelText(ctx); len(text) > len(streamed) && strings.HasPrefix(text, streamed) {
					piece := &client.Event{Chunk: &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant(text[len(streamed):])}}}}
					streamed = text
					if !yield(piece, nil) {
						return
					}
				}
			}
			if page.Calling && t.c.cfg.StreamInterval > 0 {
				for _, ev := range t.agentEvents(ctx, agents) {
					if !yield(ev, nil) {
						return
					}
				}
			}
			if err := t.sleep(ctx); err != nil {
				yield(nil, err)
				return
			}
		}
		resp, err := t.Result(ctx)
		if err != nil {
			yield(nil, err)
			return
		}
		yield(&client.Event{Done: resp}, nil)
	}
}

// afterStreamed returns ev as a reader who was shown streamed, the text of the model call ev may
// answer, is to get it: a response's chunk without what was shown of its text; and what is
// shown of the next call's text (nothing) once ev ends that call.
func afterStreamed(ev *client.Event, streamed string) (*client.Event, string) {
	if streamed == "" || ev.Agent() != "" {
		return ev, streamed
	}
	if ev.Chunk == nil || len(ev.Chunk.Generations) == 0 {
		if ev.Tool != nil {
			return ev, "" // the call ended without text of its own
		}
		return ev, streamed
	}
	text := ev.Chunk.Generations[0].Message.Content
	if !strings.HasPrefix(text, streamed) {
		return ev, "" // what was shown came from a lost attempt: the response comes whole
	}
	out := *ev
	chunk := *ev.Chunk
	chunk.Generations = slices.Clone(chunk.Generations)
	chunk.Generations[0].Message.Content = text[len(streamed):]
	out.Chunk = &chunk
	return &out, ""
}

// modelText returns the text so far of the turn's running model call, from its heartbeat
// details; "" when there is none to be read.
func (t *Turn) modelText(ctx context.Context) string {
	desc, err := t.c.tc.DescribeWorkflowExecution(ctx, t.id, "")
	if err != nil {
		return "" // the pieces are a courtesy: the response brings the text whatever happens here
	}
	for _, a := range desc.GetPendingActivities() {
		if a.GetActivityType().GetName() != t.c.cfg.activity(actInvokeModel) {
			continue
		}
		if d := a.GetHeartbeatDetails(); d != nil && len(d.GetPayloads()) > 0 {
			var p modelProgress
			if t.c.cfg.DataConverter.FromPayloads(d, &p) == nil {
				return p.Text
			}
		}
	}
	return ""
}

// childTurn is a sub-agent's turn in a child workflow, read by a reader of its caller's events:
// name is its agent's path from the caller ("payer", "payer/clerk").
type childTurn struct {
	turn       *Turn
	name       string
	next       int // its next event to read
	agentsSeen int // how many of its own sub-agents' turns were found
}

// childEvents yields what the sub-agents' turns did since last read, attributed to them, adds
// their own sub-agents' turns to children, and forgets those that finished; false when yield
// stopped. A child whose events cannot be read (no worker replays it once it ended) is left
// out, as is an event over a page alone.
func (t *Turn) childEvents(ctx context.Context, children *[]*childTurn, yield func(*client.Event, error) bool) bool {
	sctx := client.WithAgentEvents(ctx, func(ev *client.Event) bool { return yield(ev, nil) })
	var keep []*childTurn
	for i := 0; i < len(*children); i++ { // grows as grandchildren are found
		ch := (*children)[i]
		done := false
		for {
			page, err := ch.turn.page(ctx, ch.next)
			if err != nil {
				done = true
				break
			}
			send, _ := client.AgentEvents(sctx, ch.name)
			for k := range page.Events {
				ev := page.Events[k]
				if ev.Done != nil {
					continue
				}
				if !send(&ev, ev.Agent()) {
					return false
				}
			}
			ch.next = page.Next
			for k, a := range page.Agents {
				if page.AgentsFrom+k >= ch.agentsSeen {
					*children = append(*children, &childTurn{turn: &Turn{c: t.c, id: a.ID}, name: ch.name + "/" + a.Name})
				}
			}
			ch.agentsSeen = max(ch.agentsSeen, page.AgentsFrom+len(page.Agents))
			if page.Large {
				ch.next++
				continue
			}
			if page.More {
				continue
			}
			done = page.Finished
			break
		}
		if !done {
			keep = append(keep, ch)
		}
	}
	*children = keep
	return true
}

// shownAgents is how many of a running call's agents' events a reader of the turn's events was
// shown, in the call's attempt.
type shownAgents struct{ attempt, next int32 }

// agentEvents returns what the agents of the turn's running tool calls did since the reader was
// last shown (shown, by activity), from the calls' heartbeat details. They are a courtesy, like
// a model's text so far: what an agent did in a call's last moments may not show before the
// call ends, and an attempt that runs again shows its agents again.
func (t *Turn) agentEvents(ctx context.Context, shown map[string]shownAgents) []*client.Event {
	desc, err := t.c.tc.DescribeWorkflowExecution(ctx, t.id, "")
	if err != nil {
		return nil
	}
	var out []*client.Event
	running := make(map[string]bool)
	for _, a := range desc.GetPendingActivities() {
		if a.GetActivityType().GetName() != t.c.cfg.activity(actInvokeTool) {
			continue
		}
		id := a.GetActivityId()
		running[id] = true
		d := a.GetHeartbeatDetails()
		if d == nil || len(d.GetPayloads()) == 0 {
			continue
		}
		var b toolBeat
		if t.c.cfg.DataConverter.FromPayloads(d, &b) != nil || len(b.Events) == 0 || b.First < 0 {
			continue
		}
		s := shown[id]
		if s.attempt != a.GetAttempt() {
			s = shownAgents{attempt: a.GetAttempt()}
		}
		for i := max(int(s.next)-b.First, 0); i < len(b.Events); i++ {
			out = append(out, &b.Events[i])
		}
		s.next = int32(min(b.First+len(b.Events), math.MaxInt32))
		shown[id] = s
	}
	for id := range shown {
		if !running[id] {
			delete(shown, id)
		}
	}
	return out
}

// Decide sends the application's decisions for the calls the turn waits on (every call of
// [client.TurnState.Pending] needs one), for the stop at step seq ([client.TurnState.Seq]; 0
// means whatever the turn waits for, at the risk of deciding a later stop than the one looked
// at). The workflow checks them against the tools before anything runs: decisions that do not
// fit fail with an error matching [client.ErrInvalidDecision] and the turn keeps waiting; a turn
// that waits for nothing (resumed already, by this process or another) fails with one matching
// [client.ErrAlreadyResumed]. Once Decide returns, the turn runs on; follow it with
// [Turn.Events] or [Turn.Result]. Sending the same decisions for the same step again is
// answered as the first time: they are one update, whose id is the step and the decisions'
// hash. So a Decide that returns an error because ctx ended (no worker ran meanwhile, say) may
// still take effect once a worker runs; send the same decisions again to learn how it ended,
// never other decisions for the same step in the belief that the first were lost.
func (t *Turn) Decide(ctx context.Context, seq int64, decisions ...client.Decision) error {
	return t.decide(ctx, &decideRequest{Seq: seq, Decisions: decisions})
}

func (t *Turn) decide(ctx context.Context, req *decideRequest) error {
	seq, decisions := req.Seq, req.Decisions
	opts := sdkclient.UpdateWorkflowOptions{
		WorkflowID:   t.id,
		UpdateName:   updateDecide,
		Args:         []any{req},
		WaitForStage: sdkclient.WorkflowUpdateStageCompleted,
	}
	if seq > 0 {
		b, err := json.Marshal(decisions)
		if err != nil {
			return fmt.Errorf("temporal: the decisions do not encode: %w", err)
		}
		opts.UpdateID = fmt.Sprintf("decide-%d-%x", seq, sha256.Sum256(b))
	}
	h, err := t.c.tc.UpdateWorkflow(ctx, opts)
	if err == nil {
		err = h.Get(ctx, nil)
	}
	if err == nil {
		return nil
	}
	var ae *sdktemporal.ApplicationError
	if !errors.As(err, &ae) {
		if closed, cerr := t.closed(ctx); cerr == nil && closed {
			return &turnError{msg: fmt.Sprintf("temporal: deciding turn %s: the turn has ended", t.id), is: client.ErrAlreadyResumed, cause: err}
		}
	}
	return t.err("deciding", err)
}

// Result waits for the turn to end and returns its response: the answer, the messages the turn
// added (across its stops), the usage of all its model calls. A turn that failed returns its
// error: a breached call limit matches [toolcall.ErrLimitExceeded] (and is a
// *[toolcall.LimitError]); a payload over the turn's bound matches [ErrPayloadTooLarge].
func (t *Turn) Result(ctx context.Context) (*client.Response, error) {
	var resp client.Response
	if err := t.c.tc.GetWorkflow(ctx, t.id, "").Get(ctx, &resp); err != nil {
		return nil, t.err("running", err)
	}
	return &resp, nil
}

// Cancel cancels the turn: its running model and tool calls are cancelled (tools see their
// context end at their next heartbeat) and it ends with a cancellation error.
func (t *Turn) Cancel(ctx context.Context) error {
	if err := t.c.tc.CancelWorkflow(ctx, t.id, ""); err != nil {
		return fmt.Errorf("temporal: cancelling turn %s: %w", t.id, err)
	}
	return nil
}

// ToolProgress is a running tool call as its heartbeats report it.
type ToolProgress struct {
	// CallID is the model's id of the call (its first 200 bytes, when longer).
	CallID string
	// Attempt counts the call's attempts, from 1; more than 1 after a worker was lost.
	Attempt int
	// Progress is the tool's last report ([tool.ReportProgress]); nil until it reports.
	Progress *tool.Progress
	// Heartbeat is when the call last heartbeat; zero before its first.
	Heartbeat time.Time
}

// Progress returns the tool calls of the turn that are running, with the progress their tools
// last reported. It reads the heartbeat details Temporal keeps, decoded with
// [Config.DataConverter].
func (t *Turn) Progress(ctx context.Context) ([]ToolProgress, error) {
	desc, err := t.c.tc.DescribeWorkflowExecution(ctx, t.id, "")
	if err != nil {
		return nil, fmt.Errorf("temporal: describing turn %s: %w", t.id, err)
	}
	var out []ToolProgress
	for _, a := range desc.GetPendingActivities() {
		parts := strings.SplitN(a.GetActivityId(), "/", 3)
		if len(parts) != 3 || parts[0] != "tool" {
			continue
		}
		p := ToolProgress{CallID: parts[2], Attempt: int(a.GetAttempt())}
		if hb := a.GetLastHeartbeatTime(); hb != nil {
			p.Heartbeat = hb.AsTime()
		}
		if d := a.GetHeartbeatDetails(); d != nil && len(d.GetPayloads()) > 0 {
			var b toolBeat
			if err := t.c.cfg.DataConverter.FromPayloads(d, &b); err == nil {
				p.Progress = b.progress()
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// page asks the workflow for its events after the first after, its pending state and whether
// it finished.
func (t *Turn) page(ctx context.Context, after int) (*eventsPage, error) {
	v, err := t.c.tc.QueryWorkflow(ctx, t.id, "", queryEvents, after, answerVersion)
	if err != nil {
		return nil, fmt.Errorf("temporal: querying turn %s: %w", t.id, err)
	}
	var page eventsPage
	if err := v.Get(&page); err != nil {
		return nil, fmt.Errorf("temporal: querying turn %s: %w", t.id, err)
	}
	return &page, nil
}

// event reads the event at index i in parts.
func (t *Turn) event(ctx context.Context, i int) (*client.Event, error) {
	b, found, err := t.part(ctx, partEvent, int64(i))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("temporal: querying turn %s: it has no event %d", t.id, i)
	}
	var ev client.Event
	if err := json.Unmarshal(b, &ev); err != nil {
		return nil, fmt.Errorf("temporal: querying turn %s: event %d: %w", t.id, i, err)
	}
	return &ev, nil
}

// part reads the JSON encoding of what the part query names, part by part; found is false
// when the turn no longer has it (it stopped waiting at that step).
func (t *Turn) part(ctx context.Context, what string, key int64) (_ []byte, found bool, _ error) {
	var out []byte
	for {
		v, err := t.c.tc.QueryWorkflow(ctx, t.id, "", queryPart, what, key, len(out))
		if err != nil {
			return nil, false, fmt.Errorf("temporal: querying turn %s: %w", t.id, err)
		}
		var p partAnswer
		if err := v.Get(&p); err != nil {
			return nil, false, fmt.Errorf("temporal: querying turn %s: %w", t.id, err)
		}
		if !p.Found {
			return nil, false, nil
		}
		if out == nil {
			out = make([]byte, 0, p.Total)
		}
		if len(p.Data) == 0 && len(out) < p.Total || len(out)+len(p.Data) > p.Total {
			return nil, false, fmt.Errorf("temporal: querying turn %s: a part of %d bytes at %d of %d", t.id, len(p.Data), len(out), p.Total)
		}
		out = append(out, p.Data...)
		if len(out) == p.Total {
			return out, true, nil
		}
	}
}

// closed reports whether the turn's workflow has ended.
func (t *Turn) closed(ctx context.Context) (bool, error) {
	desc, err := t.c.tc.DescribeWorkflowExecution(ctx, t.id, "")
	if err != nil {
		return false, err
	}
	return desc.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, nil
}

func (t *Turn) sleep(ctx context.Context) error {
	timer := time.NewTimer(t.c.cfg.EventPoll)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// err maps the application errors of the agent's workflow back to wield's errors.
func (t *Turn) err(doing string, err error) error {
	var ae *sdktemporal.ApplicationError
	if !errors.As(err, &ae) {
		return fmt.Errorf("temporal: %s turn %s: %w", doing, t.id, err)
	}
	var is error
	switch ae.Type() {
	case errTypeInvalidDecision:
		is = client.ErrInvalidDecision
	case errTypePayload:
		is = ErrPayloadTooLarge
	case errTypeNotWaiting:
		is = client.ErrAlreadyResumed
	case errTypeTreeBudget:
		is = detailed[client.TreeBudgetError](ae, client.ErrTreeBudget)
	case errTypeLimit:
		is = detailed[toolcall.LimitError](ae, toolcall.ErrLimitExceeded)
	default:
		return fmt.Errorf("temporal: %s turn %s: %w", doing, t.id, err)
	}
	return &turnError{msg: fmt.Sprintf("temporal: %s turn %s: %s", doing, t.id, ae.Error()), is: is, cause: err}
}

// detailed returns the error of type *T that ae's details hold, or sentinel when they hold none
// that this build reads.
func detailed[T any, PT interface {
	*T
	error
}](ae *sdktemporal.ApplicationError, sentinel error) error {
	var v T
	if ae.HasDetails() && ae.Details(&v) == nil {
		return PT(&v)
	}
	return sentinel
}

// turnError is an error of the workflow that matches the wield error it stands for.
type turnError struct {
	msg   string
	is    error
	cause error
}

func (e *turnError) Error() string   { return e.msg }
func (e *turnError) Unwrap() []error { return []error{e.is, e.cause} }
