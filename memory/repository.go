package memory

import (
	"context"
	"slices"
	"sync"

	"github.com/wield-ai/wield/chat"
)

// Repository stores conversations message by message, in order, with tool calls, tool results
// and reasoning intact. Implementations must be safe for concurrent use; [Repository.Append] is
// atomic, so concurrent writers never lose each other's messages.
//
// Spring AI's ChatMemoryRepository maps as: findConversationIds → Conversations,
// findByConversationId → Messages, saveAll → Replace, deleteByConversationId → Delete.
type Repository interface {
	// Append adds msgs at the end of the conversation, creating it if needed.
	Append(ctx context.Context, conversationID string, msgs ...chat.Message) error
	// Messages returns the conversation's messages in order; an unknown id has none.
	Messages(ctx context.Context, conversationID string) ([]chat.Message, error)
	// Replace makes msgs the whole conversation.
	Replace(ctx context.Context, conversationID string, msgs []chat.Message) error
	// Delete removes the conversation.
	Delete(ctx context.Context, conversationID string) error
	// Conversations lists the ids of stored conversations.
	Conversations(ctx context.Context) ([]string, error)
}

// InMemory is a [Repository] and a [TurnRepository] in process memory. The zero value is ready
// to use.
type InMemory struct {
	mu    sync.RWMutex
	convs map[string][]chat.Message
	turns map[string]TurnRecord // see TurnRepository
}

// NewInMemory returns an empty in-memory repository.
func NewInMemory() *InMemory { return &InMemory{} }

// Append adds msgs at the end of the conversation.
func (r *InMemory) Append(_ context.Context, id string, msgs ...chat.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.convs == nil {
		r.convs = make(map[string][]chat.Message)
	}
	r.convs[id] = append(r.convs[id], cloneMessages(msgs)...)
	return nil
}

// Messages returns a copy of the conversation.
func (r *InMemory) Messages(_ context.Context, id string) ([]chat.Message, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return cloneMessages(r.convs[id]), nil
}

// Replace makes msgs the whole conversation; an empty msgs deletes it.
func (r *InMemory) Replace(_ context.Context, id string, msgs []chat.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(msgs) == 0 {
		delete(r.convs, id)
		return nil
	}
	if r.convs == nil {
		r.convs = make(map[string][]chat.Message)
	}
	r.convs[id] = cloneMessages(msgs)
	return nil
}

// Delete removes the conversation.
func (r *InMemory) Delete(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.convs, id)
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
		m.ToolCalls = slices.Clone(m.ToolCalls)
		m.ToolResults = slices.Clone(m.ToolResults)
		m.Reasoning = slices.Clone(m.Reasoning)
		out[i] = m
	}
	return out
}
