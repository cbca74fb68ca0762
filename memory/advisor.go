package memory

import (
	"context"
	"fmt"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
)

// DefaultConversationID is the conversation an [Advisor] uses for requests without a
// [client.ParamConversationID] parameter, unless its config names another.
const DefaultConversationID = "default"

// AdvisorConfig configures an [Advisor]. The zero value is usable.
type AdvisorConfig struct {
	// Order places the advisor in the chain; zero means [client.OrderMemory], outside the tool
	// loop. An order above [client.OrderToolCalling] puts it inside the loop.
	Order int
	// ConversationID is used when a request has no [client.ParamConversationID]; empty means
	// [DefaultConversationID].
	ConversationID string
}

// Advisor gives a client chat memory. Before the rest of the chain runs it stores the request's
// new messages in the conversation named by the [client.ParamConversationID] parameter, then
// sends the conversation (as the Memory's Get returns it, after the request's system messages);
// after, it stores the answer. A call that fails leaves the new messages stored without an
// answer, as in any chat whose reply was lost.
//
// Outside the tool loop (the default order) it runs once per turn, so it stores the user's
// message and the final answer only. Inside the loop it runs on every iteration and stores
// every message, tool calls and tool results included; the client then turns the loop's own
// history off, since the advisor supplies it. A return-direct turn ends without a last model
// call, so inside the loop its tool results are not stored; [Trim] drops the unanswered call
// from later windows.
//
// System messages of the request are sent first and never stored.
type Advisor struct {
	mem   Memory
	order int
	id    string
}

// NewAdvisor returns a memory advisor over m.
func NewAdvisor(m Memory, cfg AdvisorConfig) *Advisor {
	a := &Advisor{mem: m, order: cfg.Order, id: cfg.ConversationID}
	if a.order == 0 {
		a.order = client.OrderMemory
	}
	if a.id == "" {
		a.id = DefaultConversationID
	}
	return a
}

// Order implements [client.Advisor].
func (a *Advisor) Order() int { return a.order }

// KeepsHistory implements [client.HistoryKeeper].
func (a *Advisor) KeepsHistory() bool { return true }

func (a *Advisor) conversation(req *client.Request) string {
	if id, ok := req.StringParam(client.ParamConversationID); ok {
		return id
	}
	return a.id
}

// prepare stores the new messages and returns the request with the conversation.
func (a *Advisor) prepare(ctx context.Context, req *client.Request) (id string, out *client.Request, err error) {
	id = a.conversation(req)
	// Checked first, so a hostile id never reaches an error text.
	if err := ValidateConversationID(id); err != nil {
		return "", nil, fmt.Errorf("memory: %w", err)
	}
	var system, fresh []chat.Message
	for _, m := range req.Prompt.Messages {
		if m.Role == chat.RoleSystem {
			system = append(system, m)
		} else {
			fresh = append(fresh, m)
		}
	}
	// Stored before loading, so that the window sees new tool results next to their call.
	if err := a.mem.Add(ctx, id, fresh...); err != nil {
		return "", nil, fmt.Errorf("memory: storing conversation %q: %w", id, err)
	}
	hist, err := a.mem.Get(ctx, id)
	if err != nil {
		return "", nil, fmt.Errorf("memory: loading conversation %q: %w", id, err)
	}
	msgs := make([]chat.Message, 0, len(system)+len(hist))
	msgs = append(msgs, system...)
	for _, m := range hist {
		if m.Role == chat.RoleSystem && len(system) > 0 {
			continue // the request's system prompt wins over a stored one
		}
		msgs = append(msgs, m)
	}
	return id, req.WithMessages(msgs), nil
}

// store appends the answer.
func (a *Advisor) store(ctx context.Context, id string, resp *client.Response) error {
	if resp == nil || resp.Chat == nil || len(resp.Chat.Generations) == 0 {
		return nil
	}
	if err := a.mem.Add(ctx, id, resp.Chat.Message()); err != nil {
		return fmt.Errorf("memory: storing conversation %q: %w", id, err)
	}
	return nil
}

// Advise implements [client.Advisor]: it loads the conversation before the rest of the chain
// runs and stores the turn's new messages after it, for calls and streams alike.
func (a *Advisor) Advise(ctx context.Context, req *client.Request, next client.Next) (*client.Response, error) {
	id, out, err := a.prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := next(ctx, out)
	if err != nil {
		return nil, err
	}
	if err := a.store(ctx, id, resp); err != nil {
		return nil, err
	}
	return resp, nil
}
