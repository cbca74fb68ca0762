package memory

import (
	"context"
	"errors"
	"fmt"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/engine"
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
// A turn that does not end with an answer keeps what it did: outside the loop, when a turn stops
// for approval or an interrupt ([client.Response.Pending]) or fails after a tool round
// ([client.TurnError]), the advisor stores the messages of its completed rounds, so that a later
// turn knows which tools ran; a resumed turn ([client.Request.Resuming]) then stores every
// message it adds, so that the conversation's calls and results stay paired.
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
	if req.Turn != nil && req.Turn.Resumed() && len(fresh) > 0 {
		// Inside the loop, a resumed turn's first request may carry tool results stored
		// already, by the attempt that failed after its round.
		if fresh, err = a.unstored(ctx, id, fresh); err != nil {
			return "", nil, err
		}
	}
	// Stored before loading, so that the window sees new tool results next to their call.
	if err := a.add(ctx, id, fresh); err != nil {
		return "", nil, fmt.Errorf("memory: storing conversation %q: %w", id, err)
	}
	hist, err := a.get(ctx, id)
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

// unstored returns fresh without the tool messages whose results the conversation holds already.
// Only what follows the conversation's last user message is the resumed turn's: a model that
// numbers its calls per response reuses ids, and an earlier turn's result of the same id must
// not pass for this turn's.
func (a *Advisor) unstored(ctx context.Context, id string, fresh []chat.Message) ([]chat.Message, error) {
	hist, err := a.get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("memory: loading conversation %q: %w", id, err)
	}
	for i := len(hist) - 1; i >= 0; i-- {
		if hist[i].Role == chat.RoleUser {
			hist = hist[i+1:]
			break
		}
	}
	stored := map[string]bool{}
	for _, m := range hist {
		for _, r := range m.ToolResults {
			if r.ID != "" {
				stored[r.ID] = true
			}
		}
	}
	out := fresh[:0:0]
	for _, m := range fresh {
		dup := m.Role == chat.RoleTool && len(m.ToolResults) > 0
		for _, r := range m.ToolResults {
			dup = dup && stored[r.ID]
		}
		if !dup {
			out = append(out, m)
		}
	}
	return out, nil
}

// store appends the answer, or everything the turn added when it stopped or was resumed.
func (a *Advisor) store(ctx context.Context, id string, req *client.Request, resp *client.Response) error {
	if resp == nil {
		return nil
	}
	var msgs []chat.Message
	switch {
	case resp.Pending != nil || req.Resuming():
		msgs = resp.Messages
	case resp.Chat != nil && len(resp.Chat.Generations) > 0:
		msgs = []chat.Message{resp.Chat.Message()}
	}
	if len(msgs) == 0 {
		return nil
	}
	if err := a.add(ctx, id, msgs); err != nil {
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
		// The rounds a failed turn completed are kept, so that the next turn does not run
		// their calls again.
		var te *client.TurnError
		if errors.As(err, &te) && len(te.Messages) > 0 {
			if serr := a.add(context.WithoutCancel(ctx), id, te.Messages); serr != nil {
				return nil, errors.Join(err, fmt.Errorf("memory: storing conversation %q: %w", id, serr))
			}
		}
		return nil, err
	}
	if err := a.store(ctx, id, req, resp); err != nil {
		return nil, err
	}
	return resp, nil
}

// get loads the conversation: in a durable turn as a recorded step ([engine.Effect]).
func (a *Advisor) get(ctx context.Context, id string) ([]chat.Message, error) {
	if engine.From(ctx) == nil {
		return a.mem.Get(ctx, id)
	}
	return engine.Effect(ctx, "memory.get", func(ctx context.Context) ([]chat.Message, error) { return a.mem.Get(ctx, id) })
}

// add stores msgs: in a durable turn as a recorded step, which the engine runs again when its
// result was lost (a local activity runs anew after a crash, not as a counted retry), so it
// first checks whether the conversation ends with them already ([EndsWith]).
func (a *Advisor) add(ctx context.Context, id string, msgs []chat.Message) error {
	if engine.From(ctx) == nil || len(msgs) == 0 {
		return a.mem.Add(ctx, id, msgs...)
	}
	return engine.Do(ctx, "memory.add", func(ctx context.Context) error {
		if hist, err := a.mem.Get(ctx, id); err == nil && EndsWith(hist, msgs) {
			return nil
		}
		return a.mem.Add(ctx, id, msgs...)
	})
}
