package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/wield-ai/wield/memory"
)

var _ memory.TurnRepository = (*Store)(nil)

// turnQueries are the statements of the turn methods, per dialect.
type turnQueries struct {
	start, step, load, delete string
	deleteAll                 string // any turn of a conversation, as it is deleted
}

var turnSQL = func() map[Dialect]turnQueries {
	out := map[Dialect]turnQueries{}
	for _, d := range []Dialect{SQLite, Postgres} {
		s := &Store{dialect: d}
		now := "CURRENT_TIMESTAMP"
		if d == SQLite {
			now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		}
		out[d] = turnQueries{
			start: s.rebind(`INSERT INTO wield_turns (conversation_id, turn_id, seq, state) VALUES (?, ?, ?, ?)
				ON CONFLICT (conversation_id) DO UPDATE SET turn_id = excluded.turn_id, seq = excluded.seq,
				state = excluded.state, updated_at = ` + now + `
				WHERE wield_turns.turn_id <> excluded.turn_id`),
			step: s.rebind(`UPDATE wield_turns SET seq = ?, state = ?, updated_at = ` + now + `
				WHERE conversation_id = ? AND turn_id = ? AND seq = ?`),
			load:      s.rebind(`SELECT turn_id, seq, state FROM wield_turns WHERE conversation_id = ?`),
			delete:    s.rebind(`DELETE FROM wield_turns WHERE conversation_id = ? AND turn_id = ? AND seq = ?`),
			deleteAll: s.rebind(`DELETE FROM wield_turns WHERE conversation_id = ?`),
		}
	}
	return out
}()

// SaveTurn stores rec as the conversation's open turn (see [memory.TurnRepository]): a first
// step replaces any other turn the conversation has; a later one is stored only over the turn's
// previous step, in one statement, so concurrent writers in any process cannot both win.
func (s *Store) SaveTurn(ctx context.Context, conversationID string, rec memory.TurnRecord) error {
	if err := memory.CheckTurnRecord(conversationID, rec); err != nil {
		return err
	}
	if s.readOnly {
		return ErrReadOnly
	}
	q := turnSQL[s.dialect]
	err := s.write(ctx, func(tx *sql.Tx) error {
		if rec.Seq == 1 {
			res, err := tx.ExecContext(ctx, q.start, conversationID, rec.ID, rec.Seq, string(rec.State))
			if err != nil {
				return err
			}
			// No row when the conversation's turn is this one: a turn never starts over itself.
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				if err == nil {
					err = fmt.Errorf("%w: conversation %q has turn %s already", memory.ErrTurnConflict, conversationID, rec.ID)
				}
				return err
			}
			return nil
		}
		res, err := tx.ExecContext(ctx, q.step, rec.Seq, string(rec.State), conversationID, rec.ID, rec.Seq-1)
		if err != nil {
			return err
		}
		return oneRow(res, conversationID, rec.ID, rec.Seq-1)
	})
	if err != nil && !errors.Is(err, memory.ErrTurnConflict) {
		return fmt.Errorf("sqlstore: save the turn of %q: %w", conversationID, err)
	}
	return err
}

// LoadTurn returns the conversation's open turn (see [memory.TurnRepository]).
func (s *Store) LoadTurn(ctx context.Context, conversationID string) (memory.TurnRecord, bool, error) {
	if err := memory.ValidateConversationID(conversationID); err != nil {
		return memory.TurnRecord{}, false, err
	}
	var rec memory.TurnRecord
	var state string
	err := s.db.QueryRowContext(ctx, turnSQL[s.dialect].load, conversationID).Scan(&rec.ID, &rec.Seq, &state)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return memory.TurnRecord{}, false, nil
	case err != nil && s.readOnly && noTurnsTable(err):
		// A database at a schema version before turns were kept has none.
		return memory.TurnRecord{}, false, nil
	case err != nil:
		return memory.TurnRecord{}, false, fmt.Errorf("sqlstore: load the turn of %q: %w", conversationID, err)
	}
	rec.State = []byte(state)
	return rec, true, nil
}

// DeleteTurn removes the conversation's open turn if it is turnID at seq (see
// [memory.TurnRepository]).
func (s *Store) DeleteTurn(ctx context.Context, conversationID, turnID string, seq int64) error {
	if err := s.writable(conversationID); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, turnSQL[s.dialect].delete, conversationID, turnID, seq)
		if err != nil {
			return err
		}
		return oneRow(res, conversationID, turnID, seq)
	})
	if err != nil && !errors.Is(err, memory.ErrTurnConflict) {
		return fmt.Errorf("sqlstore: delete the turn of %q: %w", conversationID, err)
	}
	return err
}

// noTurnsTable reports whether err says the turns table does not exist.
func noTurnsTable(err error) bool {
	var coder interface{ SQLState() string }
	if errors.As(err, &coder) {
		return coder.SQLState() == "42P01" // undefined_table
	}
	return strings.Contains(err.Error(), "no such table: wield_turns")
}

// oneRow reports a conflict when a compare-and-swap statement matched no row.
func oneRow(res sql.Result, conversationID, turnID string, seq int64) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("%w: conversation %q has no turn %s at step %d", memory.ErrTurnConflict, conversationID, turnID, seq)
	}
	return nil
}
