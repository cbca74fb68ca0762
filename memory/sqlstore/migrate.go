package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// A migration moves the schema from version-1 to version. Migrations are only ever appended:
// a database records the versions applied to it in wield_schema_migrations.
type migration struct {
	version  int
	sqlite   []string
	postgres []string
}

var migrations = []migration{
	{
		version: 1,
		sqlite: []string{
			`CREATE TABLE wield_conversations (
				id         TEXT PRIMARY KEY,
				next_seq   INTEGER NOT NULL,
				created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
				updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
			)`,
			`CREATE TABLE wield_messages (
				conversation_id TEXT NOT NULL REFERENCES wield_conversations (id) ON DELETE CASCADE,
				seq             INTEGER NOT NULL,
				role            TEXT NOT NULL,
				message         TEXT NOT NULL,
				created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
				PRIMARY KEY (conversation_id, seq)
			) WITHOUT ROWID`,
		},
		postgres: []string{
			// COLLATE "C" sorts ids bytewise, whatever the database's locale.
			`CREATE TABLE wield_conversations (
				id         TEXT COLLATE "C" PRIMARY KEY,
				next_seq   BIGINT NOT NULL,
				created_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
				updated_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP
			)`,
			// message is text, not jsonb: jsonb cannot hold \u0000 and reorders keys.
			`CREATE TABLE wield_messages (
				conversation_id TEXT COLLATE "C" NOT NULL REFERENCES wield_conversations (id) ON DELETE CASCADE,
				seq             BIGINT NOT NULL,
				role            TEXT NOT NULL,
				message         TEXT NOT NULL,
				created_at      TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
				PRIMARY KEY (conversation_id, seq)
			)`,
		},
	},
	{
		// The latest system message of a conversation, found without scanning it, for
		// Store.Last. Partial: conversations hold few system messages, if any.
		version: 2,
		sqlite: []string{
			`CREATE INDEX wield_messages_system ON wield_messages (conversation_id, seq) WHERE role = 'system'`,
		},
		postgres: []string{
			`CREATE INDEX wield_messages_system ON wield_messages (conversation_id, seq) WHERE role = 'system'`,
		},
	},
	{
		// Each conversation's open turn (memory.TurnRepository): one row, replaced step by step.
		version: 3,
		sqlite: []string{
			`CREATE TABLE wield_turns (
				conversation_id TEXT PRIMARY KEY,
				turn_id         TEXT NOT NULL,
				seq             INTEGER NOT NULL,
				state           TEXT NOT NULL,
				updated_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
			)`,
		},
		postgres: []string{
			`CREATE TABLE wield_turns (
				conversation_id TEXT COLLATE "C" PRIMARY KEY,
				turn_id         TEXT NOT NULL,
				seq             BIGINT NOT NULL,
				state           TEXT NOT NULL,
				updated_at      TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP
			)`,
		},
	},
	{
		// What compaction replaced in a conversation (memory.CompactionRepository), by the id
		// the replacement names: the replacement and the originals, each as JSON.
		version: 4,
		sqlite: []string{
			`CREATE TABLE wield_replaced (
				conversation_id TEXT NOT NULL,
				id              TEXT NOT NULL,
				replacement     TEXT NOT NULL,
				originals       TEXT NOT NULL,
				created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
				PRIMARY KEY (conversation_id, id)
			) WITHOUT ROWID`,
		},
		postgres: []string{
			`CREATE TABLE wield_replaced (
				conversation_id TEXT COLLATE "C" NOT NULL,
				id              TEXT COLLATE "C" NOT NULL,
				replacement     TEXT NOT NULL,
				originals       TEXT NOT NULL,
				created_at      TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
				PRIMARY KEY (conversation_id, id)
			)`,
		},
	},
}

// SchemaVersion is the schema version this package creates and understands: the version of the
// last migration. Migrations only add indexes, columns the queries can do without, and tables
// whose absence reads as empty, so that a store opened [ReadOnly] also reads databases at older
// versions.
const SchemaVersion = 4

// ErrNoSchema reports a database opened [ReadOnly] that holds no conversations' schema: it
// was never opened for writing.
var ErrNoSchema = errors.New("sqlstore: database has no conversations: it has never been opened for writing")

// ErrSchemaTooNew reports a database migrated by a newer version of this package, whose schema
// this one does not know.
var ErrSchemaTooNew = errors.New("sqlstore: database schema is newer than this program knows")

// migrationLock is the PostgreSQL advisory lock key that serializes migrations across processes
// ("wield" in ASCII).
const migrationLock = 0x7769656c64

// checkSchema checks, for a read-only store, that the database has a schema this package can
// read, at least version 1 and at most SchemaVersion, and returns its version.
func (s *Store) checkSchema(ctx context.Context) (int, error) {
	var current sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT MAX(version) FROM wield_schema_migrations`).Scan(&current)
	if err != nil {
		var exists int
		q := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'wield_schema_migrations'`
		if s.dialect == Postgres {
			q = `SELECT COUNT(*) FROM pg_catalog.pg_tables WHERE tablename = 'wield_schema_migrations' AND schemaname = ANY (current_schemas(false))`
		}
		if err2 := s.db.QueryRowContext(ctx, q).Scan(&exists); err2 == nil && exists == 0 {
			return 0, ErrNoSchema
		}
		return 0, fmt.Errorf("sqlstore: read %v schema version: %w", s.dialect, err)
	}
	switch {
	case current.Int64 < 1:
		return 0, ErrNoSchema
	case current.Int64 > SchemaVersion:
		return 0, fmt.Errorf("%w (database at version %d, this program at %d)", ErrSchemaTooNew, current.Int64, SchemaVersion)
	}
	return int(current.Int64), nil
}

// migrate brings the schema to SchemaVersion in one transaction. Processes opening the database
// at once take turns: SQLite's immediate transactions and PostgreSQL's advisory lock serialize
// them, and each finds the versions the others applied.
func (s *Store) migrate(ctx context.Context) error {
	// Connections opening a new SQLite file at once each switch it to WAL, which needs the file
	// to themselves: SQLite answers SQLITE_BUSY at once there, without its busy handler, so the
	// migration waits and tries again, for as long as a busy timeout would have waited.
	deadline := time.Now().Add(SQLiteBusyTimeout)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := s.migrateOnce(ctx)
		if err == nil || s.dialect != SQLite || !sqliteBusy(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// sqliteBusy reports whether SQLite failed with SQLITE_BUSY, whatever the extended code.
func sqliteBusy(err error) bool {
	var se interface{ Code() int }
	const sqliteBusy = 5
	return errors.As(err, &se) && se.Code()&0xff == sqliteBusy
}

func (s *Store) migrateOnce(ctx context.Context) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		if s.dialect == Postgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS wield_schema_migrations (
			version    INTEGER PRIMARY KEY,
			applied_at TEXT NOT NULL
		)`); err != nil {
			return err
		}
		var current sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT MAX(version) FROM wield_schema_migrations`).Scan(&current); err != nil {
			return err
		}
		if int(current.Int64) > SchemaVersion {
			return fmt.Errorf("%w (database at version %d, this program at %d)", ErrSchemaTooNew, current.Int64, SchemaVersion)
		}
		for _, m := range migrations {
			if m.version <= int(current.Int64) {
				continue
			}
			stmts := m.sqlite
			if s.dialect == Postgres {
				stmts = m.postgres
			}
			for _, q := range stmts {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return fmt.Errorf("migration %d: %w", m.version, err)
				}
			}
			if _, err := tx.ExecContext(ctx, s.rebind(`INSERT INTO wield_schema_migrations (version, applied_at) VALUES (?, ?)`),
				m.version, time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
				return fmt.Errorf("migration %d: %w", m.version, err)
			}
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrSchemaTooNew) {
			return err
		}
		return fmt.Errorf("sqlstore: migrate %v schema: %w", s.dialect, err)
	}
	return nil
}
