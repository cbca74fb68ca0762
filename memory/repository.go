package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/wield-ai/wield/chat"
)

// Repository stores conversations message by message, in order, with tool calls, tool results
// and reasoning intact. Implementations must be safe for concurrent use; [Repository.Append] is
// atomic, so concurrent writers never lose each other's messages. Every method refuses a
// conversation id that [ValidateConversationID] refuses, with its error, before touching the
// store, so that all repositories accept the same ids.
//
// Spring AI's ChatMemoryRepository maps as: findConversationIds → Conversations,
// findByConversationId → Messages, saveAll → Replace, deleteByConversationId → Delete.
type Repository interface {
	// Append adds msgs at the end of the conversation, creating it if needed.
	Append(ctx context.Context, conversationID string, msgs ...chat.Message) error
	// Messages returns the conversation's messages in order; an unknown id has none.
	Messages(ctx context.Context, conversationID string) ([]chat.Message, error)
	// Last returns the conversation's last n messages in order (all of them when it has fewer,
	// none when n < 1) and, when the conversation's most recent system message comes before
	// those, that message as system (nil otherwise). It reads only what it returns, so that a
	// [Window] over a long conversation costs the same as over a short one, and it reads them
	// at one point in time: concurrent writes are seen whole or not at all.
	Last(ctx context.Context, conversationID string, n int) (system *chat.Message, msgs []chat.Message, err error)
	// Replace makes msgs the whole conversation.
	Replace(ctx context.Context, conversationID string, msgs []chat.Message) error
	// Delete removes the conversation: its messages and, in a repository that also keeps turns
	// ([TurnRepository]), its open turn, whose state holds the turn's messages too, and in a
	// [CompactionRepository] what compaction replaced in it.
	Delete(ctx context.Context, conversationID string) error
	// Conversations lists the ids of stored conversations.
	Conversations(ctx context.Context) ([]string, error)
}

// MaxConversationIDLen is the longest conversation id, in bytes, that repositories accept: far
// below what SQL indexes hold (PostgreSQL's B-tree refuses keys over about 2.7 KB).
const MaxConversationIDLen = 512

// ErrInvalidConversationID is wrapped by the error of a conversation id that
// [ValidateConversationID] refuses for what it contains.
var ErrInvalidConversationID = errors.New("memory: invalid conversation id")

// ValidateConversationID reports whether id can name a conversation: 1 to
// [MaxConversationIDLen] bytes of UTF-8 without control characters. Every [Repository] of this
// module applies it, so an id that one accepts all accept; an empty id is [ErrNoConversationID],
// any other refusal wraps [ErrInvalidConversationID]. The error never repeats the id, which may
// be long or hostile.
func ValidateConversationID(id string) error {
	switch {
	case id == "":
		return ErrNoConversationID
	case len(id) > MaxConversationIDLen:
		return fmt.Errorf("%w: %d bytes long, at most %d allowed", ErrInvalidConversationID, len(id), MaxConversationIDLen)
	case !utf8.ValidString(id):
		return fmt.Errorf("%w: not valid UTF-8", ErrInvalidConversationID)
	}
	for i, r := range id {
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: control character %U at byte %d", ErrInvalidConversationID, r, i)
		}
	}
	return nil
}

// InMemory is a [Repository] and a [TurnRepository] in process memory. The zero value is ready
// to use.
type InMemory struct {
	mu    sync.RWMutex
	convs map[string]*conversation
	turns map[string]TurnRecord // see TurnRepository
	// replaced holds, by conversation and id, what compaction replaced (CompactionRepository).
	replaced map[string]map[string]replaced
}

// conversation is what InMemory keeps of one conversation.
type conversation struct {
	msgs []chat.Message
	// system is the index of the most recent system message, or -1.
	system int
}

func (c *conversation) add(msgs []chat.Message) {
	for i, m := range msgs {
		if m.Role == chat.RoleSystem {
			c.system = len(c.msgs) + i
		}
	}
	c.msgs = append(c.msgs, cloneMessages(msgs)...)
}

// NewInMemory returns an empty in-memory repository.
func NewInMemory() *InMemory { return &InMemory{} }

// Append adds msgs at the end of the conversation.
func (r *InMemory) Append(_ context.Context, id string, msgs ...chat.Message) error {
	if err := ValidateConversationID(id); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.convs == nil {
		r.convs = make(map[string]*conversation)
	}
	c := r.convs[id]
	if c == nil {
		c = &conversation{system: -1}
		r.convs[id] = c
	}
	c.add(msgs)
	return nil
}

// Messages returns a copy of the conversation.
func (r *InMemory) Messages(_ context.Context, id string) ([]chat.Message, error) {
	if err := ValidateConversationID(id); err != nil {
		return nil, err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	c := r.convs[id]
	if c == nil {
		return nil, nil
	}
	return cloneMessages(c.msgs), nil
}

// Last returns a copy of the conversation's last n messages and the system message before them.
func (r *InMemory) Last(_ context.Context, id string, n int) (*chat.Message, []chat.Message, error) {
	if err := ValidateConversationID(id); err != nil {
		return nil, nil, err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	c := r.convs[id]
	if c == nil || n < 1 {
		return nil, nil, nil
	}
	start := max(len(c.msgs)-n, 0)
	var system *chat.Message
	if c.system >= 0 && c.system < start {
		system = &cloneMessages(c.msgs[c.system : c.system+1])[0]
	}
	return system, cloneMessages(c.msgs[start:]), nil
}

// Replace makes msgs the whole conversation; an empty msgs deletes it.
func (r *InMemory) Replace(_ context.Context, id string, msgs []chat.Message) error {
	if err := ValidateConversationID(id); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(msgs) == 0 {
		delete(r.convs, id)
		return nil
	}
	if r.convs == nil {
		r.convs = make(map[string]*conversation)
	}
	c := &conversation{system: -1}
	c.add(msgs)
	r.convs[id] = c
	return nil
}

// Delete removes the conversation, its open turn and what compaction replaced in it.
func (r *InMemory) Delete(_ context.Context, id string) error {
	if err := ValidateConversationID(id); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.convs, id)
	delete(r.turns, id)
	delete(r.replaced, id)
	return nil
}

// Conversations returns the stored ids, sorted.
func (r *InMemory) Conversations(context.Context) ([]string, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ids := make([]string, 0, len(r.convs))
	for id := range r.convs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}

// cloneMessages copies messages deeply enough that callers cannot change stored ones.
func cloneMessages(msgs []chat.Message) []chat.Message {
	if msgs == nil {
		return nil
	}
	out := make([]chat.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.Clone()
	}
	return out
}
