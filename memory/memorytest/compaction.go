package memorytest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/memory"
)

// RunCompaction checks that a [memory.CompactionRepository] keeps what compaction replaced: each
// replacement with its originals intact, by conversation and id, overwritten by a newer one of the
// same id, removed with the conversation, kept through a Replace, refused for bad ids, and kept
// whole under concurrent writers. newRepo is as for [Run].
func RunCompaction(t *testing.T, newRepo func(t *testing.T) memory.CompactionRepository) {
	suite[memory.CompactionRepository]{
		{"Unknown", testReplacedUnknown},
		{"RoundTrip", testReplacedRoundTrip},
		{"Large", testReplacedLarge},
		{"Overwrite", testReplacedOverwrite},
		{"Isolation", testReplacedIsolation},
		{"Copies", testReplacedCopies},
		{"DeleteRemoves", testReplacedDelete},
		{"ReplaceKeeps", testReplacedReplace},
		{"Invalid", testReplacedInvalid},
		{"Concurrent", testReplacedConcurrent},
	}.run(t, newRepo)
}

// Excerpt returns a tool message like the compacted form of original's first result.
func excerpt(original chat.Message) chat.Message {
	r := original.ToolResults[0]
	r.Content = "[excerpt: 10 of " + fmt.Sprint(len(r.Content)) + " bytes]\n" + r.Content[:min(10, len(r.Content))]
	r.Parts = nil
	return chat.ToolMessage(r)
}

func mustKeep(t *testing.T, r memory.CompactionRepository, conv, id string, rep chat.Message, orig []chat.Message) {
	t.Helper()
	if err := r.KeepReplaced(context.Background(), conv, id, rep, orig); err != nil {
		t.Fatalf("KeepReplaced(%q, %q): %v", conv, id, err)
	}
}

func wantReplaced(t *testing.T, r memory.CompactionRepository, conv, id string, rep chat.Message, orig []chat.Message) {
	t.Helper()
	gotRep, gotOrig, ok, err := r.Replaced(context.Background(), conv, id)
	if err != nil || !ok {
		t.Fatalf("Replaced(%q, %q) = ok %v, %v", conv, id, ok, err)
	}
	if !Equal([]chat.Message{gotRep}, []chat.Message{rep}) || !Equal(gotOrig, orig) {
		t.Fatalf("Replaced(%q, %q) = %+v, %+v\nwant %+v, %+v", conv, id, gotRep, gotOrig, rep, orig)
	}
}

func wantNoReplaced(t *testing.T, r memory.CompactionRepository, conv, id string) {
	t.Helper()
	_, orig, ok, err := r.Replaced(context.Background(), conv, id)
	if err != nil || ok || orig != nil {
		t.Fatalf("Replaced(%q, %q) = %v, ok %v, %v; want nothing", conv, id, orig, ok, err)
	}
}

func testReplacedUnknown(t *testing.T, r memory.CompactionRepository) {
	wantNoReplaced(t, r, "c", "call_1")
	mustAppend(t, r, "c", chat.User("hi"))
	wantNoReplaced(t, r, "c", "call_1")
}

// A cut result and a summary, each with every kind of field and hostile text.
func testReplacedRoundTrip(t *testing.T, r memory.CompactionRepository) {
	rich := Rich()
	result := rich[3] // the tool message with two results, one an error
	mustKeep(t, r, "c", "call_1", excerpt(result), []chat.Message{result})
	summary := chat.User("[summary of the earlier conversation]\nThe user asked about 東京 \x00 and \"quotes\".")
	mustKeep(t, r, "c", "summary-1f2e", summary, rich[1:])
	wantReplaced(t, r, "c", "call_1", excerpt(result), []chat.Message{result})
	wantReplaced(t, r, "c", "summary-1f2e", summary, rich[1:])
	// Kept under ids like a model's call ids, and odd ones.
	for _, id := range oddIDs {
		mustKeep(t, r, "odd", id, summary, []chat.Message{chat.User(id)})
	}
	for _, id := range oddIDs {
		wantReplaced(t, r, "odd", id, summary, []chat.Message{chat.User(id)})
	}
}

// A tool result of 4 MiB, as compaction cuts from a tool that returned too much.
func testReplacedLarge(t *testing.T, r memory.CompactionRepository) {
	big := chat.ToolMessage(chat.ToolResult{ID: "call_big", Name: "read", Content: strings.Repeat("0123456789abcdé\n", 4<<20/17)})
	mustKeep(t, r, "c", "call_big", excerpt(big), []chat.Message{big})
	wantReplaced(t, r, "c", "call_big", excerpt(big), []chat.Message{big})
}

func testReplacedOverwrite(t *testing.T, r memory.CompactionRepository) {
	first := chat.ToolMessage(chat.ToolResult{ID: "call_0", Name: "read", Content: "first turn's result"})
	second := chat.ToolMessage(chat.ToolResult{ID: "call_0", Name: "read", Content: "second turn's result"})
	mustKeep(t, r, "c", "call_0", excerpt(first), []chat.Message{first})
	mustKeep(t, r, "c", "call_0", excerpt(second), []chat.Message{second})
	wantReplaced(t, r, "c", "call_0", excerpt(second), []chat.Message{second})
}

func testReplacedIsolation(t *testing.T, r memory.CompactionRepository) {
	for i, conv := range oddIDs {
		m := chat.ToolMessage(chat.ToolResult{ID: "call_1", Name: "read", Content: "result of " + fmt.Sprint(i)})
		mustKeep(t, r, conv, "call_1", excerpt(m), []chat.Message{m})
	}
	for i, conv := range oddIDs {
		m := chat.ToolMessage(chat.ToolResult{ID: "call_1", Name: "read", Content: "result of " + fmt.Sprint(i)})
		wantReplaced(t, r, conv, "call_1", excerpt(m), []chat.Message{m})
	}
	wantNoReplaced(t, r, "another", "call_1")
}

// Neither the caller's slices after KeepReplaced nor what Replaced returned can change what is
// kept.
func testReplacedCopies(t *testing.T, r memory.CompactionRepository) {
	orig := []chat.Message{chat.ToolMessage(chat.ToolResult{ID: "call_1", Name: "read", Content: "kept"})}
	rep := excerpt(orig[0])
	mustKeep(t, r, "c", "call_1", rep, orig)
	orig[0].ToolResults[0].Content = "changed by the caller"
	rep.ToolResults[0].Content = "changed by the caller"
	_, got, _, _ := r.Replaced(context.Background(), "c", "call_1")
	got[0].ToolResults[0].Content = "changed by a reader"
	want := []chat.Message{chat.ToolMessage(chat.ToolResult{ID: "call_1", Name: "read", Content: "kept"})}
	wantReplaced(t, r, "c", "call_1", excerpt(want[0]), want)
}

func testReplacedDelete(t *testing.T, r memory.CompactionRepository) {
	m := chat.ToolMessage(chat.ToolResult{ID: "call_1", Name: "read", Content: "text"})
	mustAppend(t, r, "c", chat.User("read it"))
	mustKeep(t, r, "c", "call_1", excerpt(m), []chat.Message{m})
	mustKeep(t, r, "other", "call_1", excerpt(m), []chat.Message{m})
	if err := r.Delete(context.Background(), "c"); err != nil {
		t.Fatal(err)
	}
	wantNoReplaced(t, r, "c", "call_1")
	wantReplaced(t, r, "other", "call_1", excerpt(m), []chat.Message{m})
	// Kept for a conversation without messages (a turn's only), removed with it too.
	if err := r.Delete(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	wantNoReplaced(t, r, "other", "call_1")
}

func testReplacedReplace(t *testing.T, r memory.CompactionRepository) {
	m := chat.ToolMessage(chat.ToolResult{ID: "call_1", Name: "read", Content: "text"})
	mustAppend(t, r, "c", chat.User("read it"))
	mustKeep(t, r, "c", "call_1", excerpt(m), []chat.Message{m})
	if err := r.Replace(context.Background(), "c", []chat.Message{chat.User("rewritten"), excerpt(m)}); err != nil {
		t.Fatal(err)
	}
	wantReplaced(t, r, "c", "call_1", excerpt(m), []chat.Message{m})
}

func testReplacedInvalid(t *testing.T, r memory.CompactionRepository) {
	ctx := context.Background()
	m := []chat.Message{chat.User("x")}
	for name, id := range InvalidIDs() {
		if err := r.KeepReplaced(ctx, id, "call_1", m[0], m); err == nil {
			t.Errorf("KeepReplaced with conversation id %s: no error", name)
		}
		if _, _, _, err := r.Replaced(ctx, id, "call_1"); err == nil {
			t.Errorf("Replaced with conversation id %s: no error", name)
		}
	}
	for name, id := range map[string]string{
		"empty": "", "NUL": "a\x00b", "invalid UTF-8": "bad \xff", "too long": strings.Repeat("x", memory.MaxConversationIDLen+1),
	} {
		if err := r.KeepReplaced(ctx, "c", id, m[0], m); !errors.Is(err, memory.ErrInvalidReplacement) {
			t.Errorf("KeepReplaced with id %s: %v, want ErrInvalidReplacement", name, err)
		}
	}
	if err := r.KeepReplaced(ctx, "c", "call_1", m[0], nil); !errors.Is(err, memory.ErrInvalidReplacement) {
		t.Errorf("KeepReplaced without originals: %v, want ErrInvalidReplacement", err)
	}
	wantNoReplaced(t, r, "c", "call_1")
}

// Writers keeping under distinct and shared ids at once: each distinct one is found whole, and
// a shared one holds one writer's pair, never a mix.
func testReplacedConcurrent(t *testing.T, r memory.CompactionRepository) {
	const writers, each = 6, 10
	var fns []func() error
	for w := range writers {
		fns = append(fns, func() error {
			for i := range each {
				m := chat.ToolMessage(chat.ToolResult{ID: "x", Name: "read", Content: fmt.Sprintf("w%d-%d", w, i)})
				for _, id := range []string{fmt.Sprintf("w%d-%d", w, i), "shared"} {
					if err := r.KeepReplaced(context.Background(), "c", id, excerpt(m), []chat.Message{m}); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	if !concurrently(t, fns...) {
		t.FailNow()
	}
	for w := range writers {
		for i := range each {
			m := chat.ToolMessage(chat.ToolResult{ID: "x", Name: "read", Content: fmt.Sprintf("w%d-%d", w, i)})
			wantReplaced(t, r, "c", fmt.Sprintf("w%d-%d", w, i), excerpt(m), []chat.Message{m})
		}
	}
	rep, orig, ok, err := r.Replaced(context.Background(), "c", "shared")
	if err != nil || !ok || len(orig) != 1 || !Equal([]chat.Message{rep}, []chat.Message{excerpt(orig[0])}) {
		t.Fatalf("shared id: %+v, %+v, %v, %v", rep, orig, ok, err)
	}
}
