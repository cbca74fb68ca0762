package client

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// TurnStateVersion is the version of the [TurnState] format this package writes and reads.
const TurnStateVersion = 1

// TurnStatus says where a stopped or stored turn stands.
type TurnStatus string

// The statuses of a [TurnState].
const (
	// TurnApproval: calls of the current round wait for approval; none of them ran.
	TurnApproval TurnStatus = "approval"
	// TurnInterrupted: a tool interrupted the turn to ask something.
	TurnInterrupted TurnStatus = "interrupted"
	// TurnRunning: the round's calls were running when the state was saved. While the state's
	// lease ([TurnState.Lease]) has not run out, its process is running them ([TurnState.Leased]):
	// they need no decision, and a resume is refused with [ErrRoundRunning]. Once it has run
	// out (or for a state saved without one), the state belongs to a process that ended in the
	// middle of the round: its unfinished calls may or may not have had their effects, so each
	// needs a decision.
	TurnRunning TurnStatus = "running"
	// TurnReady: the tool rounds so far are done and recorded; the next step is a model call.
	// A turn whose model call failed after a tool round is left in this status, to be retried.
	TurnReady TurnStatus = "ready"
)

// CallStatus is [toolcall.CallStatus], where the Manager's results and the saved turns share
// one vocabulary.
//
// Deprecated: use [toolcall.CallStatus].
type CallStatus = toolcall.CallStatus

// The statuses of a [PendingCall], as [toolcall.CallStatus] names them.
//
// Deprecated: use the toolcall names.
const (
	CallDone        = toolcall.CallDone
	CallApproval    = toolcall.CallApproval
	CallInterrupted = toolcall.CallInterrupted
	CallRunning     = toolcall.CallRunning
	CallWaiting     = toolcall.CallWaiting
)

// TurnState is the state of a turn that stopped (for approval or an interrupt), or that failed
// after a tool round, or whose round was saved while it ran: everything needed to continue the
// turn exactly where it stopped, as plain JSON data. Store it anywhere (a [TurnStore] keeps it
// under the conversation) and continue it with [Client.Resume], in this process or another.
//
// The tools are not part of it: the resuming request offers them, as the first did.
type TurnState struct {
	// Version is the format's version, [TurnStateVersion].
	Version int `json:"version"`
	// ID identifies the turn.
	ID string `json:"id"`
	// Seq counts the states saved of the turn; a [TurnStore] keeps only the newest and refuses a
	// save that does not follow the one it has.
	Seq int64 `json:"seq"`
	// ConversationID is the conversation the turn belongs to, when the request named one.
	ConversationID string `json:"conversationId,omitempty"`
	// Status says where the turn stands.
	Status TurnStatus `json:"status"`
	// Iteration is the number of tool rounds done before the current one.
	Iteration int `json:"iteration"`
	// Messages are the tool loop's request messages of the current iteration: the conversation
	// the model saw, or (with memory inside the loop) the system messages and the newest tool
	// results.
	Messages []chat.Message `json:"messages"`
	// Round is the tool round in progress; nil when Status is TurnReady.
	Round *Round `json:"round,omitempty"`
	// CallCounts and TotalCalls are the turn's tool calls so far, per tool and in all, as the
	// call limits count them.
	CallCounts map[string]int `json:"callCounts,omitempty"`
	TotalCalls int            `json:"totalCalls,omitempty"`
	// Carried is what the turn's hooks keep that its messages do not show, by name
	// ([Turn.SetCarried]): it goes on with the turn wherever it resumes (a store, another
	// process, a durable turn's next run).
	Carried map[string]json.RawMessage `json:"carried,omitempty"`
	// Tree is the account of a top-level turn's agent tree ([TreeBudget]), so that the turn's
	// resume goes on counting; a sub-agent's state, which spends its caller's, has none.
	Tree *TreeAccount `json:"tree,omitempty"`
	// Lease is the hold of the process running the round, in status [TurnRunning] with a turn
	// store; states saved by earlier versions have none.
	Lease *Lease `json:"lease,omitempty"`
	// MAC authenticates the rest of the state when the client that wrote it has a turn key
	// ([WithTurnKey]): hex HMAC-SHA256 of the state's JSON without it.
	MAC string `json:"mac,omitempty"`

	claimed atomic.Bool // resumed by this process
}

// Round is a tool round that stopped: the model's message asking for the calls, and where each
// call stands.
type Round struct {
	// ResponseID and Model are those of the model response that asked for the calls.
	ResponseID string `json:"responseId,omitempty"`
	Model      string `json:"model,omitempty"`
	// Message is the assistant message with the calls.
	Message chat.Message `json:"message"`
	// Calls are the message's calls, in order, and where each stands.
	Calls []PendingCall `json:"calls"`
}

// PendingCall is one call of a stopped round.
type PendingCall struct {
	// Call is the model's call: name, id and arguments.
	Call chat.ToolCall `json:"call"`
	// Status says where the call stands.
	Status toolcall.CallStatus `json:"status"`
	// Result is the call's result when Status is [toolcall.CallDone].
	Result *chat.ToolResult `json:"result,omitempty"`
	// Interrupt is what the tool asked when Status is [toolcall.CallInterrupted].
	Interrupt *toolcall.InterruptError `json:"interrupt,omitempty"`
	// Child is the stopped turn of a sub-agent ([AgentTool]) this call ran; its own pending
	// calls are decided through [TurnState.Pending].
	Child *TurnState `json:"child,omitempty"`

	// Agent names the sub-agents the call belongs to, outermost first, joined by "/"; empty
	// for the top-level turn's calls. Set by [TurnState.Pending] only.
	Agent string `json:"-"`
	// Path holds the ids of the sub-agent calls leading to this call, outermost first. Set by
	// [TurnState.Pending] only; decisions made with the call's methods carry it.
	Path []string `json:"-"`
}

// NeedsDecision reports whether the call waits for the application: for approval, an answer to
// its interrupt, or, when it was running as its process ended, a decision on what to do.
func (c *PendingCall) NeedsDecision() bool {
	if c.Child != nil {
		return false // its child's calls are decided instead
	}
	switch c.Status {
	case toolcall.CallApproval, toolcall.CallInterrupted, toolcall.CallRunning:
		return true
	}
	return false
}

// Pending returns the calls awaiting a decision, those of stopped sub-agents included (with
// Agent and Path set), in order. The calls of a round running under a live lease
// ([TurnState.Leased]) await their process, not a decision, and are not listed.
func (s *TurnState) Pending() []PendingCall {
	if s == nil || s.Round == nil || s.Leased() {
		return nil
	}
	var out []PendingCall
	for _, c := range s.Round.Calls {
		switch {
		case c.Child != nil:
			for _, n := range c.Child.Pending() {
				n.Path = append([]string{c.Call.ID}, n.Path...)
				if n.Agent == "" {
					n.Agent = c.Call.Name
				} else {
					n.Agent = c.Call.Name + "/" + n.Agent
				}
				out = append(out, n)
			}
		case c.NeedsDecision():
			out = append(out, c)
		}
	}
	return out
}

// NeedsApproval reports whether any pending call, a sub-agent's included, waits for approval.
func (s *TurnState) NeedsApproval() bool {
	for _, c := range s.Pending() {
		if c.Status == toolcall.CallApproval {
			return true
		}
	}
	return false
}

// claim marks the state resumed by this process; false if it already was, as this value or, when
// remember is set (no turn store, whose compare-and-swap decides otherwise), as a copy (see
// [MaxRememberedTurns]).
func (s *TurnState) claim(remember bool) bool {
	if !s.claimed.CompareAndSwap(false, true) {
		return false
	}
	if remember && !processTurns.claim(s.ID, s.Seq) {
		s.claimed.Store(false)
		return false
	}
	return true
}

// mac returns the state's MAC under key: HMAC-SHA256 of its JSON with the MAC left out. A state
// that cannot be encoded gets none.
func (s *TurnState) mac(key []byte) []byte {
	b, err := json.Marshal(struct {
		*TurnState
		MAC string `json:"mac,omitempty"` // hides the state's own
	}{TurnState: s})
	if err != nil {
		return nil
	}
	h := hmac.New(sha256.New, key)
	h.Write(b)
	return h.Sum(nil)
}

// sign sets the state's MAC under key.
func (s *TurnState) sign(key []byte) { s.MAC = hex.EncodeToString(s.mac(key)) }

// verify reports whether the state's MAC is its MAC under key.
func (s *TurnState) verify(key []byte) bool {
	got, err := hex.DecodeString(s.MAC)
	want := s.mac(key)
	return err == nil && want != nil && hmac.Equal(got, want)
}

// unclaim undoes claim when nothing ran, so that the state can be resumed again.
func (s *TurnState) unclaim() {
	processTurns.unclaim(s.ID, s.Seq)
	s.claimed.Store(false)
}

// MaxRememberedTurns is how many turns a process remembers, to refuse without a turn store a
// second resume of a state by any copy of it: for each turn, the step of the state it handed
// out last and whether that step was resumed. A state of a remembered turn resumes only if it
// is that step, once; a state of a turn the process does not remember (made by another
// process, or forgotten, oldest first, past this many) resumes once per copy of the Go value,
// and only a turn store or a turn key ([WithTurnKey]) guards it further.
const MaxRememberedTurns = 1 << 16

// processTurns is the process's record of turns.
var processTurns = &turnRecord{max: MaxRememberedTurns}

// turnStep is what the process remembers of a turn.
type turnStep struct {
	seq     int64
	resumed bool
}

// turnRecord is a bounded record of turns, oldest forgotten first.
type turnRecord struct {
	mu    sync.Mutex
	max   int
	steps map[string]turnStep
	order []string // ids in first-recorded order
}

// put records the turn's step; called with mu held.
func (r *turnRecord) put(id string, st turnStep) {
	if _, ok := r.steps[id]; !ok {
		if r.steps == nil {
			r.steps = make(map[string]turnStep)
		}
		for len(r.steps) >= r.max && len(r.order) > 0 {
			delete(r.steps, r.order[0])
			r.order[0] = ""
			r.order = r.order[1:]
		}
		r.order = append(r.order, id)
	}
	r.steps[id] = st
}

// handOut records that the process handed out the turn's state at seq: the one step of the turn
// that can be resumed now.
func (r *turnRecord) handOut(id string, seq int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.put(id, turnStep{seq: seq})
}

// claim records the turn's step as resumed; false if the process knows the turn and the step is
// not the one it handed out last, or was resumed.
func (r *turnRecord) claim(id string, seq int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur, ok := r.steps[id]; ok && (cur.resumed || cur.seq != seq) {
		return false
	}
	r.put(id, turnStep{seq: seq, resumed: true})
	return true
}

// unclaim makes the turn's step resumable again, if it is the one claimed.
func (r *turnRecord) unclaim(id string, seq int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur, ok := r.steps[id]; ok && cur.resumed && cur.seq == seq {
		r.steps[id] = turnStep{seq: seq}
	}
}

// DecisionKind says what the application decided for a pending call.
type DecisionKind string

// The kinds of [Decision].
const (
	// DecideApprove runs the call, with edited arguments if given.
	DecideApprove DecisionKind = "approve"
	// DecideReject does not run the call; the model reads the decision's text as its error
	// result.
	DecideReject DecisionKind = "reject"
	// DecideAnswer does not run the call; the decision's text is its result, as if the tool had
	// returned it (the answer to an interrupt's question).
	DecideAnswer DecisionKind = "answer"
	// DecideRestart runs the call again, with edited arguments if given; the tool finds its
	// interrupt and the decision's data with [toolcall.Resumed].
	DecideRestart DecisionKind = "restart"
)

// Decision is the application's decision for one pending call. Build it with [Approve],
// [ApproveWith], [Reject], [Answer] or [Restart], or with the methods of the [PendingCall]
// (needed for the calls of sub-agents whose ids are not unique).
type Decision struct {
	// CallID is the pending call's id.
	CallID string `json:"callId"`
	// Path holds the ids of the sub-agent calls leading to the call ([PendingCall.Path]); empty
	// for a call of the top-level turn, or to find the call by id at any depth.
	Path []string `json:"path,omitempty"`
	// Kind is the decision.
	Kind DecisionKind `json:"kind"`
	// Arguments replace the call's arguments (approve and restart); they are validated against
	// the tool's schema before anything runs.
	Arguments string `json:"arguments,omitempty"`
	// Text is the model's error result (reject) or the call's result (answer).
	Text string `json:"text,omitempty"`
	// Data reaches a restarted call's tool ([toolcall.Resumption]).
	Data json.RawMessage `json:"data,omitempty"`
}

// MaxDecisionBytes caps a [Decision]'s CallID, Path, Text, Arguments and Data together (1 MiB):
// an answer or edit goes into the conversation and the stored state, and ids into errors and
// logs, so a larger one is refused with [ErrInvalidDecision] before anything runs.
const MaxDecisionBytes = 1 << 20

// size is what [MaxDecisionBytes] counts of d.
func (d *Decision) size() int {
	n := len(d.CallID) + len(d.Text) + len(d.Arguments) + len(d.Data)
	for _, p := range d.Path {
		n += len(p)
	}
	return n
}

// Approve approves the call with the given id as the model asked for it.
func Approve(callID string) Decision { return Decision{CallID: callID, Kind: DecideApprove} }

// ApproveWith approves the call with arguments in place of the model's.
func ApproveWith(callID, arguments string) Decision {
	return Decision{CallID: callID, Kind: DecideApprove, Arguments: arguments}
}

// Reject refuses the call; the model reads message as the call's error result (empty: a
// standard text saying the user declined).
func Reject(callID, message string) Decision {
	return Decision{CallID: callID, Kind: DecideReject, Text: message}
}

// Answer gives the call's result without running it: the answer to the question its tool asked.
func Answer(callID, text string) Decision {
	return Decision{CallID: callID, Kind: DecideAnswer, Text: text}
}

// Restart runs the call again, with arguments in place of the model's unless empty; its tool
// finds data and its earlier interrupt with [toolcall.Resumed].
func Restart(callID, arguments string, data json.RawMessage) Decision {
	return Decision{CallID: callID, Kind: DecideRestart, Arguments: arguments, Data: data}
}

func (c *PendingCall) decide(d Decision) Decision {
	d.Path = slices.Clone(c.Path)
	return d
}

// Approve approves the call as the model asked for it.
func (c *PendingCall) Approve() Decision { return c.decide(Approve(c.Call.ID)) }

// ApproveWith approves the call with arguments in place of the model's.
func (c *PendingCall) ApproveWith(arguments string) Decision {
	return c.decide(ApproveWith(c.Call.ID, arguments))
}

// Reject refuses the call with a message for the model.
func (c *PendingCall) Reject(message string) Decision { return c.decide(Reject(c.Call.ID, message)) }

// Answer gives the call's result without running it.
func (c *PendingCall) Answer(text string) Decision { return c.decide(Answer(c.Call.ID, text)) }

// Restart runs the call again with new arguments (empty: the same) and data for its tool.
func (c *PendingCall) Restart(arguments string, data json.RawMessage) Decision {
	return c.decide(Restart(c.Call.ID, arguments, data))
}

// DefaultRejection is the error result the model reads for a call rejected without a message.
const DefaultRejection = "The user declined this tool call; it did not run."

// TurnStore keeps the state of each conversation's open turn, so that a turn that stopped,
// failed after a tool round, or whose process died can be resumed, in any process. memory.Turns
// makes one of the memory repositories (in memory, SQLite, PostgreSQL).
//
// With a store set ([WithTurnStore]), the tool loop saves the turn's state when it stops, before
// each round's calls start, and after each round (before the next model call), and ends it when
// the turn is done; a request must then name its conversation ([ParamConversationID]).
type TurnStore interface {
	// SaveTurn stores state as the conversation's open turn. A state with Seq 1 starts a turn
	// and replaces any other the conversation has (the open turn is abandoned); a Seq 1 state
	// of the stored turn's own id is a conflict. A later state is
	// stored only if the stored one is the same turn at Seq-1; otherwise SaveTurn stores nothing
	// and returns an error matching [ErrTurnConflict].
	SaveTurn(ctx context.Context, conversationID string, state *TurnState) error
	// LoadTurn returns the conversation's open turn, or nil if it has none.
	LoadTurn(ctx context.Context, conversationID string) (*TurnState, error)
	// EndTurn removes the conversation's open turn if it is turnID at seq; otherwise it returns
	// an error matching [ErrTurnConflict].
	EndTurn(ctx context.Context, conversationID, turnID string, seq int64) error
}

// Errors of stopped and resumed turns.
var (
	// ErrTurnConflict: the stored turn is not the one the loop saved last (another process took
	// the turn over or a new turn replaced it), or a state handed to Resume is not the one
	// stored for its step.
	ErrTurnConflict = errors.New("client: the conversation's stored turn changed")
	// ErrAlreadyResumed: the turn state was resumed before (by this process, or by another
	// through the turn store); its calls must not run twice.
	ErrAlreadyResumed = errors.New("client: the turn was already resumed")
	// ErrInvalidDecision: the decisions do not fit the pending calls: a call without a decision,
	// a decision for no pending call, or edited arguments the tool's schema refuses. Nothing
	// ran, and the state can be resumed with other decisions.
	ErrInvalidDecision = errors.New("client: invalid decision")
	// ErrTurnTampered: the client has a turn key ([WithTurnKey]) and the state handed to Resume
	// carries no MAC, or one that does not verify: it was edited, or written without the key.
	ErrTurnTampered = errors.New("client: the turn state's MAC does not verify")
	// ErrNoConversation: a turn store is set but the request names no conversation.
	ErrNoConversation = errors.New("client: a turn store needs the request's conversation_id parameter")
)

// TurnError is the error of a turn that failed after at least one tool round completed (a model
// call failing, a hook's error, the context ending): the rounds' results are kept in State
// (status [TurnReady]), which [Client.Resume] continues with the next model call, without
// running the recorded calls again. With a [TurnStore] the same state is stored.
type TurnError struct {
	// Err is what ended the turn.
	Err error
	// State continues the turn.
	State *TurnState
	// Messages are those the turn added before it failed: its completed rounds' calls and
	// results, since the turn started or was resumed.
	Messages []chat.Message
}

func (e *TurnError) Error() string { return e.Err.Error() }

// Unwrap returns the error that ended the turn.
func (e *TurnError) Unwrap() error { return e.Err }

// resumption is a request's resume: the state and the application's decisions.
type resumption struct {
	state     *TurnState
	decisions []Decision
}

// newTurnID returns a random turn id.
func newTurnID() string { return "turn_" + rand.Text() }

// agentResume is what the parent turn gives a sub-agent's call to resume the sub-agent.
type agentResume struct {
	State     *TurnState `json:"state"`
	Decisions []Decision `json:"decisions"`
}

// routed holds the decisions of a round, by call index: those for its own calls, and those for
// the calls of its stopped sub-agents.
type routed struct {
	own   map[int]Decision
	child map[int][]Decision
}

// route assigns decisions to the calls of s's round, checking that every pending call, those of
// sub-agents included, gets exactly one.
func route(s *TurnState, decisions []Decision) (*routed, error) {
	rt := &routed{own: map[int]Decision{}, child: map[int][]Decision{}}
	calls := s.Round.Calls
	for _, d := range decisions {
		switch d.Kind {
		case DecideApprove, DecideReject, DecideAnswer, DecideRestart:
		default:
			return nil, fmt.Errorf("%w: call %s: unknown kind %q", ErrInvalidDecision, d.CallID, d.Kind)
		}
		if n := d.size(); n > MaxDecisionBytes {
			return nil, fmt.Errorf("%w: call %.64q: the decision's id, path, text, arguments and data are %d bytes, over the cap of %d",
				ErrInvalidDecision, d.CallID, n, MaxDecisionBytes)
		}
		if len(d.Path) > 0 {
			i := slices.IndexFunc(calls, func(c PendingCall) bool { return c.Call.ID == d.Path[0] && c.Child != nil })
			if i < 0 {
				return nil, fmt.Errorf("%w: no stopped sub-agent call %s (path of call %s)", ErrInvalidDecision, d.Path[0], d.CallID)
			}
			d.Path = d.Path[1:]
			rt.child[i] = append(rt.child[i], d)
			continue
		}
		// A model may give several calls of a response one id (or none): each decision for the
		// id goes to the next of its pending calls, in order, as Pending lists them.
		i, matched := -1, false
		for j, c := range calls {
			if c.Call.ID != d.CallID || !c.NeedsDecision() {
				continue
			}
			matched = true
			if _, decided := rt.own[j]; !decided {
				i = j
				break
			}
		}
		if i >= 0 {
			rt.own[i] = d
			continue
		}
		if matched {
			return nil, fmt.Errorf("%w: more decisions than pending calls for call id %s", ErrInvalidDecision, d.CallID)
		}
		// A call of a sub-agent, found by id at any depth.
		found := -1
		var path []string
		for j, c := range calls {
			if c.Child == nil {
				continue
			}
			for _, p := range c.Child.Pending() {
				if p.Call.ID == d.CallID {
					if found >= 0 {
						return nil, fmt.Errorf("%w: call id %s is not unique among the sub-agents' calls; decide with the PendingCall's methods", ErrInvalidDecision, d.CallID)
					}
					found, path = j, p.Path
				}
			}
		}
		if found < 0 {
			return nil, fmt.Errorf("%w: no pending call %s", ErrInvalidDecision, d.CallID)
		}
		d.Path = path
		rt.child[found] = append(rt.child[found], d)
	}
	for i, c := range calls {
		switch {
		case c.Child != nil:
			if _, err := route(c.Child, rt.child[i]); err != nil {
				return nil, fmt.Errorf("sub-agent call %s (%s): %w", c.Call.ID, c.Call.Name, err)
			}
		case c.NeedsDecision():
			if _, ok := rt.own[i]; !ok {
				return nil, fmt.Errorf("%w: call %s (%s) has no decision", ErrInvalidDecision, c.Call.ID, c.Call.Name)
			}
		}
	}
	return rt, nil
}

// Plans checks decisions for the pending calls of s, a stopped state, and returns what
// [toolcall.Manager.ResumeTurn] is to do with each call of its round, in order: the result of a
// call that is done, a rejection or answer as the call's result, approval with edited arguments
// (validated against the tool's schema), a restart with the tool's interrupt and the
// application's data, or the resume of a stopped sub-agent with the decisions routed to it.
// tools are those the resumed round offers. Decisions that do not fit fail with
// [ErrInvalidDecision]. [Client.Resume] does this itself; Plans serves programs that run a
// turn's steps elsewhere and finish its round with the manager.
func (s *TurnState) Plans(ctx context.Context, decisions []Decision, tools []tool.Tool) ([]toolcall.Plan, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if s.Round == nil {
		return nil, errors.New("client: resume: the turn state has no stopped round")
	}
	if err := s.refuseLeased(time.Now()); err != nil {
		return nil, err
	}
	return plans(ctx, s, decisions, tools)
}

// decisionChecker is implemented by tools that run a sub-agent, to check decisions for the
// sub-agent's calls before anything runs.
type decisionChecker interface {
	checkDecisions(ctx context.Context, state *TurnState, decisions []Decision) error
}

// plans turns the decisions for the stopped round of s into the round's plans, checking them
// against tools (the resuming request's) first.
func plans(ctx context.Context, s *TurnState, decisions []Decision, tools []tool.Tool) ([]toolcall.Plan, error) {
	rt, err := route(s, decisions)
	if err != nil {
		return nil, err
	}
	find := func(name string) tool.Tool {
		for _, t := range tools {
			if t.Definition().Name == name {
				return t
			}
		}
		return nil
	}
	out := make([]toolcall.Plan, len(s.Round.Calls))
	for i := range s.Round.Calls {
		c := &s.Round.Calls[i]
		p := &out[i]
		switch {
		case c.Child != nil:
			t := find(c.Call.Name)
			dc, ok := t.(decisionChecker)
			if !ok {
				return nil, fmt.Errorf("%w: call %s: the resuming request offers no sub-agent tool %q", ErrInvalidDecision, c.Call.ID, c.Call.Name)
			}
			if err := dc.checkDecisions(ctx, c.Child, rt.child[i]); err != nil {
				return nil, fmt.Errorf("sub-agent call %s (%s): %w", c.Call.ID, c.Call.Name, err)
			}
			data, err := json.Marshal(agentResume{State: c.Child, Decisions: rt.child[i]})
			if err != nil {
				return nil, fmt.Errorf("client: resume: %w", err)
			}
			p.Approved = true
			p.Resume = &toolcall.Resumption{Interrupt: c.Interrupt, Data: data}
		case c.NeedsDecision():
			d := rt.own[i]
			switch d.Kind {
			case DecideReject:
				text := d.Text
				if text == "" {
					text = DefaultRejection
				}
				p.Result = &chat.ToolResult{ID: c.Call.ID, Name: c.Call.Name, Content: text, IsError: true}
			case DecideAnswer:
				p.Result = &chat.ToolResult{ID: c.Call.ID, Name: c.Call.Name, Content: d.Text}
			default: // approve, restart
				t := find(c.Call.Name)
				if t == nil {
					return nil, fmt.Errorf("%w: call %s: the resuming request offers no tool %q", ErrInvalidDecision, c.Call.ID, c.Call.Name)
				}
				if d.Arguments != "" {
					if err := toolcall.ValidateArguments(t, d.Arguments); err != nil {
						return nil, fmt.Errorf("%w: call %s (%s): edited arguments: %w", ErrInvalidDecision, c.Call.ID, c.Call.Name, err)
					}
				}
				p.Approved, p.Arguments = true, d.Arguments
				if d.Kind == DecideRestart || c.Status != toolcall.CallApproval {
					p.Resume = &toolcall.Resumption{Interrupt: c.Interrupt, Data: d.Data}
				}
			}
		case c.Status == toolcall.CallDone:
			if c.Result == nil {
				return nil, fmt.Errorf("client: resume: call %s is done but has no result", c.Call.ID)
			}
			r := *c.Result
			p.Result = &r
		default: // waiting: it needed no decision, so the approval policy is asked again
			// rather than the state believed, which may come from anywhere
		}
	}
	return out, nil
}

// check verifies that s is a state this package can continue.
func (s *TurnState) check() error {
	if s == nil {
		return errors.New("client: resume: no turn state")
	}
	if s.Version != TurnStateVersion {
		return fmt.Errorf("client: resume: turn state version %d, this program reads %d", s.Version, TurnStateVersion)
	}
	if s.ID == "" || s.Seq < 1 {
		// Every state the loop hands out is a saved step, 1 or later: a claim of step 0 would save
		// step 1, which starts a turn over the stored one.
		return fmt.Errorf("client: resume: a turn state needs an id and a step of 1 or more (step %d)", s.Seq)
	}
	switch s.Status {
	case TurnReady:
		if s.Round != nil {
			return errors.New("client: resume: a ready turn state has a round")
		}
	case TurnApproval, TurnInterrupted, TurnRunning:
		if s.Round == nil || len(s.Round.Calls) == 0 || len(s.Round.Calls) != len(s.Round.Message.ToolCalls) {
			return fmt.Errorf("client: resume: a turn state in status %s has no well-formed round", s.Status)
		}
		// The calls that run are the message's; the application decided on the pending calls'.
		// They must be the same calls, or an approval would run what nobody saw.
		for i := range s.Round.Calls {
			a, b := &s.Round.Calls[i].Call, &s.Round.Message.ToolCalls[i]
			if a.ID != b.ID || a.Name != b.Name || a.Arguments != b.Arguments {
				return fmt.Errorf("client: resume: call %d of the turn state's round differs from its message's", i)
			}
		}
	default:
		return fmt.Errorf("client: resume: unknown turn status %q", s.Status)
	}
	return nil
}

// response rebuilds the model response that asked for the round's calls.
func (r *Round) response() *chat.Response {
	return &chat.Response{
		ID:          r.ResponseID,
		Model:       r.Model,
		Generations: []chat.Generation{{Message: r.Message, FinishReason: chat.FinishToolCalls}},
	}
}

// agentStop is the error of a sub-agent's call whose turn stopped: an interrupt of the parent's
// round that carries the sub-agent's state.
type agentStop struct {
	state     *TurnState
	interrupt *toolcall.InterruptError
}

func (e *agentStop) Error() string { return e.interrupt.Error() }
func (e *agentStop) Unwrap() error { return e.interrupt }

// stopOutcome is the outcome of a turn that stopped in state s.
func stopOutcome(s *TurnState) Outcome {
	if s.NeedsApproval() {
		return OutcomeApproval
	}
	return OutcomeInterrupted
}

// joinAgent names a sub-agent's sub-agent.
func joinAgent(outer, inner string) string {
	if inner == "" {
		return outer
	}
	var b strings.Builder
	b.WriteString(outer)
	b.WriteByte('/')
	b.WriteString(inner)
	return b.String()
}
