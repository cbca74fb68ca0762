package temporal_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/client"

	"github.com/wield-ai/wield/temporal"
)

// TestReplayRecordedHistories replays the histories of turns a real Temporal server ran
// (testdata, recorded by the end-to-end tests with -record: parallel calls, a worker killed
// mid-turn, an approval from another process) against the workflow of this build. A change to
// the workflow that would make a running turn take another path on replay fails here: such a
// change needs workflow versioning (workflow.GetVersion), and new recordings.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "history-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found %d recorded histories, want 3", len(files))
	}
	r, err := temporal.NewReplayer(temporal.Config{TaskQueue: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestReplayDetectsAnotherPath proves the replay test can fail: a recorded history whose first
// tool call was scheduled as another activity is one this workflow could not have produced, and
// the replayer says so.
func TestReplayDetectsAnotherPath(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "history-parallel.json"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := client.HistoryFromJSON(bytes.NewReader(b), client.HistoryJSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	changed := false
	for _, ev := range h.Events {
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && strings.HasSuffix(a.GetActivityType().GetName(), ".Tool") {
			a.ActivityType.Name = "wield.Model"
			changed = true
			break
		}
	}
	if !changed {
		t.Fatal("no tool call in the history")
	}
	r, err := temporal.NewReplayer(temporal.Config{TaskQueue: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.ReplayWorkflowHistory(nil, h); err == nil || !strings.Contains(err.Error(), "nondeterministic") {
		t.Fatalf("replaying a history of another path: %v", err)
	}
}
