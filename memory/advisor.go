package memory

import (
	"context"
	"fmt"
	"iter"
	"strings"

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

// Advisor gives a client chat memory: before each model call it loads the conversation named
// by the request's [client.ParamConversationID] parameter and sends it before the new
// messages; after the call it stores the new messages and the answer, in one append.
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

// prepare loads the conversation and returns the request to send and the new messages to store.
func (a *Advisor) prepare(ctx context.Context, req *client.Request) (id string, out *client.Request, fresh []chat.Message, err error) {
	id = a.conversation(req)
	var system []chat.Message
	for _, m := range req.Prompt.Messages {
		if m.Role == chat.RoleSystem {
			system = append(system, m)
		} else {
			fresh = append(fresh, m)
		}
	}
	hist, err := a.mem.Get(ctx, id)
	if err != nil {
		return "", nil, nil, fmt.Errorf("memory: loading conversation %q: %w", id, err)
	}
	msgs := make([]chat.Message, 0, len(system)+len(hist)+len(fresh))
	msgs = append(msgs, system...)
	for _, m := range hist {
		if m.Role == chat.RoleSystem && len(system) > 0 {
			continue // the request's system prompt wins over a stored one
		}
		msgs = append(msgs, m)
	}
	msgs = append(msgs, fresh...)
	return id, req.WithMessages(msgs), fresh, nil
}

// store appends the new messages and the answer.
func (a *Advisor) store(ctx context.Context, id string, fresh []chat.Message, resp *client.Response) error {
	msgs := fresh
	if resp != nil && resp.Chat != nil && len(resp.Chat.Generations) > 0 {
		msgs = append(msgs[:len(msgs):len(msgs)], answerMessage(resp.Chat))
	}
	if err := a.mem.Add(ctx, id, msgs...); err != nil {
		return fmt.Errorf("memory: storing conversation %q: %w", id, err)
	}
	return nil
}

// Call implements [client.CallAdvisor].
func (a *Advisor) Call(ctx context.Context, req *client.Request, next client.CallNext) (*client.Response, error) {
	id, out, fresh, err := a.prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := next(ctx, out)
	if err != nil {
		return nil, err
	}
	if err := a.store(ctx, id, fresh, resp); err != nil {
		return nil, err
	}
	return resp, nil
}

// Stream implements [client.StreamAdvisor]; the answer is stored when the stream's final event
// arrives, before it is passed on.
func (a *Advisor) Stream(ctx context.Context, req *client.Request, next client.StreamNext) iter.Seq2[*client.Event, error] {
	return func(yield func(*client.Event, error) bool) {
		id, out, fresh, err := a.prepare(ctx, req)
		if err != nil {
			yield(nil, err)
			return
		}
		for ev, err := range next(ctx, out) {
			if err != nil {
				yield(nil, err)
				return
			}
			if ev.Done != nil {
				if err := a.store(ctx, id, fresh, ev.Done); err != nil {
					yield(nil, err)
					return
				}
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// answerMessage is the assistant message of a response. Some providers split one answer into
// generations (text in one, tool calls in another); they are joined as the tool loop joins them,
// so that stored calls stay with the text and reasoning around them.
func answerMessage(resp *chat.Response) chat.Message {
	if len(resp.Generations) == 1 {
		msg := resp.Generations[0].Message
		msg.Role = chat.RoleAssistant
		return msg
	}
	msg := chat.Message{Role: chat.RoleAssistant, ToolCalls: resp.ToolCalls()}
	var texts []string
	for _, g := range resp.Generations {
		if g.Message.Content != "" {
			texts = append(texts, g.Message.Content)
		}
		msg.Reasoning = append(msg.Reasoning, g.Message.Reasoning...)
	}
	msg.Content = strings.Join(texts, "\n")
	return msg
}
