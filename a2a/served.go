package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/answers"
	"github.com/wield-ai/wield/memory"
)

// Sizes of what a served task sends: one SSE line must stay well under the 64 KiB a line the
// Go SDK's client reads, whatever the turn produced.
const (
	flushTextBytes = 512                    // progress text is sent in pieces of about this size,
	flushTextEvery = 250 * time.Millisecond // or of what came in this long: each event costs the SDK a copy of the task
	maxPartBytes   = 32 << 10               // an answer's text is split into parts of at most this size
	maxShownBytes  = 8 << 10                // arguments and results shown in progress and pending calls
	maxInputBytes  = 512 << 10              // the text a message may give a turn
)

// Metadata key of the parts a served task's progress carries: "text" (the agent's text as it
// comes), "tool" (a tool call starting, finishing, or stopping the turn), "pending" (the calls a
// task in input-required waits on).
const MetaKind = "wield"

// Metadata keys of the caller's agent tree ([client.TreeBudget]): a message from a wield caller
// carries the share of its tree the message's run of the task's turn may spend (MetaTree), and
// the status that ends the run says what the run spent (MetaTreeSpent), so that the caller's tree
// counts it, once across a task's stops.
const (
	MetaTree      = "wield.tree"
	MetaTreeSpent = "wield.treeSpent"
)

// PendingView describes a pending call of a task in input-required, in the data part of its
// status message ({"pending": [...]}), for the caller to decide.
type PendingView struct {
	// ID names the call in a decision: its id, after those of the sub-agent calls leading to it,
	// joined by "/".
	ID   string `json:"id"`
	Tool string `json:"tool"`
	// Arguments are the call's arguments (a string when over 8 KiB, cut).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Agent     string          `json:"agent,omitempty"`
	// Reason is "approval" (the call waits for approval), "interrupt" (the tool asked
	// something: Message), "credentials" (the call needs the credential Credential, which the
	// reply gives in a data part {"credentials": {NAME: VALUE}}; Message says what for) or
	// "running" (the call was running when its process ended: it may or may not have had its
	// effects).
	Reason     string `json:"reason"`
	Message    string `json:"message,omitempty"`
	Credential string `json:"credential,omitempty"`
	// Data is what an interrupting tool said besides its Message, when it is JSON of at most
	// 64 KiB: for an MCP server's question (mcp.Elicitation), the schema its answer follows. Such
	// a call is answered by a decision {"id": ..., "restart": true, "data": ANSWER} (for an MCP
	// question, an mcp.ElicitationAnswer), with which the tool runs again.
	Data json.RawMessage `json:"data,omitempty"`
}

// maxDataBytes bounds the interrupt data a pending call shows: an MCP question with a schema at
// its bound (mcp.MaxElicitationSchemaBytes, 64 KiB) fits.
const maxDataBytes = 80 << 10

// CallDecision decides one pending call, in the data part of the message that resumes a task
// ({"decisions": [...]}): Approved for an approval (with edited Arguments, or a Reason when
// refused); Answer (the call's result) or Restart (run the tool again with Data) for the others.
type CallDecision struct {
	ID        string          `json:"id"`
	Approved  *bool           `json:"approved,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Answer    *string         `json:"answer,omitempty"`
	Restart   bool            `json:"restart,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
}

// answerID names the artifact of a task's answer.
const answerID sdk.ArtifactID = "answer"

// executor runs a task's turn; see a2asrv.AgentExecutor.
type executor struct{ s *Server }

// out writes a task's events.
type out struct {
	ctx   context.Context
	rc    *a2asrv.RequestContext
	q     eventqueue.Queue
	spent *client.TreeSpent // what the turn spent of its caller's tree, told in the last status
}

func (o *out) status(state sdk.TaskState, final bool, parts ...sdk.Part) error {
	var msg *sdk.Message
	if len(parts) > 0 {
		msg = sdk.NewMessageForTask(sdk.MessageRoleAgent, o.rc, parts...)
	}
	ev := sdk.NewStatusUpdateEvent(o.rc, state, msg)
	ev.Final = final
	if final && o.spent != nil {
		ev.Metadata = map[string]any{MetaTreeSpent: *o.spent}
	}
	return o.q.Write(o.ctx, ev)
}

// callerTree returns ctx whose turn spends the share of its caller's tree the message carries:
// it can lower the agent's own budget, never raise it.
func callerTree(ctx context.Context, m *sdk.Message) context.Context {
	v, ok := m.Metadata[MetaTree]
	if !ok {
		return ctx
	}
	var b client.TreeBudget
	raw, err := json.Marshal(v)
	if err != nil || json.Unmarshal(raw, &b) != nil {
		return ctx
	}
	return client.WithTreeAccount(ctx, client.TreeAccount{Budget: b})
}

func (o *out) end(state sdk.TaskState, text string) error {
	return o.status(state, true, sdk.TextPart{Text: text})
}

func (e *executor) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) (err error) {
	s := e.s
	o := &out{ctx: ctx, rc: rc, q: q}
	defer func() {
		if r := recover(); r != nil {
			s.cfg.Logger.ErrorContext(ctx, "a2a: panic running a task", "task", rc.TaskID, "panic", fmt.Sprintf("%T", r))
			err = o.end(sdk.TaskStateFailed, "the agent failed")
		}
	}()
	run, done, err := e.taskRun(ctx, rc, o)
	if done {
		return err
	}
	if err := o.status(sdk.TaskStateWorking, false); err != nil {
		return err
	}
	leased, lost := context.WithCancelCause(ctx)
	defer lost(nil)
	go s.holdLease(leased, lost, rc.TaskID)
	turnCtx, cancel := context.WithTimeout(leased, s.cfg.RunTimeout)
	defer cancel()
	turnCtx = callerTree(turnCtx, rc.Message)
	resp, err := o.turn(turnCtx, s.runner.Run(turnCtx, run))
	var be *client.TreeBudgetError
	switch {
	case err == nil:
		o.spent = &resp.Tree
	case errors.As(err, &be):
		o.spent = &be.Spent
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // the task was canceled; its canceled state is written
		}
		if errors.Is(context.Cause(leased), errLeaseLost) {
			s.cfg.Logger.ErrorContext(ctx, "a2a: a task was taken over", "task", rc.TaskID)
			return errLeaseLost
		}
		s.cfg.Logger.ErrorContext(ctx, "a2a: a task's turn failed", "task", rc.TaskID, "error", err)
		if tc, ok := s.runner.(TurnCanceler); ok {
			// The task fails (out of time, say): a turn that outlives the run must not go on.
			if cerr := tc.CancelTurn(context.WithoutCancel(ctx), string(rc.TaskID)); cerr != nil {
				s.cfg.Logger.ErrorContext(ctx, "a2a: cancelling a failed task's turn", "task", rc.TaskID, "error", cerr)
			}
		}
		why := "the agent's turn failed"
		switch {
		case errors.Is(err, context.DeadlineExceeded), turnCtx.Err() != nil:
			why = "the agent's turn ran out of time"
		case errors.Is(err, client.ErrAlreadyResumed), errors.Is(err, client.ErrTurnConflict):
			why = "the task's turn was continued elsewhere"
		}
		return o.end(sdk.TaskStateFailed, why)
	}
	if resp.Pending != nil {
		s.tasks.setTurn(rc.TaskID, resp.Pending)
		state := sdk.TaskStateInputRequired
		if needsCredentials(resp.Pending) {
			state = sdk.TaskStateAuthRequired
		}
		return o.status(state, true, pendingParts(resp.Pending, "")...)
	}
	answer := resp.Text()
	pieces := splitText(answer, maxPartBytes)
	for i, p := range pieces {
		ev := sdk.NewArtifactUpdateEvent(rc, answerID, sdk.TextPart{Text: p})
		ev.Artifact.Name = string(answerID)
		ev.Append = i > 0
		ev.LastChunk = i == len(pieces)-1
		if err := q.Write(ctx, ev); err != nil {
			return err
		}
	}
	return o.status(sdk.TaskStateCompleted, true)
}

// taskRun returns the turn a task's message runs: a new one, or the task's stopped turn with the
// message's decisions. done is true when the task ended or still waits instead, with err what
// writing that status returned.
func (e *executor) taskRun(ctx context.Context, rc *a2asrv.RequestContext, o *out) (run TurnRun, done bool, err error) {
	s := e.s
	run = TurnRun{TaskID: string(rc.TaskID), Conversation: conversation(principal(ctx), rc.ContextID)}
	if rc.StoredTask == nil {
		if err := memory.ValidateConversationID(conversation(principal(ctx), rc.ContextID)); err != nil {
			return run, true, o.end(sdk.TaskStateRejected, "the context id cannot name a conversation")
		}
		text, err := inputText(rc.Message)
		if err != nil {
			return run, true, o.end(sdk.TaskStateRejected, err.Error())
		}
		conv := run.Conversation
		if err := s.tasks.admit(ctx, principal(ctx), rc.TaskID, rc.ContextID); err != nil {
			if errors.Is(err, errTooManyTasks) {
				return run, true, o.end(sdk.TaskStateRejected, "too many tasks of this caller are open: finish or cancel one first")
			}
			s.cfg.Logger.ErrorContext(ctx, "a2a: admitting a task", "task", rc.TaskID, "error", err)
			return run, true, o.end(sdk.TaskStateFailed, "the agent could not store the task")
		}
		var times recordTimes
		if s.cfg.TurnStore != nil {
			if st, err := s.cfg.TurnStore.LoadTurn(ctx, conv); err == nil && st != nil {
				times.PriorTurn = st.ID
			}
		}
		s.tasks.setRun(rc.TaskID, times)
		run.Text = text
	} else {
		rec, _, ok, err := s.tasks.load(ctx, rc.TaskID)
		if err != nil || !ok || rec.Turn == nil || !waits(rc.StoredTask.Status.State) {
			if err != nil {
				s.cfg.Logger.ErrorContext(ctx, "a2a: loading a task", "task", rc.TaskID, "error", err)
			}
			return run, true, o.end(sdk.TaskStateFailed, "the task has no stopped turn to continue")
		}
		decisions, err := decide(rec.Turn, rc.Message, credentialsOf(ctx))
		if err != nil {
			// Nothing was claimed: the task still waits, and says what it waits for.
			return run, true, o.status(rc.StoredTask.Status.State, true, pendingParts(rec.Turn, err.Error()+". ")...)
		}
		s.tasks.setRun(rc.TaskID, recordTimes{TurnID: rec.Turn.ID})
		run.State, run.Decisions = rec.Turn, decisions
	}
	return run, false, nil
}

// errLeaseLost ends a turn whose task another process took over, its lease having passed.
var errLeaseLost = errors.New("a2a: the task's lease passed and another process took it over")

// holdLease renews the lease of the task a turn runs, every third of it, until ctx ends; a task
// taken over ends the turn with errLeaseLost.
func (s *Server) holdLease(ctx context.Context, lost context.CancelCauseFunc, id sdk.TaskID) {
	t := time.NewTicker(s.cfg.TaskLease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := s.tasks.renew(ctx, id)
		switch {
		case errors.Is(err, memory.ErrTurnConflict):
			lost(errLeaseLost)
			return
		case err != nil && ctx.Err() == nil:
			s.cfg.Logger.ErrorContext(ctx, "a2a: renewing a task's lease", "task", id, "error", err)
		}
	}
}

// Cancel cancels a task: a running turn's context ends when the SDK applies the event; a task
// waiting for input drops its stopped turn with the state.
func (e *executor) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	if tc, ok := e.s.runner.(TurnCanceler); ok {
		if err := tc.CancelTurn(ctx, string(rc.TaskID)); err != nil {
			e.s.cfg.Logger.ErrorContext(ctx, "a2a: cancelling a task's turn", "task", rc.TaskID, "error", err)
		}
	}
	o := &out{ctx: ctx, rc: rc, q: q}
	return o.status(sdk.TaskStateCanceled, true)
}

// turn follows the turn's events, sending its progress as working status updates: the agent's
// text in pieces, and each tool call as it starts, finishes or stops the turn.
func (o *out) turn(ctx context.Context, events iter.Seq2[*client.Event, error]) (*client.Response, error) {
	var buf strings.Builder
	var bufAgent string
	last := time.Now()
	flush := func() error {
		if buf.Len() == 0 {
			return nil
		}
		last = time.Now()
		md := map[string]any{MetaKind: "text"}
		if bufAgent != "" {
			md["agent"] = bufAgent
		}
		text := buf.String()
		buf.Reset()
		return o.status(sdk.TaskStateWorking, false, sdk.TextPart{Text: text, Metadata: md})
	}
	var resp *client.Response
	for ev, err := range events {
		if err != nil {
			return nil, err
		}
		switch {
		case ev.Done != nil:
			resp = ev.Done
		case ev.Chunk != nil:
			t := ev.Text()
			if t == "" {
				continue
			}
			if ev.Agent() != bufAgent {
				if err := flush(); err != nil {
					return nil, err
				}
				bufAgent = ev.Agent()
			}
			buf.WriteString(t)
			if buf.Len() >= flushTextBytes || time.Since(last) >= flushTextEvery {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		case ev.Tool != nil:
			if err := flush(); err != nil {
				return nil, err
			}
			if err := o.status(sdk.TaskStateWorking, false, toolPart(ev.Agent(), ev.Tool)); err != nil {
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if resp == nil {
		return nil, errors.New("the turn ended without a response")
	}
	return resp, nil
}

// Tool event kinds in a "tool" progress part.
var toolKinds = map[client.ToolEventKind]string{
	client.ToolStarted:          "started",
	client.ToolFinished:         "finished",
	client.ToolApprovalRequired: "approval",
	client.ToolInterrupted:      "interrupted",
}

func toolPart(agent string, te *client.ToolEvent) sdk.Part {
	d := map[string]any{"event": toolKinds[te.Kind], "tool": te.Call.Name, "callId": te.Call.ID}
	if agent != "" {
		d["agent"] = agent
	}
	switch te.Kind {
	case client.ToolStarted, client.ToolApprovalRequired:
		d["arguments"] = cut(te.Call.Arguments, maxShownBytes)
	case client.ToolFinished:
		d["result"] = cut(te.Result.Content, maxShownBytes)
		d["isError"] = te.Result.IsError
		d["elapsedMs"] = te.Elapsed.Milliseconds()
	case client.ToolInterrupted:
		if te.Interrupt != nil {
			d["message"] = cut(te.Interrupt.Message, maxShownBytes)
		}
	}
	return sdk.DataPart{Data: d, Metadata: map[string]any{MetaKind: "tool"}}
}

// pendingID names a pending call: its id, after those of the sub-agent calls leading to it.
func pendingID(c client.PendingCall) string {
	return strings.Join(append(append([]string(nil), c.Path...), c.Call.ID), "/")
}

func pendingViews(st *client.TurnState) []PendingView {
	var vs []PendingView
	for _, pc := range st.Pending() {
		v := PendingView{ID: pendingID(pc), Tool: pc.Call.Name, Agent: pc.Agent}
		if len(pc.Call.Arguments) <= maxShownBytes && json.Valid([]byte(pc.Call.Arguments)) {
			v.Arguments = json.RawMessage(pc.Call.Arguments)
		} else {
			v.Arguments, _ = json.Marshal(cut(pc.Call.Arguments, maxShownBytes))
		}
		switch pc.Status {
		case client.CallApproval:
			v.Reason = "approval"
		case client.CallRunning:
			v.Reason = "running"
		default:
			v.Reason = "interrupt"
			if name, desc := credentialNeeded(pc); name != "" {
				v.Reason, v.Credential, v.Message = "credentials", cut(name, 200), cut(desc, maxShownBytes)
			} else if pc.Interrupt != nil {
				v.Message = cut(pc.Interrupt.Message, maxShownBytes)
				if d := pc.Interrupt.Data; len(d) > 0 && len(d) <= maxDataBytes && json.Valid(d) {
					v.Data = d
				}
			}
		}
		vs = append(vs, v)
	}
	return vs
}

// pendingParts describe what a stopped turn waits for: a text for people, and the pending calls
// as data for programs.
func pendingParts(st *client.TurnState, prefix string) []sdk.Part {
	vs := pendingViews(st)
	var b strings.Builder
	b.WriteString(prefix)
	fmt.Fprintf(&b, "The agent waits for a decision on %d call(s):", len(vs))
	for _, v := range vs {
		fmt.Fprintf(&b, "\n- %s: %s %s", v.ID, v.Tool, cut(string(v.Arguments), 200))
		switch v.Reason {
		case "approval":
			b.WriteString(" needs approval")
		case "running":
			b.WriteString(" was running when its process ended")
		case "credentials":
			fmt.Fprintf(&b, " needs the credential %q", v.Credential)
			if v.Message != "" {
				b.WriteString(": " + cut(v.Message, 500))
			}
		default:
			b.WriteString(" asks: " + cut(v.Message, 500))
			if asksForm(v.Data) {
				b.WriteString(" (its data holds the schema of the answer: give it in a decision {\"id\": ..., \"restart\": true, \"data\": ANSWER})")
			}
		}
	}
	b.WriteString("\nReply \"yes\" or \"no\" to approvals, the answer to a question, or a data part {\"decisions\": [{\"id\": ..., \"approved\": true}]}.")
	for _, v := range vs {
		if v.Reason == "credentials" {
			b.WriteString(" Give credentials in a data part {\"credentials\": {\"NAME\": \"VALUE\"}}.")
			break
		}
	}
	raw, _ := json.Marshal(vs)
	var data []any
	_ = json.Unmarshal(raw, &data)
	return []sdk.Part{
		sdk.TextPart{Text: b.String()},
		sdk.DataPart{Data: map[string]any{"pending": data}, Metadata: map[string]any{MetaKind: "pending"}},
	}
}

// inputText is the text a new task's message gives the turn: its text parts, and its data parts
// as JSON.
func inputText(m *sdk.Message) (string, error) {
	if m == nil {
		return "", errors.New("the message is missing")
	}
	var b strings.Builder
	for _, p := range m.Parts {
		s, ok := partText(p)
		if !ok {
			return "", fmt.Errorf("the message has a %T; this agent reads text and data parts", p)
		}
		if b.Len() > 0 && s != "" {
			b.WriteString("\n")
		}
		b.WriteString(s)
	}
	if b.Len() == 0 {
		return "", errors.New("the message has no text")
	}
	if b.Len() > maxInputBytes {
		return "", fmt.Errorf("the message's text is %d bytes, over the %d this agent reads", b.Len(), maxInputBytes)
	}
	return b.String(), nil
}

// decide reads the message that answers a stopped turn: a data part of decisions, or a text
// that approves ("yes") or refuses ("no") every approval, or answers every question.
func decide(st *client.TurnState, m *sdk.Message, creds map[string]string) ([]client.Decision, error) {
	var ds []CallDecision
	var text strings.Builder
	found := false
	for _, p := range m.Parts {
		var data map[string]any
		switch v := p.(type) {
		case sdk.TextPart:
			text.WriteString(v.Text)
		case *sdk.TextPart:
			text.WriteString(v.Text)
		case sdk.DataPart:
			data = v.Data
		case *sdk.DataPart:
			data = v.Data
		}
		if raw, ok := data["decisions"]; ok {
			b, _ := json.Marshal(raw)
			if err := json.Unmarshal(b, &ds); err != nil {
				return nil, errors.New(`"decisions" is not a list of decisions`)
			}
			found = true
		}
	}
	// A call waiting for a credential the message gives runs again, unless decided otherwise.
	var pending []client.PendingCall
	given := map[string]client.Decision{}
	for _, pc := range st.Pending() {
		name, _ := credentialNeeded(pc)
		switch {
		case name == "":
			pending = append(pending, pc)
		case creds[name] != "":
			given[pendingID(pc)] = pc.Restart("", nil)
		case !found:
			return nil, fmt.Errorf("call %q needs the credential %q: give it in a data part {%q: {%q: ...}}", pendingID(pc), name, CredentialsKey, name)
		default:
			pending = append(pending, pc) // decided by id, or missing
		}
	}
	var out []client.Decision
	var err error
	switch {
	case found:
		out, err = byID(pending, ds, given)
	case len(pending) == 0 && len(given) > 0:
	default:
		out, err = byText(pending, strings.TrimSpace(text.String()))
	}
	if err != nil {
		return nil, err
	}
	for _, d := range given {
		out = append(out, d)
	}
	return out, nil
}

// byID decides the pending calls by the decisions of a data part; a call in auto (given its
// credential, so run again) may not be decided there too.
func byID(pending []client.PendingCall, ds []CallDecision, auto map[string]client.Decision) ([]client.Decision, error) {
	for _, d := range ds {
		if _, ok := auto[d.ID]; ok {
			return nil, fmt.Errorf("call %q is given its credential and a decision: give one of them", d.ID)
		}
	}
	return answers.Match("call", pending, pendingID, ds, func(d CallDecision) string { return d.ID }, callDecision)
}

func callDecision(pc client.PendingCall, d CallDecision) (client.Decision, error) {
	args, err := answers.Arguments(d.Arguments)
	if err != nil {
		return client.Decision{}, err
	}
	switch {
	case d.Approved != nil && pc.Status == client.CallApproval:
		if !*d.Approved {
			return pc.Reject(d.Reason), nil
		}
		if args != "" {
			return pc.ApproveWith(args), nil
		}
		return pc.Approve(), nil
	case d.Approved != nil && !*d.Approved:
		return pc.Reject(d.Reason), nil
	case d.Answer != nil:
		return pc.Answer(*d.Answer), nil
	case d.Restart:
		return pc.Restart(args, d.Data), nil
	case pc.Status == client.CallApproval:
		return client.Decision{}, errors.New(`an approval needs "approved"`)
	}
	return client.Decision{}, errors.New(`needs "answer", "restart" or "approved": false`)
}

var (
	yesWords = map[string]bool{"yes": true, "y": true, "approve": true, "approved": true, "ok": true, "allow": true}
	noWords  = map[string]bool{"no": true, "n": true, "reject": true, "rejected": true, "deny": true, "denied": true}
)

func byText(pending []client.PendingCall, text string) ([]client.Decision, error) {
	if text == "" {
		return nil, errors.New("the reply has neither text nor decisions")
	}
	word := strings.ToLower(strings.TrimRight(text, ".! "))
	var out []client.Decision
	for _, pc := range pending {
		switch pc.Status {
		case client.CallApproval:
			switch {
			case yesWords[word]:
				out = append(out, pc.Approve())
			case noWords[word]:
				out = append(out, pc.Reject(""))
			default:
				return nil, fmt.Errorf("call %q waits for approval: reply yes or no", pendingID(pc))
			}
		case client.CallInterrupted:
			if pc.Interrupt != nil && asksForm(pc.Interrupt.Data) {
				return nil, fmt.Errorf("call %q asks for an answer that follows a schema (in its data): reply with a decision {\"id\": %q, \"restart\": true, \"data\": ANSWER}", pendingID(pc), pendingID(pc))
			}
			if yesWords[word] || noWords[word] {
				if hasApproval(pending) {
					return nil, fmt.Errorf("call %q asks a question a yes or no for approvals does not answer: reply with decisions", pendingID(pc))
				}
			}
			out = append(out, pc.Answer(text))
		default:
			return nil, fmt.Errorf("call %q was running when its process ended: reply with a decision for it", pendingID(pc))
		}
	}
	return out, nil
}

func hasApproval(pending []client.PendingCall) bool {
	for _, pc := range pending {
		if pc.Status == client.CallApproval {
			return true
		}
	}
	return false
}

// cut returns s cut to at most n bytes, on a rune boundary, saying so.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "… [cut]"
}

// splitText splits s into pieces of at most n bytes, on rune boundaries; one piece for "".
func splitText(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return append(out, s)
}

// asksForm reports whether an interrupt's data is a question whose answer follows a schema or
// is an action, as an MCP server's elicitation (mcp.Elicitation) is: a text reply cannot answer
// it, since the tool runs again with the answer rather than taking the text as its result.
func asksForm(data json.RawMessage) bool {
	if len(data) == 0 {
		return false
	}
	var q struct {
		RequestedSchema json.RawMessage `json:"requestedSchema"`
		Mode            string          `json:"mode"`
	}
	return json.Unmarshal(data, &q) == nil && (len(q.RequestedSchema) > 0 || q.Mode == "url")
}
