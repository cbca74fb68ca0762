package memory

import (
	"context"
	"errors"

	"github.com/wield-ai/wield/chat"
)

// Memory is what an application or the memory advisor uses to keep a conversation: add
// messages, get the messages to send to the model next, clear the conversation. Spring AI's
// ChatMemory maps onto it one to one.
type Memory interface {
	// Add appends msgs to the conversation.
	Add(ctx context.Context, conversationID string, msgs ...chat.Message) error
	// Get returns the messages to send to the model for the conversation.
	Get(ctx context.Context, conversationID string) ([]chat.Message, error)
	// Clear forgets the conversation.
	Clear(ctx context.Context, conversationID string) error
}

// DefaultWindowSize is the window of [NewWindow] when given a size below 1.
const DefaultWindowSize = 20

// ErrNoConversationID is returned for an empty conversation id.
var ErrNoConversationID = errors.New("memory: empty conversation id")

// Window is a [Memory] that stores every message in a [Repository] and gives the model the most
// recent ones: at most Size messages, cut by [Trim] so that a tool call is never separated from
// its results.
//
// Add only appends, so concurrent writers never lose each other's messages; the repository keeps
// the whole conversation (clear it, or prune it through the repository, when it is no longer
// needed).
type Window struct {
	repo Repository
	size int
}

// NewWindow returns a window of size messages over repo; a nil repo is a new [InMemory], a size
// below 1 is [DefaultWindowSize].
func NewWindow(repo Repository, size int) *Window {
	if repo == nil {
		repo = NewInMemory()
	}
	if size < 1 {
		size = DefaultWindowSize
	}
	return &Window{repo: repo, size: size}
}

// Repository returns the repository the window stores messages in.
func (w *Window) Repository() Repository { return w.repo }

// Size returns the maximum number of messages Get returns.
func (w *Window) Size() int { return w.size }

// Add appends msgs to the conversation in one atomic append.
func (w *Window) Add(ctx context.Context, conversationID string, msgs ...chat.Message) error {
	if conversationID == "" {
		return ErrNoConversationID
	}
	if len(msgs) == 0 {
		return nil
	}
	return w.repo.Append(ctx, conversationID, msgs...)
}

// Get returns the most recent messages of the conversation, trimmed by [Trim].
func (w *Window) Get(ctx context.Context, conversationID string) ([]chat.Message, error) {
	if conversationID == "" {
		return nil, ErrNoConversationID
	}
	msgs, err := w.repo.Messages(ctx, conversationID)
	if err != nil {
		return nil, err
	}
	return Trim(msgs, w.size), nil
}

// Clear deletes the conversation from the repository.
func (w *Window) Clear(ctx context.Context, conversationID string) error {
	if conversationID == "" {
		return ErrNoConversationID
	}
	return w.repo.Delete(ctx, conversationID)
}

// Trim returns at most the last n messages of a conversation such that a model accepts them as
// history:
//   - an assistant message with tool calls and the tool messages answering it stay together: the
//     window starts before the call or after its results, so it never starts with a tool result
//     whose call was cut off;
//   - tool calls that no following tool message answers (a turn that ended without storing its
//     results) are dropped, and the assistant message with them if it has no text;
//   - tool messages that answer no call are dropped;
//   - the most recent system message, if any, is kept at the front and counts toward n.
//
// Trim never returns more than n messages, but may return fewer when the cut falls inside a
// tool-call group. The result shares no slices with msgs that Trim changed; n < 1 returns nil.
func Trim(msgs []chat.Message, n int) []chat.Message {
	if n < 1 || len(msgs) == 0 {
		return nil
	}
	// Repair first, so that counting sees only what will be sent.
	var system *chat.Message
	body := make([]chat.Message, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch {
		case m.Role == chat.RoleSystem:
			system = &msgs[i]
		case m.Role == chat.RoleTool:
			// Reached only for tool messages not consumed by a call group: orphans.
		case m.Role == chat.RoleAssistant && len(m.ToolCalls) > 0:
			j := i + 1
			answered := map[string]bool{}
			for j < len(msgs) && msgs[j].Role == chat.RoleTool {
				for _, r := range msgs[j].ToolResults {
					answered[r.ID] = true
				}
				j++
			}
			complete := j > i+1
			for _, c := range m.ToolCalls {
				if !answered[c.ID] {
					complete = false
				}
			}
			if complete {
				body = append(body, msgs[i:j]...)
			} else if m.Content != "" {
				m.ToolCalls = nil
				body = append(body, m)
			}
			i = j - 1
		default:
			body = append(body, m)
		}
	}
	limit := n
	if system != nil {
		limit--
	}
	start := max(len(body)-limit, 0)
	// Never start inside a call group: skip its tool results.
	for start < len(body) && body[start].Role == chat.RoleTool {
		start++
	}
	out := make([]chat.Message, 0, len(body)-start+1)
	if system != nil {
		out = append(out, *system)
	}
	return append(out, body[start:]...)
}
