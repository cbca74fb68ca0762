package sqlstore

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/memory/memorytest"
)

// writeAtVersion builds the schema of version v on the empty database of s, as a program of
// that version created it, and writes conv to conversation "c" as it wrote rows.
func writeAtVersion(t *testing.T, s *Store, v int, conv []chat.Message) {
	t.Helper()
	ctx := t.Context()
	err := s.write(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{"DROP TABLE wield_replaced", "DROP TABLE wield_turns", "DROP INDEX wield_messages_system",
			"DROP TABLE wield_messages", "DROP TABLE wield_conversations", "DELETE FROM wield_schema_migrations"} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		for _, m := range migrations[:v] {
			stmts := m.sqlite
			if s.dialect == Postgres {
				stmts = m.postgres
			}
			for _, q := range stmts {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, s.rebind(`INSERT INTO wield_schema_migrations (version, applied_at) VALUES (?, ?)`),
				m.version, time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
				return err
			}
		}
		rows, err := encode(conv)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.rebind(`INSERT INTO wield_conversations (id, next_seq) VALUES (?, ?)`), "c", len(rows)); err != nil {
			return err
		}
		return s.insert(ctx, tx, "c", 0, rows)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A database written at schema version 3, before compaction was kept, opens migrated to the
// current version: its rows read as they were written, and compaction is kept from then on.
func TestMigrateFromVersion3(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		dsn := b.dsn(t)
		old := open(t, dsn)
		conv := memorytest.Rich()
		writeAtVersion(t, old, 3, conv)
		old.Close()

		var version int
		s := open(t, dsn)
		if err := s.db.QueryRowContext(t.Context(), `SELECT MAX(version) FROM wield_schema_migrations`).Scan(&version); err != nil || version != SchemaVersion {
			t.Fatalf("migrated to version %d (%v), want %d", version, err, SchemaVersion)
		}
		got, err := s.Messages(t.Context(), "c")
		if err != nil || !memorytest.Equal(got, conv) {
			t.Fatalf("Messages after migration: %v", err)
		}
		sys, tail, err := s.Last(t.Context(), "c", 2)
		if err != nil || sys == nil || !memorytest.Equal(tail, conv[len(conv)-2:]) {
			t.Fatalf("Last after migration: %v, %v", sys, err)
		}
		if _, _, ok, err := s.Replaced(t.Context(), "c", "call_1"); ok || err != nil {
			t.Fatalf("Replaced after migration: %v, %v", ok, err)
		}
		cut := conv[3]
		if err := s.KeepReplaced(t.Context(), "c", "call_1", chat.ToolMessage(chat.ToolResult{ID: "call_1", Name: "weather", Content: "[excerpt]"}), []chat.Message{cut}); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(context.Background(), "c", chat.User("more")); err != nil {
			t.Fatal(err)
		}
		s.Close()
		// Read back by another store, as after a restart.
		again := open(t, dsn)
		if _, orig, ok, err := again.Replaced(t.Context(), "c", "call_1"); !ok || err != nil || !memorytest.Equal(orig, []chat.Message{cut}) {
			t.Fatalf("Replaced after reopening: %v, %v", ok, err)
		}
		if got, err := again.Messages(t.Context(), "c"); err != nil || !memorytest.Equal(got, append(conv, chat.User("more"))) {
			t.Fatalf("Messages after reopening: %v", err)
		}
	})
}
