package memorytest

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/memory"
)

// RunTurns checks that a [memory.TurnRepository] keeps its contract: one open turn per
// conversation, stored intact, and saves and deletes that compare and swap atomically, also
// under concurrency. newRepo returns an empty repository for each subtest and arranges its
// cleanup.
func RunTurns(t *testing.T, newRepo func(t *testing.T) memory.TurnRepository) {
	suite[memory.TurnRepository]{
		{"Empty", testTurnsEmpty},
		{"Steps", testTurnSteps},
		{"NewTurnReplaces", testNewTurnReplaces},
		{"NoRestartOverItself", testTurnNoRestartOverItself},
		{"Delete", testTurnDelete},
		{"Isolation", testTurnIsolation},
		{"Intact", testTurnIntact},
		{"BadRecords", testTurnBadRecords},
		{"ConcurrentSteps", testTurnConcurrentSteps},
		{"ConversationDelete", testTurnConversationDelete},
	}.run(t, newRepo)
}

// TurnState returns a JSON turn state for turn id at step seq, with text that stresses
// encodings, as [RunTurns] stores them.
func TurnState(id string, seq int64) []byte {
	return fmt.Appendf(nil, `{"id":%q,"seq":%d,"messages":[{"role":"user","content":"Zürich 東京 🌦 \"q\" \\ \u0000 nul"}]}`, id, seq)
}

func rec(id string, seq int64) memory.TurnRecord {
	return memory.TurnRecord{ID: id, Seq: seq, State: TurnState(id, seq)}
}

func mustSave(t *testing.T, r memory.TurnRepository, conv string, x memory.TurnRecord) {
	t.Helper()
	if err := r.SaveTurn(t.Context(), conv, x); err != nil {
		t.Fatalf("SaveTurn(%q, %s@%d): %v", conv, x.ID, x.Seq, err)
	}
}

func wantConflict(t *testing.T, err error, what string) {
	t.Helper()
	if !errors.Is(err, memory.ErrTurnConflict) {
		t.Fatalf("%s: err = %v, want ErrTurnConflict", what, err)
	}
}

func wantTurn(t *testing.T, r memory.TurnRepository, conv string, want *memory.TurnRecord) {
	t.Helper()
	got, ok, err := r.LoadTurn(t.Context(), conv)
	if err != nil {
		t.Fatalf("LoadTurn(%q): %v", conv, err)
	}
	switch {
	case want == nil && ok:
		t.Fatalf("LoadTurn(%q) = %s@%d, want none", conv, got.ID, got.Seq)
	case want == nil:
	case !ok:
		t.Fatalf("LoadTurn(%q) found none, want %s@%d", conv, want.ID, want.Seq)
	case got.ID != want.ID || got.Seq != want.Seq || !bytes.Equal(got.State, want.State):
		t.Fatalf("LoadTurn(%q) = %s@%d %s, want %s@%d %s", conv, got.ID, got.Seq, got.State, want.ID, want.Seq, want.State)
	}
}

func testTurnsEmpty(t *testing.T, r memory.TurnRepository) {
	wantTurn(t, r, "none", nil)
	wantConflict(t, r.DeleteTurn(t.Context(), "none", "t", 1), "DeleteTurn of no turn")
	wantConflict(t, r.SaveTurn(t.Context(), "none", rec("t", 2)), "SaveTurn of step 2 with no turn")
	wantTurn(t, r, "none", nil)
}

func testTurnSteps(t *testing.T, r memory.TurnRepository) {
	for seq := int64(1); seq <= 4; seq++ {
		mustSave(t, r, "c", rec("t", seq))
		x := rec("t", seq)
		wantTurn(t, r, "c", &x)
	}
	wantConflict(t, r.SaveTurn(t.Context(), "c", rec("t", 4)), "SaveTurn of the same step again")
	wantConflict(t, r.SaveTurn(t.Context(), "c", rec("t", 3)), "SaveTurn of an older step")
	wantConflict(t, r.SaveTurn(t.Context(), "c", rec("t", 6)), "SaveTurn skipping a step")
	wantConflict(t, r.SaveTurn(t.Context(), "c", rec("other", 5)), "SaveTurn of another turn's next step")
	x := rec("t", 4)
	wantTurn(t, r, "c", &x)
}

func testNewTurnReplaces(t *testing.T, r memory.TurnRepository) {
	mustSave(t, r, "c", rec("old", 1))
	mustSave(t, r, "c", rec("old", 2))
	mustSave(t, r, "c", rec("new", 1))
	x := rec("new", 1)
	wantTurn(t, r, "c", &x)
	wantConflict(t, r.SaveTurn(t.Context(), "c", rec("old", 3)), "SaveTurn of the replaced turn")
	mustSave(t, r, "c", rec("new", 2))
}

// testTurnNoRestartOverItself: a first step of the stored turn's own id (a resumed state's
// claim forged to step 0) is refused, whatever step the turn is at, and leaves it as it was.
func testTurnNoRestartOverItself(t *testing.T, r memory.TurnRepository) {
	mustSave(t, r, "c", rec("t", 1))
	wantConflict(t, r.SaveTurn(t.Context(), "c", rec("t", 1)), "SaveTurn of the turn's first step again")
	mustSave(t, r, "c", rec("t", 2))
	mustSave(t, r, "c", rec("t", 3))
	wantConflict(t, r.SaveTurn(t.Context(), "c", rec("t", 1)), "SaveTurn restarting the stored turn")
	x := rec("t", 3)
	wantTurn(t, r, "c", &x)
	mustSave(t, r, "c", rec("t", 4))
}

func testTurnDelete(t *testing.T, r memory.TurnRepository) {
	mustSave(t, r, "c", rec("t", 1))
	mustSave(t, r, "c", rec("t", 2))
	wantConflict(t, r.DeleteTurn(t.Context(), "c", "t", 1), "DeleteTurn of an older step")
	wantConflict(t, r.DeleteTurn(t.Context(), "c", "u", 2), "DeleteTurn of another turn")
	if err := r.DeleteTurn(t.Context(), "c", "t", 2); err != nil {
		t.Fatalf("DeleteTurn: %v", err)
	}
	wantTurn(t, r, "c", nil)
	wantConflict(t, r.DeleteTurn(t.Context(), "c", "t", 2), "second DeleteTurn")
	mustSave(t, r, "c", rec("t2", 1))
}

func testTurnIsolation(t *testing.T, r memory.TurnRepository) {
	ids := []string{"a", "ab", "A", " ", "a%", "a_", "'; DROP TABLE x; --", "ünï/cödé 🌦"}
	for i, id := range ids {
		mustSave(t, r, id, rec("t"+strconv.Itoa(i), 1))
	}
	for i, id := range ids {
		x := rec("t"+strconv.Itoa(i), 1)
		wantTurn(t, r, id, &x)
	}
	if err := r.DeleteTurn(t.Context(), "a", "t0", 1); err != nil {
		t.Fatal(err)
	}
	x := rec("t1", 1)
	wantTurn(t, r, "ab", &x)
}

func testTurnIntact(t *testing.T, r memory.TurnRepository) {
	big := memory.TurnRecord{ID: "t", Seq: 1, State: fmt.Appendf(nil, `{"text":%q}`, string(bytes.Repeat([]byte("long state "), 50000)))}
	mustSave(t, r, "c", big)
	wantTurn(t, r, "c", &big)
	// The repository keeps its own copy.
	in := rec("t", 2)
	mustSave(t, r, "c", in)
	want := rec("t", 2)
	in.State[0] = ' '
	got, _, _ := r.LoadTurn(t.Context(), "c")
	wantTurn(t, r, "c", &want)
	got.State[0] = ' '
	wantTurn(t, r, "c", &want)
}

func testTurnBadRecords(t *testing.T, r memory.TurnRepository) {
	for _, bad := range []struct {
		conv string
		rec  memory.TurnRecord
	}{
		{"", rec("t", 1)},
		{"c", memory.TurnRecord{Seq: 1, State: []byte(`{}`)}},
		{"c", memory.TurnRecord{ID: "t", Seq: 0, State: []byte(`{}`)}},
		{"c", memory.TurnRecord{ID: "t", Seq: 1, State: []byte(`{not json`)}},
		// What one database would store and another refuse: every repository refuses it.
		{"c", memory.TurnRecord{ID: "t\x00", Seq: 1, State: []byte(`{}`)}},
		{"c", memory.TurnRecord{ID: "t\xff", Seq: 1, State: []byte(`{}`)}},
		{"c", memory.TurnRecord{ID: "t\n1", Seq: 1, State: []byte(`{}`)}},
		{"c", memory.TurnRecord{ID: string(bytes.Repeat([]byte("t"), memory.MaxConversationIDLen+1)), Seq: 1, State: []byte(`{}`)}},
		{"c", memory.TurnRecord{ID: "t", Seq: 1, State: []byte("{\"a\":\"\xff\"}")}},
	} {
		if err := r.SaveTurn(t.Context(), bad.conv, bad.rec); err == nil {
			t.Errorf("SaveTurn(%q, %.40q at %d, state %.40q) stored a bad record", bad.conv, bad.rec.ID, bad.rec.Seq, bad.rec.State)
		}
	}
	wantTurn(t, r, "c", nil)
}

// testTurnConcurrentSteps has writers race to save each next step of one turn: exactly one wins
// each step.
func testTurnConcurrentSteps(t *testing.T, r memory.TurnRepository) {
	const writers, steps = 6, 8
	mustSave(t, r, "shared", rec("t", 1))
	for seq := int64(2); seq <= steps; seq++ {
		var wins, conflicts atomic.Int32
		var fns []func() error
		for w := range writers {
			fns = append(fns, func() error {
				x := memory.TurnRecord{ID: "t", Seq: seq, State: fmt.Appendf(nil, `{"writer":%d}`, w)}
				switch err := r.SaveTurn(t.Context(), "shared", x); {
				case err == nil:
					wins.Add(1)
				case errors.Is(err, memory.ErrTurnConflict):
					conflicts.Add(1)
				default:
					return err
				}
				return nil
			})
		}
		if !concurrently(t, fns...) {
			t.FailNow()
		}
		if wins.Load() != 1 || conflicts.Load() != writers-1 {
			t.Fatalf("step %d: %d saves won, %d conflicted; want 1 and %d", seq, wins.Load(), conflicts.Load(), writers-1)
		}
	}
	got, ok, err := r.LoadTurn(t.Context(), "shared")
	if err != nil || !ok || got.Seq != steps {
		t.Fatalf("LoadTurn = %+v, %v, %v", got, ok, err)
	}
}

// testTurnConversationDelete checks, for a repository that keeps conversations too, that
// deleting a conversation takes its open turn with it (the turn's state holds messages too),
// with or without messages stored, and leaves the turns of others.
func testTurnConversationDelete(t *testing.T, r memory.TurnRepository) {
	repo, ok := r.(memory.Repository)
	if !ok {
		t.Skip("the repository keeps turns only")
	}
	c, d, e := rec("t1", 1), rec("t2", 1), rec("t3", 1)
	mustSave(t, r, "c", c)
	mustSave(t, r, "d", d)
	mustSave(t, r, "e", e)
	mustAppend(t, repo, "c", chat.User("pay the invoice"))
	mustAppend(t, repo, "d", chat.User("stays"))
	for _, id := range []string{"c", "e"} {
		if err := repo.Delete(t.Context(), id); err != nil {
			t.Fatalf("Delete(%q): %v", id, err)
		}
		wantTurn(t, r, id, nil)
	}
	wantTurn(t, r, "d", &d)
	wantMessages(t, repo, "d", []chat.Message{chat.User("stays")})
}
