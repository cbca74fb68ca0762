package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/toolresult"
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

// ErrMessageTooLarge is wrapped by the error of a [Window.Add] that a message larger than the
// window's [MaxMessageBytes] refused; nothing of that Add was stored.
var ErrMessageTooLarge = errors.New("memory: message too large")

// Window is a [Memory] that stores every message in a [Repository] and gives the model the most
// recent ones: at most Size messages, cut by [Trim] so that a tool call is never separated from
// its results.
//
// Add only appends, so concurrent writers never lose each other's messages; the repository keeps
// the whole conversation (clear it, or prune it through the repository, when it is no longer
// needed). Get reads only the end of the conversation ([Repository.Last]), so its cost does not
// grow with the conversation's length.
type Window struct {
	repo     Repository
	size     int
	maxBytes int
}

// WindowOption configures a [Window] made by [NewWindow].
type WindowOption func(*Window)

// MaxMessageBytes caps the size of each message a [Window] stores, measured as its JSON
// encoding (what the SQL repositories store): an Add with a larger message fails with
// [ErrMessageTooLarge] and stores nothing. A limit below 1 means no cap, the default. A cap
// keeps one huge tool result or pasted file from being stored and then sent with every later
// turn.
//
// A tool message over the cap is stored with its largest results replaced, until it fits, by
// error results that say how large they were: its calls have run and must keep an answer, and
// failing the Add would fail every retry of the turn. Only a tool message that cannot fit even
// so fails the Add.
func MaxMessageBytes(limit int) WindowOption {
	return func(w *Window) { w.maxBytes = max(limit, 0) }
}

// NewWindow returns a window of size messages over repo; a nil repo is a new [InMemory], a size
// below 1 is [DefaultWindowSize].
func NewWindow(repo Repository, size int, opts ...WindowOption) *Window {
	if repo == nil {
		repo = NewInMemory()
	}
	if size < 1 {
		size = DefaultWindowSize
	}
	w := &Window{repo: repo, size: size}
	for _, o := range opts {
		o(w)
	}
	return w
}

// Repository returns the repository the window stores messages in.
func (w *Window) Repository() Repository { return w.repo }

// Size returns the maximum number of messages Get returns.
func (w *Window) Size() int { return w.size }

// Add appends msgs to the conversation in one atomic append.
func (w *Window) Add(ctx context.Context, conversationID string, msgs ...chat.Message) error {
	if err := ValidateConversationID(conversationID); err != nil {
		return err
	}
	if len(msgs) == 0 {
		return nil
	}
	if w.maxBytes > 0 {
		copied := false
		for i, m := range msgs {
			size, err := encodedSize(m)
			if err != nil {
				return fmt.Errorf("memory: message %d: %w", i, err)
			}
			if size <= w.maxBytes {
				continue
			}
			if m.Role == chat.RoleTool {
				if fitted, size, err := w.fitResults(m, size); err != nil {
					return fmt.Errorf("memory: message %d: %w", i, err)
				} else if size <= w.maxBytes {
					if !copied {
						msgs, copied = slices.Clone(msgs), true // the caller's messages stay as they were
					}
					msgs[i] = fitted
					continue
				}
			}
			return fmt.Errorf("%w: message %d (%s) is %d bytes, over the cap of %d (MaxMessageBytes); none of the %d messages was stored",
				ErrMessageTooLarge, i, m.Role, size, w.maxBytes, len(msgs))
		}
	}
	return w.repo.Append(ctx, conversationID, msgs...)
}

// fitResults returns tool message m with its largest results replaced by error results that
// say how large they were, as few as bring it under the cap, and the size it then has; size is
// its size before.
func (w *Window) fitResults(m chat.Message, size int) (chat.Message, int, error) {
	return toolresult.Fit(m, size, w.maxBytes, encodedSize, func(n int) string {
		return fmt.Sprintf("The tool ran, but its result (%d bytes) is over the %d bytes this conversation keeps a message to, so it was not kept. Ask for less.",
			n, w.maxBytes)
	})
}

// encodedSize returns the length of v's JSON encoding without keeping the encoding. Invalid
// UTF-8 is measured as U+FFFD, as the SQL repositories store it and JSON encoders send it.
func encodedSize(v any) (int, error) {
	var n countingWriter
	err := jsonv2.MarshalWrite(&n, v, jsontext.AllowInvalidUTF8(true))
	return int(n), err
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// Get returns the most recent messages of the conversation, trimmed by [Trim]: the same
// messages Trim returns for the whole conversation, read from its end only.
func (w *Window) Get(ctx context.Context, conversationID string) ([]chat.Message, error) {
	if err := ValidateConversationID(conversationID); err != nil {
		return nil, err
	}
	// Twice the window leaves room for what Trim drops near the cut (the results of a call cut
	// off, unanswered calls); in the rare conversation where that is not enough, read more.
	for n := grow(w.size, 2); ; n = grow(n, 4) {
		system, tail, err := w.repo.Last(ctx, conversationID, n)
		if err != nil {
			return nil, err
		}
		msgs := tail
		if system != nil {
			msgs = append([]chat.Message{*system}, tail...)
		}
		out, filled := trim(msgs, w.size)
		if filled || len(tail) < n {
			return out, nil
		}
	}
}

// grow returns n*f, or the largest int when that overflows.
func grow(n, f int) int {
	if n > math.MaxInt/f {
		return math.MaxInt
	}
	return n * f
}

// Clear deletes the conversation from the repository.
func (w *Window) Clear(ctx context.Context, conversationID string) error {
	if err := ValidateConversationID(conversationID); err != nil {
		return err
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
	out, _ := trim(msgs, n)
	return out
}

// trim is [Trim], also reporting whether the repaired messages filled the window: when they
// did, the result depends only on the messages from the window's start on, so a suffix of a
// conversation that fills it gives the same window as the whole conversation.
func trim(msgs []chat.Message, n int) (out []chat.Message, filled bool) {
	if n < 1 || len(msgs) == 0 {
		return nil, n < 1
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
			} else if m.Content != "" || len(m.Parts) > 0 {
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
	filled = len(body) >= limit
	// Never start inside a call group: skip its tool results.
	for start < len(body) && body[start].Role == chat.RoleTool {
		start++
	}
	out = make([]chat.Message, 0, len(body)-start+1)
	if system != nil {
		out = append(out, *system)
	}
	return append(out, body[start:]...), filled
}

// EndsWith reports whether msgs, a conversation as a memory returns it, ends with tail: whether
// an append of tail whose outcome was lost (a crash, a timed-out attempt) took place. Messages
// are compared as stored (JSON); tool messages by the calls they answer, since a window may keep
// a result over its size cap as an error result instead ([MaxMessageBytes]).
func EndsWith(msgs, tail []chat.Message) bool {
	if len(tail) > len(msgs) {
		return false
	}
	for i, m := range msgs[len(msgs)-len(tail):] {
		if m.Role == chat.RoleTool && tail[i].Role == chat.RoleTool {
			if !slices.EqualFunc(m.ToolResults, tail[i].ToolResults, func(a, b chat.ToolResult) bool { return a.ID == b.ID && a.Name == b.Name }) {
				return false
			}
			continue
		}
		a, err1 := json.Marshal(m)
		b, err2 := json.Marshal(tail[i])
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			return false
		}
	}
	return true
}
