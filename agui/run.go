package agui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/answers"
)

// Interrupt reasons, in an interrupt's reason field.
const (
	// ReasonApproval: a tool call waits for approval. Answer with a payload
	// {"approved": bool, "arguments": {...} (optional, edited), "reason": "..." (when refused)}.
	ReasonApproval = "tool_approval"
	// ReasonInterrupt: a tool asked something. Answer with {"answer": "..."} (the call's result)
	// or {"restart": true, "arguments": {...}, "data": ...} (run the tool again with data).
	ReasonInterrupt = "tool_interrupt"
)

// spec builds the turn of a run: a resumed turn when the run answers interrupts, else a new
// turn with the run's last user message. prior is the thread's stopped turn, if any.
func (h *Handler) spec(ctx context.Context, in *runInput) (*client.Spec, *client.TurnState, error) {
	prior, err := h.loadPending(ctx, in.ThreadID)
	if err != nil {
		h.cfg.Logger.ErrorContext(ctx, "agui: cannot load the thread's stopped turn", "thread", in.ThreadID, "error", err)
		return nil, nil, errors.New("cannot load the thread's stopped turn")
	}
	c := h.cfg.Client
	if len(in.Resume) > 0 {
		if prior == nil {
			return nil, nil, errors.New("the run answers interrupts, but the thread has no stopped turn")
		}
		decisions, err := decide(prior, in.Resume)
		if err != nil {
			return nil, nil, err
		}
		return c.Resume(prior, decisions...).Param(client.ParamConversationID, in.ThreadID), prior, nil
	}
	if len(in.Messages) == 0 {
		return nil, nil, errors.New("the run has no message")
	}
	last := in.Messages[len(in.Messages)-1]
	if last.Role != "user" {
		return nil, nil, errors.New("the run's last message is not a user message")
	}
	text, err := userText(last.Content)
	if err != nil {
		return nil, nil, err
	}
	return c.Prompt(text).Param(client.ParamConversationID, in.ThreadID), prior, nil
}

// userText reads a user message's content: a string, or an array of parts of which the text
// parts are read.
func userText(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("the user message's content is neither text nor parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "text" {
			return "", fmt.Errorf("the user message has a %q part; only text is accepted", p.Type)
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

func (h *Handler) loadPending(ctx context.Context, thread string) (*client.TurnState, error) {
	if h.cfg.Turns != nil {
		st, err := h.cfg.Turns.LoadTurn(ctx, thread)
		if err != nil || st == nil || len(st.Pending()) == 0 {
			return nil, err
		}
		return st, nil
	}
	v, ok := h.pending.Load(thread)
	if !ok {
		return nil, nil
	}
	return v.(*client.TurnState), nil
}

// keepPending remembers the thread's stopped turn, or forgets it when the turn ended (the
// client's turn store, when there is one, does this itself).
func (h *Handler) keepPending(thread string, st *client.TurnState) {
	if h.cfg.Turns != nil {
		return
	}
	if st == nil {
		h.pending.Delete(thread)
		return
	}
	h.pending.Store(thread, st)
}

// interruptID names a pending call: its id, after those of the sub-agent calls leading to it.
func interruptID(c client.PendingCall) string {
	return strings.Join(append(append([]string(nil), c.Path...), c.Call.ID), "/")
}

// decide turns the run's resume entries into decisions for the stopped turn's calls; every
// pending call needs an answer.
func decide(st *client.TurnState, entries []resumeEntry) ([]client.Decision, error) {
	return answers.Match("interrupt", st.Pending(), interruptID, entries, func(e resumeEntry) string { return e.InterruptID }, decision)
}

type answer struct {
	Approved  *bool           `json:"approved"`
	Arguments json.RawMessage `json:"arguments"`
	Reason    string          `json:"reason"`
	Answer    *string         `json:"answer"`
	Restart   bool            `json:"restart"`
	Data      json.RawMessage `json:"data"`
}

func decision(pc client.PendingCall, e resumeEntry) (client.Decision, error) {
	if el := elicitation(pc); el != nil && (e.Status == "resolved" || e.Status == "cancelled") {
		return elicitationAnswer(pc, el, e.Status, e.Payload)
	}
	switch e.Status {
	case "cancelled":
		return pc.Reject(""), nil
	case "resolved":
	default:
		return client.Decision{}, fmt.Errorf("status %q is neither resolved nor cancelled", e.Status)
	}
	var a answer
	if len(e.Payload) > 0 {
		if err := json.Unmarshal(e.Payload, &a); err != nil {
			return client.Decision{}, errors.New("the payload is not an answer object")
		}
	}
	args, err := answers.Arguments(a.Arguments)
	if err != nil {
		return client.Decision{}, err
	}
	switch {
	case pc.Status == client.CallApproval:
		if a.Approved == nil {
			return client.Decision{}, errors.New(`the payload needs "approved"`)
		}
		if !*a.Approved {
			return pc.Reject(a.Reason), nil
		}
		if args != "" {
			return pc.ApproveWith(args), nil
		}
		return pc.Approve(), nil
	case a.Answer != nil:
		return pc.Answer(*a.Answer), nil
	case a.Restart:
		return pc.Restart(args, a.Data), nil
	}
	return client.Decision{}, errors.New(`the payload needs "answer" or "restart"`)
}

// pendingView is a pending call as the run's state shows it and its interrupt describes it.
type pendingView struct {
	ID         string          `json:"id"`
	ToolCallID string          `json:"toolCallId"`
	Tool       string          `json:"tool"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	Agent      string          `json:"agent,omitempty"`
	Reason     string          `json:"reason"`
	Message    string          `json:"message,omitempty"`
	// An MCP server's question (ReasonElicitation): its name, the form's or the URL's mode, the
	// URL, the requested schema, and why the schema cannot be answered with content, if so.
	Server          string          `json:"server,omitempty"`
	Mode            string          `json:"mode,omitempty"`
	URL             string          `json:"url,omitempty"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	SchemaError     string          `json:"schemaError,omitempty"`

	elicitation *elicitationData
}

func pendingViews(st *client.TurnState) []pendingView {
	out := []pendingView{}
	for _, pc := range st.Pending() {
		v := pendingView{ID: interruptID(pc), ToolCallID: callID(pc.Agent, pc.Call.ID), Tool: pc.Call.Name, Agent: pc.Agent, Reason: ReasonApproval}
		if json.Valid([]byte(pc.Call.Arguments)) {
			v.Arguments = json.RawMessage(pc.Call.Arguments)
		}
		if e := elicitation(pc); e != nil {
			v.Reason, v.Message, v.Server, v.Mode, v.URL, v.elicitation = ReasonElicitation, e.Message, e.Server, e.Mode, e.URL, e
			if e.Mode != "url" && len(e.RequestedSchema) > 0 {
				if _, err := elicitationSchema(e.RequestedSchema); err != nil {
					v.SchemaError = err.Error() // only decline and cancel can answer
				} else {
					v.RequestedSchema = e.RequestedSchema
				}
			}
		} else if pc.Status != client.CallApproval {
			v.Reason = ReasonInterrupt
			if pc.Interrupt != nil {
				v.Message = pc.Interrupt.Message
			}
		} else {
			v.Message = fmt.Sprintf("Run %s?", pc.Call.Name)
		}
		out = append(out, v)
	}
	return out
}

var (
	approvalSchema  = json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"},"arguments":{"type":"object"},"reason":{"type":"string"}},"required":["approved"]}`)
	interruptSchema = json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"},"restart":{"type":"boolean"},"arguments":{"type":"object"},"data":{}}}`)
)

// Interrupt is an AG-UI interrupt: a pending call of a stopped turn as the run that stopped
// describes it in its RUN_FINISHED outcome.
type Interrupt struct {
	ID             string         `json:"id"`
	Reason         string         `json:"reason"`
	Message        string         `json:"message,omitempty"`
	ToolCallID     string         `json:"toolCallId"`
	ResponseSchema any            `json:"responseSchema"`
	Metadata       map[string]any `json:"metadata"`
}

// Interrupts returns the interrupts of st's pending calls as a run that stopped with st ended
// with them, so that a front end showing a stored stopped turn answers them in a resume as it
// would answer the run's.
func Interrupts(st *client.TurnState) []Interrupt {
	if st == nil {
		return []Interrupt{}
	}
	return interruptsOf(pendingViews(st))
}

func interruptsOf(views []pendingView) []Interrupt {
	out := []Interrupt{}
	for _, v := range views {
		in := Interrupt{ID: v.ID, Reason: v.Reason, Message: v.Message, ToolCallID: v.ToolCallID,
			Metadata: map[string]any{"tool": v.Tool, "arguments": v.Arguments, "agent": v.Agent}}
		switch {
		case v.Reason == ReasonApproval:
			in.ResponseSchema = approvalSchema
		case v.elicitation != nil:
			in.Metadata["server"], in.Metadata["mode"] = v.Server, v.Mode
			if v.URL != "" {
				in.Metadata["url"] = v.URL
			}
			if v.RequestedSchema != nil {
				in.Metadata["requestedSchema"] = v.RequestedSchema
				in.ResponseSchema = answerSchema(v.elicitation)
			} else {
				in.Metadata["schemaError"] = v.SchemaError
				in.ResponseSchema = declineSchema
			}
		default:
			in.ResponseSchema = interruptSchema
		}
		out = append(out, in)
	}
	return out
}
