package sqlstore

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/memory/memorytest"
)

// TestReadOnly checks that a read-only store reads what a writable one wrote, refuses writes and
// changes nothing.
func TestReadOnly(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		dsn := b.dsn(t)
		rw := open(t, dsn)
		rich := appendRich(t, rw)
		ro := open(t, dsn, ReadOnly())
		if !ro.ReadOnly() || rw.ReadOnly() {
			t.Fatal("ReadOnly reports the wrong mode")
		}
		got, err := ro.Messages(t.Context(), "c")
		if err != nil || !memorytest.Equal(got, rich) {
			t.Fatalf("Messages read-only: %d messages, %v", len(got), err)
		}
		sys, last, err := ro.Last(t.Context(), "c", 2)
		if err != nil || sys == nil || !memorytest.Equal(last, rich[len(rich)-2:]) {
			t.Fatalf("Last read-only: %v, %d messages, %v", sys, len(last), err)
		}
		if ids, err := ro.Conversations(t.Context()); err != nil || len(ids) != 1 {
			t.Fatalf("Conversations read-only: %q, %v", ids, err)
		}
		for name, err := range map[string]error{
			"Append":  ro.Append(t.Context(), "c", chat.User("no")),
			"Replace": ro.Replace(t.Context(), "c", nil),
			"Delete":  ro.Delete(t.Context(), "c"),
		} {
			if !errors.Is(err, ErrReadOnly) {
				t.Errorf("%s on a read-only store: %v, want ErrReadOnly", name, err)
			}
		}
		// Writes a caller might make through the database itself fail too.
		if _, err := ro.db.ExecContext(t.Context(), ro.rebind("DELETE FROM wield_messages WHERE conversation_id = ?"), "c"); err == nil {
			t.Error("the read-only database took a DELETE")
		}
		if got, _ := rw.Messages(t.Context(), "c"); !memorytest.Equal(got, rich) {
			t.Fatal("the conversation changed")
		}
	})
}

// TestReadOnlyWithoutSchema checks that a read-only store refuses a database nothing was ever
// written to instead of creating the schema, and a SQLite file that does not exist.
func TestReadOnlyWithoutSchema(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		dsn := b.dsn(t)
		if b.name == "SQLite" {
			if _, err := Open(t.Context(), dsn, ReadOnly()); err == nil || !strings.Contains(err.Error(), "read-only") {
				t.Fatalf("Open read-only of a missing file: %v", err)
			}
			if _, err := os.Stat(dsn); !os.IsNotExist(err) {
				t.Fatalf("the read-only open created the file: %v", err)
			}
			if err := os.WriteFile(dsn, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		_, err := Open(t.Context(), dsn, ReadOnly())
		if !errors.Is(err, ErrNoSchema) {
			t.Fatalf("Open read-only of an empty database: %v, want ErrNoSchema", err)
		}
	})
}

// TestReadOnlyOlderSchema checks that a read-only store reads a database a version behind, which
// it may not migrate.
func TestReadOnlyOlderSchema(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		dsn := b.dsn(t)
		s := open(t, dsn)
		conv := []chat.Message{chat.System("rules"), chat.User("u"), chat.Assistant("a")}
		if err := s.Append(t.Context(), "c", conv...); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"DROP INDEX wield_messages_system", "DROP TABLE wield_turns", "DROP TABLE wield_replaced", "DELETE FROM wield_schema_migrations WHERE version >= 2"} {
			if _, err := s.db.ExecContext(t.Context(), q); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		ro := open(t, dsn, ReadOnly())
		sys, msgs, err := ro.Last(t.Context(), "c", 1)
		if err != nil || sys == nil || sys.Content != "rules" || !memorytest.Equal(msgs, conv[2:]) {
			t.Fatalf("Last at version 1: %v, %v, %v", sys, msgs, err)
		}
		// A database from before turns were kept has none.
		if _, ok, err := ro.LoadTurn(t.Context(), "c"); ok || err != nil {
			t.Fatalf("LoadTurn at version 1: %v, %v", ok, err)
		}
		// Nor anything compaction replaced.
		if _, _, ok, err := ro.Replaced(t.Context(), "c", "call_1"); ok || err != nil {
			t.Fatalf("Replaced at version 1: %v, %v", ok, err)
		}
		// A writable open migrates it again.
		open(t, dsn).Close()
	})
}

// TestReadOnlyDirectory runs, as a user who may not write them, a process reading a store whose
// file and directory are read-only: a writable open fails there, a read-only one works. Run as
// root, the process runs as nobody, since root may write anything.
func TestReadOnlyDirectory(t *testing.T) {
	dir, err := os.MkdirTemp("", "wield-readonly-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.Chmod(filepath.Join(dir, "data"), 0o755)
		os.RemoveAll(dir)
	})
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(data, "sessions.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(t.Context(), "planning", chat.User("hello"), chat.Assistant("kept")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// The test binary may sit where nobody can read it: copy it beside the data.
	bin := filepath.Join(dir, "sqlstore.test")
	copyFile(t, os.Args[0], bin)
	for p, mode := range map[string]os.FileMode{dir: 0o755, bin: 0o755, path: 0o444, data: 0o555} {
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	run := func(mode string) (string, error) {
		cmd := exec.Command(bin, "-test.run=^$")
		cmd.Env = append(os.Environ(), "WIELD_SQLSTORE_CHILD="+mode, "WIELD_SQLSTORE_DSN="+path, "HOME="+dir)
		if os.Geteuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("list")
	if err == nil {
		t.Fatalf("a writable open of a read-only directory worked (%q): the test cannot tell the modes apart", out)
	}
	out, err = run("list-ro")
	if err != nil || out != "planning: kept\n" {
		t.Fatalf("read-only open of a read-only directory: %v\n%s", err, out)
	}
	if entries, _ := os.ReadDir(data); len(entries) != 1 {
		t.Fatalf("the directory holds %d files, want the database alone", len(entries))
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLastQueryPlan checks that SQLite answers Last through the indexes, reading only the rows
// it returns, whatever the conversation's length.
func TestLastQueryPlan(t *testing.T) {
	s := open(t, sqliteDSN(t))
	rows, err := s.db.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+s.qLast, "c", 10, "c")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	text := strings.Join(plan, "\n")
	for _, want := range []string{"USING PRIMARY KEY (conversation_id=?)", "USING INDEX wield_messages_system (conversation_id=?)"} {
		if !strings.Contains(text, want) {
			t.Errorf("plan does not search %s:\n%s", want, text)
		}
	}
	for _, bad := range []string{"SCAN wield_messages", "TEMP B-TREE"} {
		if strings.Contains(text, bad) {
			t.Errorf("plan has %s:\n%s", bad, text)
		}
	}
}

var _ memory.Repository = (*Store)(nil)
