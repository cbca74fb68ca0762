// Package a2a connects wield to agents over the Agent2Agent protocol (A2A), on the official Go
// SDK (github.com/a2aproject/a2a-go v0.3.3, protocol version 0.3), both ways:
//
//   - [RemoteAgent]: a remote agent becomes a [tool.Tool] whose calls are A2A tasks, and a
//     remote task that needs input stops the caller's turn as a wield interrupt that its resume
//     answers.
//   - [Server]: a client is served as an A2A agent, each task one of its turns; a turn that stops
//     for approval or an interrupt is a task in input-required, and the next message on the task
//     decides its pending calls and resumes it. Tasks are kept in a memory.TurnRepository, beside
//     the turns, so that a waiting task survives a restart.
package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// Input is the input of a remote agent's tool: the message for the agent.
type Input struct {
	Input string `json:"input" jsonschema:"the task for the agent, with everything it needs to know"`
}

// Pending is the data of the interrupt a remote agent's tool raises when the remote task stops in
// input-required or auth-required: the task to continue, and what the agent asked.
type Pending struct {
	TaskID    string `json:"taskId"`
	ContextID string `json:"contextId"`
	State     string `json:"state"`
	Question  string `json:"question,omitempty"`
}

// Answer is the data a resume gives a remote agent's tool (toolcall's resumption data): the reply
// sent on the stopped remote task.
type Answer struct {
	Text string `json:"text"`
}

// Config configures a remote agent's tool. Either Card or CardURL is required.
type Config struct {
	// Card is the agent's card; when nil, CardURL is resolved.
	Card *sdk.AgentCard
	// CardURL is the agent's base URL (its card is served at /.well-known/agent-card.json).
	CardURL string
	// Name is the tool's name; the card's name (made a valid tool name) when empty.
	Name string
	// Description is the tool's description; the card's when empty.
	Description string
	// HTTPClient carries the requests; a client with Timeout when nil.
	HTTPClient *http.Client
	// Timeout bounds one call of the tool (the remote task up to its answer); 5 minutes when zero.
	Timeout time.Duration
}

// MaxAnswerBytes bounds the text a remote agent's answer may carry into the caller's turn.
const MaxAnswerBytes = 1 << 20

// RemoteAgent returns a tool whose calls send a message to the remote agent described by cfg and
// return its answer (the final message's text, or the task's status message and artifacts).
func RemoteAgent(ctx context.Context, cfg Config) (tool.Tool, error) {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: timeout}
	}
	card := cfg.Card
	if card == nil {
		if cfg.CardURL == "" {
			return nil, errors.New("a2a: remote agent: neither a card nor a card URL")
		}
		c, err := agentcard.NewResolver(hc).Resolve(ctx, cfg.CardURL)
		if err != nil {
			return nil, fmt.Errorf("a2a: agent card %s: %w", cfg.CardURL, err)
		}
		card = c
	}
	if card.URL == "" {
		return nil, fmt.Errorf("a2a: agent card %q has no URL", card.Name)
	}
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(hc))
	if err != nil {
		return nil, fmt.Errorf("a2a: agent %q: %w", card.Name, err)
	}
	name := cfg.Name
	if name == "" {
		name = toolName(card.Name)
	}
	desc := cfg.Description
	if desc == "" {
		desc = card.Description
	}
	r := &remote{c: c, name: name, timeout: timeout}
	t, err := tool.Func(name, desc, r.call)
	if err != nil {
		return nil, err
	}
	return &remoteTool{Tool: t, r: r}, nil
}

// remoteTool is the tool of RemoteAgent; it keeps its remote for the package's tests.
type remoteTool struct {
	tool.Tool
	r *remote
}

type remote struct {
	c       *a2aclient.Client
	name    string
	timeout time.Duration
}

func (r *remote) call(ctx context.Context, in Input) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if res, ok := toolcall.Resumed(ctx); ok && res.Interrupt != nil {
		var p Pending
		if err := json.Unmarshal(res.Interrupt.Data, &p); err != nil || p.TaskID == "" {
			return "", fmt.Errorf("a2a: agent %s: resumed without its task: %v", r.name, err)
		}
		var a Answer
		if len(res.Data) > 0 {
			if err := jsonUnmarshal(res.Data, &a); err != nil {
				return "", fmt.Errorf("a2a: agent %s: answer: %w", r.name, err)
			}
		}
		if a.Text == "" {
			return "", fmt.Errorf("a2a: agent %s: resumed without an answer for task %s", r.name, p.TaskID)
		}
		return r.send(ctx, &p, a.Text)
	}
	return r.send(ctx, nil, in.Input)
}

// send sends text to the agent, on the stopped task p when p is not nil.
func (r *remote) send(ctx context.Context, p *Pending, text string) (string, error) {
	msg := sdk.NewMessage(sdk.MessageRoleUser, sdk.TextPart{Text: text})
	if p != nil {
		msg.TaskID = sdk.TaskID(p.TaskID)
		msg.ContextID = p.ContextID
	}
	out, err := r.c.SendMessage(ctx, &sdk.MessageSendParams{Message: msg})
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("a2a: agent %s: %w", r.name, ctx.Err())
		}
		return "", fmt.Errorf("a2a: agent %s: %w", r.name, err)
	}
	switch v := out.(type) {
	case *sdk.Message:
		return capText(partsText(v.Parts)), nil
	case *sdk.Task:
		return r.taskAnswer(v)
	default:
		return "", fmt.Errorf("a2a: agent %s: unexpected result %T", r.name, out)
	}
}

func (r *remote) taskAnswer(t *sdk.Task) (string, error) {
	var status string
	if t.Status.Message != nil {
		status = partsText(t.Status.Message.Parts)
	}
	switch t.Status.State {
	case sdk.TaskStateInputRequired, sdk.TaskStateAuthRequired:
		q := status
		if q == "" {
			q = fmt.Sprintf("agent %s needs %s", r.name, t.Status.State)
		}
		return "", toolcall.InterruptWith(q, Pending{TaskID: string(t.ID), ContextID: t.ContextID, State: string(t.Status.State), Question: status})
	case sdk.TaskStateFailed, sdk.TaskStateRejected, sdk.TaskStateCanceled:
		return "", fmt.Errorf("a2a: agent %s: task %s %s: %s", r.name, t.ID, t.Status.State, status)
	}
	var b strings.Builder
	b.WriteString(status)
	for _, a := range t.Artifacts {
		if s := partsText(a.Parts); s != "" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(s)
		}
	}
	return capText(b.String()), nil
}

func partsText(ps sdk.ContentParts) string {
	var b strings.Builder
	for _, p := range ps {
		var s string
		switch v := p.(type) {
		case sdk.TextPart:
			s = v.Text
		case *sdk.TextPart:
			s = v.Text
		case sdk.DataPart:
			s = fmt.Sprint(v.Data)
		case *sdk.DataPart:
			s = fmt.Sprint(v.Data)
		}
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(s)
	}
	return b.String()
}

func capText(s string) string {
	if len(s) > MaxAnswerBytes {
		return s[:MaxAnswerBytes] + "\n[answer truncated]"
	}
	return s
}

func toolName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	if b.Len() == 0 {
		return "remote_agent"
	}
	return b.String()
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
