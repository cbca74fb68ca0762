package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/memory"
)

var _ memory.CompactionRepository = (*Store)(nil)

// KeepReplaced records that replacement took the place of originals in the conversation's
// context, under id, in one statement; an id kept already is overwritten.
func (s *Store) KeepReplaced(ctx context.Context, conversationID, id string, replacement chat.Message, originals []chat.Message) error {
	if err := memory.ValidateReplacement(conversationID, id, originals); err != nil {
		return err
	}
	if s.readOnly {
		return ErrReadOnly
	}
	rep, err := jsonv2.Marshal(replacement, jsontext.AllowInvalidUTF8(true))
	if err != nil {
		return fmt.Errorf("sqlstore: keep %q of %q: replacement: %w", id, conversationID, err)
	}
	orig, err := jsonv2.Marshal(originals, jsontext.AllowInvalidUTF8(true))
	if err != nil {
		return fmt.Errorf("sqlstore: keep %q of %q: originals: %w", id, conversationID, err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.rebind(`INSERT INTO wield_replaced (conversation_id, id, replacement, originals) VALUES (?, ?, ?, ?)
			ON CONFLICT (conversation_id, id) DO UPDATE SET replacement = excluded.replacement, originals = excluded.originals`),
			conversationID, id, string(rep), string(orig))
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlstore: keep %q of %q: %w", id, conversationID, err)
	}
	return nil
}

// Replaced returns what KeepReplaced recorded under id. A database at a schema version from
// before compaction was kept (read-only) has none.
func (s *Store) Replaced(ctx context.Context, conversationID, id string) (chat.Message, []chat.Message, bool, error) {
	if err := memory.ValidateConversationID(conversationID); err != nil {
		return chat.Message{}, nil, false, err
	}
	var rep, orig []byte
	err := s.db.QueryRowContext(ctx, s.rebind(`SELECT replacement, originals FROM wield_replaced WHERE conversation_id = ? AND id = ?`),
		conversationID, id).Scan(&rep, &orig)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return chat.Message{}, nil, false, nil
	case err != nil && s.readOnly && noTable(err, "wield_replaced"):
		return chat.Message{}, nil, false, nil
	case err != nil:
		return chat.Message{}, nil, false, fmt.Errorf("sqlstore: replaced %q of %q: %w", id, conversationID, err)
	}
	var m chat.Message
	var ms []chat.Message
	if err := jsonv2.Unmarshal(rep, &m); err != nil {
		return chat.Message{}, nil, false, fmt.Errorf("sqlstore: replaced %q of %q: replacement: %w", id, conversationID, err)
	}
	if err := jsonv2.Unmarshal(orig, &ms); err != nil {
		return chat.Message{}, nil, false, fmt.Errorf("sqlstore: replaced %q of %q: originals: %w", id, conversationID, err)
	}
	return m, ms, true, nil
}

// noTable reports whether err says table does not exist.
func noTable(err error, table string) bool {
	var coder interface{ SQLState() string }
	if errors.As(err, &coder) {
		return coder.SQLState() == "42P01" // undefined_table
	}
	return strings.Contains(err.Error(), "no such table: "+table)
}
