package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/memory/memorytest"
	"github.com/wield-ai/wield/memory/sqlstore/sqlstoretest"
)

// backend opens stores on one database for a test.
type backend struct {
	name string
	// dsn returns a fresh, empty database for t: a SQLite path or a PostgreSQL URL.
	dsn func(t testing.TB) string
}

var backends = []backend{
	{"SQLite", sqliteDSN},
	{"Postgres", postgresDSN},
}

// forEachBackend runs test as a subtest of t for each backend.
func forEachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

func sqliteDSN(t testing.TB) string {
	return filepath.Join(t.TempDir(), "chat.db")
}

// postgresDSN returns the URL of a schema of its own on the test server, dropped after t.
func postgresDSN(t testing.TB) string {
	return sqlstoretest.Postgres(t, testenv.Env(t, "WIELD_TEST_POSTGRES_URL"))
}

func open(t *testing.T, dsn string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(t.Context(), dsn, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// appendRich appends memorytest.Rich to conversation "c" of s and returns it.
func appendRich(t *testing.T, s *Store) []chat.Message {
	t.Helper()
	rich := memorytest.Rich()
	if err := s.Append(t.Context(), "c", rich...); err != nil {
		t.Fatal(err)
	}
	return rich
}

// TestConformance runs the memory kits (messages, turns, compaction) on each backend.
func TestConformance(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		t.Run("Messages", func(t *testing.T) {
			memorytest.Run(t, func(t *testing.T) memory.Repository { return open(t, b.dsn(t)) })
		})
		t.Run("Turns", func(t *testing.T) {
			memorytest.RunTurns(t, func(t *testing.T) memory.TurnRepository { return open(t, b.dsn(t)) })
		})
		t.Run("Compaction", func(t *testing.T) {
			memorytest.RunCompaction(t, func(t *testing.T) memory.CompactionRepository { return open(t, b.dsn(t)) })
		})
	})
}

// TestReopen checks that a conversation outlives its store and that reopening an up-to-date
// database migrates nothing.
func TestReopen(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		dsn := b.dsn(t)
		s := open(t, dsn)
		rich := appendRich(t, s)
		s.Close()
		s2 := open(t, dsn)
		got, err := s2.Messages(t.Context(), "c")
		if err != nil || !memorytest.Equal(got, rich) {
			t.Fatalf("after reopening: %v, %v", got, err)
		}
		var n int
		if err := s2.db.QueryRowContext(t.Context(), "SELECT COUNT(*) FROM wield_schema_migrations").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != SchemaVersion {
			t.Fatalf("%d migrations recorded, want %d", n, SchemaVersion)
		}
	})
}

func TestSchemaVersionIsLastMigration(t *testing.T) {
	if last := migrations[len(migrations)-1].version; last != SchemaVersion {
		t.Fatalf("SchemaVersion = %d, last migration %d", SchemaVersion, last)
	}
	for i, m := range migrations {
		if m.version != i+1 || len(m.sqlite) == 0 || len(m.postgres) == 0 {
			t.Fatalf("migration %d: version %d, %d SQLite and %d PostgreSQL statements", i, m.version, len(m.sqlite), len(m.postgres))
		}
	}
}

// TestSchemaTooNew checks that a database migrated by a newer program is refused, not damaged.
func TestSchemaTooNew(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		dsn := b.dsn(t)
		s := open(t, dsn)
		if err := s.Append(t.Context(), "c", chat.User("kept")); err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.ExecContext(t.Context(), s.rebind("INSERT INTO wield_schema_migrations (version, applied_at) VALUES (?, 'later')"), SchemaVersion+1); err != nil {
			t.Fatal(err)
		}
		s.Close()
		_, err := Open(t.Context(), dsn)
		if !errors.Is(err, ErrSchemaTooNew) {
			t.Fatalf("Open of a newer schema: %v, want ErrSchemaTooNew", err)
		}
	})
}

// TestConcurrentOpen opens one new database from several goroutines at once, each with its own
// connection pool, as processes starting together would.
func TestConcurrentOpen(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		dsn := b.dsn(t)
		var wg sync.WaitGroup
		errs := make(chan error, 6)
		for i := range 6 {
			wg.Go(func() {
				s, err := Open(t.Context(), dsn)
				if err != nil {
					errs <- err
					return
				}
				defer s.Close()
				errs <- s.Append(t.Context(), "c", memorytest.Batch("w", 0, 1+i%2)...)
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	})
}

func TestCancelledContext(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		s := open(t, b.dsn(t))
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := s.Append(ctx, "c", chat.User("never")); !errors.Is(err, context.Canceled) {
			t.Fatalf("Append with a cancelled context: %v", err)
		}
		if _, err := s.Messages(ctx, "c"); !errors.Is(err, context.Canceled) {
			t.Fatalf("Messages with a cancelled context: %v", err)
		}
		msgs, err := s.Messages(t.Context(), "c")
		if err != nil || len(msgs) != 0 {
			t.Fatalf("after a cancelled Append: %v, %v", msgs, err)
		}
	})
}

// TestInvalidUTF8 checks that text JSON cannot carry is refused whole rather than altered.
// TestInvalidUTF8 checks that a message that is not valid UTF-8 (a tool's raw bytes) is stored
// with U+FFFD in place of each invalid byte, as encoding/json sends it to the model, on both
// databases, and that the role column takes neither NUL nor invalid UTF-8 to PostgreSQL.
func TestInvalidUTF8(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		s := open(t, b.dsn(t))
		if err := s.Append(t.Context(), "c", chat.User("fine"), chat.User("bad \xff byte"), chat.Message{Role: "r\x00\xfe", Content: "x"}); err != nil {
			t.Fatalf("Append of invalid UTF-8: %v", err)
		}
		msgs, err := s.Messages(t.Context(), "c")
		if err != nil || len(msgs) != 3 || msgs[1].Content != "bad \uFFFD byte" || msgs[2].Role != "r\x00\uFFFD" {
			t.Fatalf("Messages = %q, %v", msgs, err)
		}
	})
}

// TestManyMessages writes one Append larger than an INSERT batch.
func TestManyMessages(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		s := open(t, b.dsn(t))
		msgs := memorytest.Batch("w", 0, 2*insertBatch+7)
		if err := s.Append(t.Context(), "c", msgs...); err != nil {
			t.Fatal(err)
		}
		if err := s.Replace(t.Context(), "d", msgs); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"c", "d"} {
			got, err := s.Messages(t.Context(), id)
			if err != nil || !memorytest.Equal(got, msgs) {
				t.Fatalf("%s: %d messages, %v", id, len(got), err)
			}
		}
	})
}

func TestOpenErrors(t *testing.T) {
	ctx := t.Context()
	missingDir := filepath.Join(t.TempDir(), "no", "such", "dir", "chat.db")
	notADB := filepath.Join(t.TempDir(), "text.db")
	if err := os.WriteFile(notADB, []byte(strings.Repeat("not a database\n", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, dsn string }{
		{"empty path", ""},
		{"missing directory", missingDir},
		{"not a database", notADB},
		{"bad URL", "postgres://user@127.0.0.1:notaport/db"},
		{"nothing listening", "postgres://wield@127.0.0.1:1/wield?connect_timeout=5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(ctx, tt.dsn)
			if err == nil {
				s.Close()
				t.Fatalf("Open(%q) succeeded", tt.dsn)
			}
			if !strings.HasPrefix(err.Error(), "sqlstore: ") {
				t.Fatalf("error %q does not say where it comes from", err)
			}
		})
	}
	if _, err := New(ctx, nil, SQLite); err == nil {
		t.Error("New with a nil database succeeded")
	}
	if _, err := New(ctx, &sql.DB{}, Dialect(9)); err == nil || !strings.Contains(err.Error(), "Dialect(9)") {
		t.Errorf("New with an unknown dialect: %v", err)
	}
}

// TestNewKeepsCallersDB checks that a store on the caller's database leaves it open.
func TestNewKeepsCallersDB(t *testing.T) {
	path := sqliteDSN(t)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := New(t.Context(), db, SQLite)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(t.Context(), "c", chat.User("hi")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.PingContext(t.Context()); err != nil {
		t.Fatalf("the caller's database was closed: %v", err)
	}
	if s.Dialect() != SQLite || SQLite.String() != "sqlite" || Postgres.String() != "postgres" {
		t.Fatal("dialect names")
	}
}

func TestRebind(t *testing.T) {
	s := &Store{dialect: Postgres}
	if got := s.rebind("VALUES (?, ?), (?)"); got != "VALUES ($1, $2), ($3)" {
		t.Fatalf("rebind = %q", got)
	}
	s.dialect = SQLite
	if got := s.rebind("(?, ?)"); got != "(?, ?)" {
		t.Fatalf("rebind for SQLite = %q", got)
	}
}
