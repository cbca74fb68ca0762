package main

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/examples/internal/exampletest"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/memory/sqlstore"
)

func TestApproval(t *testing.T) {
	m := scriptedModel()
	db := filepath.Join(t.TempDir(), "chat.db")
	files := NewFiles("/tmp/app.log", "/tmp/cache", "/tmp/cache/old", "/tmp/notes.txt", "/tmp/report.pdf")
	out := exampletest.Output(t, func(w io.Writer) error { return run(t.Context(), m, db, files, w) })
	want := `turn stopped: approval_required (I will delete the logs and the cache, and archive the report.)
  delete_file {"path":"/tmp/app.log"}: approve
  delete_file {"path":"/tmp/cache"}: approve with path /tmp/cache/old
  delete_file {"path":"/tmp/notes.txt"}: reject
turn stopped: interrupted
  archive_file asks "Which archive should /tmp/report.pdf go to?": restart with {"path":"/tmp/report.pdf","archive":"2024"}
turn done: answer
Deleted app.log and the old cache, kept notes.txt, and archived report.pdf in 2024.
files left: /tmp/cache /tmp/notes.txt
`
	if out != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
	if !slices.Equal(files.Names(), []string{"/tmp/cache", "/tmp/notes.txt"}) || files.archive["/tmp/report.pdf"] != "2024" {
		t.Fatalf("files = %v, archive %v", files.Names(), files.archive)
	}
	// The model was called three times, and went on each time from where the turn stopped.
	if m.Requests() != 3 {
		t.Fatalf("%d model calls", m.Requests())
	}
	last := m.Prompt(2).Messages
	results := last[len(last)-1].ToolResults
	if len(results) != 4 || results[0].Content != "deleted /tmp/app.log" || results[1].Content != "deleted /tmp/cache/old" ||
		!results[2].IsError || !strings.Contains(results[2].Content, "still needed") || results[3].Content != "archived /tmp/report.pdf in 2024" {
		t.Fatalf("results = %+v", results)
	}
	// The conversation records what ran, the edited call included; the turn is no longer open.
	store, err := sqlstore.OpenSQLite(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	msgs, err := store.Messages(context.Background(), "tidy-tmp")
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, msg := range msgs {
		roles = append(roles, string(msg.Role))
	}
	if got := strings.Join(roles, " "); got != "user assistant tool assistant tool assistant" {
		t.Fatalf("stored roles: %s", got)
	}
	if msgs[3].ToolCalls[1].Arguments != `{"path":"/tmp/cache/old"}` || msgs[3].ToolCalls[3].Arguments != `{"path":"/tmp/report.pdf","archive":"2024"}` {
		t.Fatalf("stored calls = %v", msgs[3].ToolCalls)
	}
	if st, err := memory.Turns(store).LoadTurn(context.Background(), "tidy-tmp"); st != nil || err != nil {
		t.Fatalf("open turn after the end: %+v, %v", st, err)
	}
}
