package main

import (
	"io"
	"slices"
	"testing"

	"github.com/wield-ai/wield/examples/internal/exampletest"
)

func TestA2A(t *testing.T) {
	records := &Records{names: []string{"Ada Byron", "Alan Turing"}}
	rm, am := scriptedModels()
	out := exampletest.Output(t, func(w io.Writer) error { return run(t.Context(), rm, am, records, w) })
	want := `assistant's tool: records (Keeps the customer records: finds and deletes them.)
  [records] calls find_record
  [records] finished find_record
  [records] says: Found it; deleting needs approval.
assistant's turn stopped: interrupted
  the records agent waits: delete_record {"name":"Ada Byron"} (approval): approve
  [records] calls delete_record
  [records] finished delete_record
  [records] says: Deleted the record of Ada Byron.
assistant's turn: answer
Done: Ada Byron's record is deleted.
records left: [Alan Turing] (deletions run: 1)
`
	if out != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
	if !slices.Equal(records.Names(), []string{"Alan Turing"}) || records.Deletes() != 1 {
		t.Fatalf("records %v, deletions %d", records.Names(), records.Deletes())
	}
	// The assistant's model read the records agent's answer as its tool's result.
	if res := am.ToolResults(t, 1); len(res) != 1 || res[0].Content != "Deleted the record of Ada Byron." {
		t.Fatalf("the assistant's model read %+v", res)
	}
	// The records agent's model saw its own conversation: the request and its find.
	if rm.Requests() != 3 {
		t.Fatalf("records agent's model called %d times", rm.Requests())
	}
}
