package memory

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/wield-ai/wield/chat"
)

// CompactionRepository is a [Repository] that keeps what context compaction (package compact)
// took out of a conversation's turns, so that the compacted form can be stored and sent while
// the originals stay recoverable: the full tool result behind an excerpt or a cleared stub, and
// the messages a summary replaced. Each is kept under the id its replacement names (a tool
// result's call id, a summary's id), with the replacement itself, so that a turn resumed in
// another process, or a later turn whose history holds the compacted form, reads it back.
//
// Keeping under an id already kept replaces what it held: the newest compaction is the one the
// conversation's messages name. [Repository.Delete] removes everything kept for the
// conversation; [Repository.Replace] leaves it, since the new messages may still name it.
// [InMemory] and the SQL repositories implement it.
type CompactionRepository interface {
	Repository
	// KeepReplaced records that replacement took the place of originals (at least one message)
	// in the conversation's context, under id: 1 to [MaxConversationIDLen] bytes of UTF-8.
	KeepReplaced(ctx context.Context, conversationID, id string, replacement chat.Message, originals []chat.Message) error
	// Replaced returns what KeepReplaced recorded under id; ok is false when nothing was.
	Replaced(ctx context.Context, conversationID, id string) (replacement chat.Message, originals []chat.Message, ok bool, err error)
}

// ErrInvalidReplacement is wrapped by the error of a [CompactionRepository.KeepReplaced] whose id
// or originals cannot be kept.
var ErrInvalidReplacement = errors.New("memory: invalid replacement")

// ValidateReplacement checks what every [CompactionRepository] checks before keeping a
// replacement: the conversation id, an id every repository can key on, and some originals.
func ValidateReplacement(conversationID, id string, originals []chat.Message) error {
	if err := ValidateConversationID(conversationID); err != nil {
		return err
	}
	switch {
	case id == "":
		return fmt.Errorf("%w: empty id", ErrInvalidReplacement)
	case len(id) > MaxConversationIDLen:
		return fmt.Errorf("%w: id of %d bytes, at most %d allowed", ErrInvalidReplacement, len(id), MaxConversationIDLen)
	case !utf8.ValidString(id):
		return fmt.Errorf("%w: id not valid UTF-8", ErrInvalidReplacement)
	case len(originals) == 0:
		return fmt.Errorf("%w: no originals", ErrInvalidReplacement)
	}
	for i := range len(id) {
		if id[i] == 0 {
			return fmt.Errorf("%w: NUL in id", ErrInvalidReplacement)
		}
	}
	return nil
}

// replaced is what InMemory keeps of one replacement.
type replaced struct {
	replacement chat.Message
	originals   []chat.Message
}

var _ CompactionRepository = (*InMemory)(nil)

// KeepReplaced records that replacement took the place of originals, under id.
func (r *InMemory) KeepReplaced(_ context.Context, conversationID, id string, replacement chat.Message, originals []chat.Message) error {
	if err := ValidateReplacement(conversationID, id, originals); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.replaced == nil {
		r.replaced = make(map[string]map[string]replaced)
	}
	kept := r.replaced[conversationID]
	if kept == nil {
		kept = make(map[string]replaced)
		r.replaced[conversationID] = kept
	}
	kept[id] = replaced{replacement: replacement.Clone(), originals: cloneMessages(originals)}
	return nil
}

// Replaced returns a copy of what KeepReplaced recorded under id.
func (r *InMemory) Replaced(_ context.Context, conversationID, id string) (chat.Message, []chat.Message, bool, error) {
	if err := ValidateConversationID(conversationID); err != nil {
		return chat.Message{}, nil, false, err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	k, ok := r.replaced[conversationID][id]
	if !ok {
		return chat.Message{}, nil, false, nil
	}
	return k.replacement.Clone(), cloneMessages(k.originals), true, nil
}
