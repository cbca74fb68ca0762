package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wield-ai/wield/client"
)

// TurnRecord is the stored state of a conversation's open turn: the turn's id, the sequence
// number of its newest state, and that state as JSON (a [client.TurnState]).
type TurnRecord struct {
	ID    string
	Seq   int64
	State []byte
}

// TurnRepository is implemented by repositories that also keep each conversation's open turn,
// so that a stopped or interrupted turn can be resumed in another process ([Turns] makes the
// client's turn store of one). Implementations must be safe for concurrent use by goroutines
// and, for shared databases, processes: SaveTurn and DeleteTurn compare and swap atomically.
type TurnRepository interface {
	// SaveTurn stores rec as the conversation's open turn. A record with Seq 1 starts a turn and
	// replaces any other the conversation has; a turn never starts over itself, so a Seq 1
	// record of the stored turn's id is a conflict. A record with a higher Seq is stored only if the stored
	// one is the same turn at Seq-1; otherwise nothing is stored and the error wraps
	// [ErrTurnConflict]. Seq below 1 and an empty ID are errors.
	SaveTurn(ctx context.Context, conversationID string, rec TurnRecord) error
	// LoadTurn returns the conversation's open turn, and false if it has none.
	LoadTurn(ctx context.Context, conversationID string) (TurnRecord, bool, error)
	// DeleteTurn removes the conversation's open turn if it is turnID at seq; otherwise the
	// error wraps [ErrTurnConflict].
	DeleteTurn(ctx context.Context, conversationID, turnID string, seq int64) error
}

// ErrTurnConflict is wrapped by the error of a [TurnRepository] write that found another turn,
// or another step of the turn, than the one it was to follow.
var ErrTurnConflict = errors.New("memory: the conversation's open turn changed")

// CheckTurnRecord reports whether rec can be saved for conversationID (an id
// [ValidateConversationID] accepts), for the implementations of [TurnRepository].SaveTurn. The
// turn's id follows the rules of conversation ids, and its state must be JSON in UTF-8, so that
// a record one database would store and another refuse is refused by all, before any is
// touched.
func CheckTurnRecord(conversationID string, rec TurnRecord) error {
	if err := ValidateConversationID(conversationID); err != nil {
		return err
	}
	switch {
	case rec.ID == "":
		return errors.New("memory: turn record without an id")
	case rec.Seq < 1:
		return fmt.Errorf("memory: turn record with step %d; steps start at 1", rec.Seq)
	case !json.Valid(rec.State):
		return errors.New("memory: turn record whose state is not JSON")
	case !utf8.Valid(rec.State):
		return errors.New("memory: turn record whose state is not UTF-8")
	}
	if err := ValidateConversationID(rec.ID); err != nil {
		// The error says what is wrong and never repeats the id.
		_, why, _ := strings.Cut(err.Error(), ErrInvalidConversationID.Error()+": ")
		return fmt.Errorf("memory: turn record whose id is invalid: %s", why)
	}
	return nil
}

// SaveTurn stores rec as the conversation's open turn; see [TurnRepository].
func (r *InMemory) SaveTurn(_ context.Context, id string, rec TurnRecord) error {
	if err := CheckTurnRecord(id, rec); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	cur, ok := r.turns[id]
	if rec.Seq > 1 && (!ok || cur.ID != rec.ID || cur.Seq != rec.Seq-1) {
		return fmt.Errorf("%w: conversation %q has no turn %s at step %d", ErrTurnConflict, id, rec.ID, rec.Seq-1)
	}
	if rec.Seq == 1 && ok && cur.ID == rec.ID {
		return fmt.Errorf("%w: conversation %q has turn %s already", ErrTurnConflict, id, rec.ID)
	}
	if r.turns == nil {
		r.turns = make(map[string]TurnRecord)
	}
	rec.State = append([]byte(nil), rec.State...)
	r.turns[id] = rec
	return nil
}

// LoadTurn returns the conversation's open turn; see [TurnRepository].
func (r *InMemory) LoadTurn(_ context.Context, id string) (TurnRecord, bool, error) {
	if err := ValidateConversationID(id); err != nil {
		return TurnRecord{}, false, err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	rec, ok := r.turns[id]
	rec.State = append([]byte(nil), rec.State...)
	return rec, ok, nil
}

// DeleteTurn removes the conversation's open turn if it is turnID at seq; see
// [TurnRepository].
func (r *InMemory) DeleteTurn(_ context.Context, id, turnID string, seq int64) error {
	if err := ValidateConversationID(id); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	cur, ok := r.turns[id]
	if !ok || cur.ID != turnID || cur.Seq != seq {
		return fmt.Errorf("%w: conversation %q has no turn %s at step %d", ErrTurnConflict, id, turnID, seq)
	}
	delete(r.turns, id)
	return nil
}

// Turns returns a [client.TurnStore] keeping turn states in repo, under their conversation:
// give it to [client.WithTurnStore] to make a client's turns durable and resumable in any
// process that shares the repository.
func Turns(repo TurnRepository) client.TurnStore { return turnStore{repo} }

type turnStore struct{ repo TurnRepository }

func (s turnStore) SaveTurn(ctx context.Context, conversationID string, state *client.TurnState) error {
	if state == nil {
		return errors.New("memory: nil turn state")
	}
	b, err := json.Marshal(state)
	if err != nil {
		return fmt.Errorf("memory: encoding turn state: %w", err)
	}
	return conflict(s.repo.SaveTurn(ctx, conversationID, TurnRecord{ID: state.ID, Seq: state.Seq, State: b}))
}

func (s turnStore) LoadTurn(ctx context.Context, conversationID string) (*client.TurnState, error) {
	rec, ok, err := s.repo.LoadTurn(ctx, conversationID)
	if err != nil || !ok {
		return nil, err
	}
	var st client.TurnState
	if err := json.Unmarshal(rec.State, &st); err != nil {
		return nil, fmt.Errorf("memory: decoding the turn state of %q: %w", conversationID, err)
	}
	if st.ID != rec.ID || st.Seq != rec.Seq {
		return nil, fmt.Errorf("memory: the turn state of %q is %s at step %d, its record says %s at step %d",
			conversationID, st.ID, st.Seq, rec.ID, rec.Seq)
	}
	return &st, nil
}

func (s turnStore) EndTurn(ctx context.Context, conversationID, turnID string, seq int64) error {
	return conflict(s.repo.DeleteTurn(ctx, conversationID, turnID, seq))
}

// conflict makes a repository's conflict match client.ErrTurnConflict too.
func conflict(err error) error {
	if errors.Is(err, ErrTurnConflict) {
		return fmt.Errorf("%w: %w", client.ErrTurnConflict, err)
	}
	return err
}
