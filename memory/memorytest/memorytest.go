// Package memorytest checks that a [memory.Repository] keeps the contract: messages stored in
// order and intact, conversations kept apart, and atomic writes under concurrency. Run it from
// the tests of every implementation:
//
//	func TestConformance(t *testing.T) {
//		memorytest.Run(t, func(t *testing.T) memory.Repository { return open(t) })
//	}
package memorytest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/memory"
)

// Run runs the conformance tests as subtests of t. newRepo returns an empty repository for each
// subtest and arranges its cleanup; repositories made for one t must not share conversations
// with those of another.
func Run(t *testing.T, newRepo func(t *testing.T) memory.Repository) {
	tests := []struct {
		name string
		fn   func(*testing.T, memory.Repository)
	}{
		{"Empty", testEmpty},
		{"RoundTrip", testRoundTrip},
		{"AppendInOrder", testAppendInOrder},
		{"AppendNothing", testAppendNothing},
		{"Isolation", testIsolation},
		{"Copies", testCopies},
		{"Replace", testReplace},
		{"ReplaceEmptyDeletes", testReplaceEmpty},
		{"Delete", testDelete},
		{"ConversationsSorted", testConversationsSorted},
		{"ConcurrentAppend", testConcurrentAppend},
		{"ConcurrentConversations", testConcurrentConversations},
		{"ConcurrentReplace", testConcurrentReplace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newRepo(t)) })
	}
}

// Rich returns messages using every field of [chat.Message]: tool calls with signatures, tool
// results with errors, reasoning, and text that stresses encodings (NUL, quotes, non-ASCII,
// newlines, JSON-like text). A repository must give them back exactly.
func Rich() []chat.Message {
	return []chat.Message{
		chat.System("You are helpful.\nAnswer briefly."),
		chat.User("What's the weather in Zürich — and in 東京? 🌦 \"quoted\" 'single' \\ back\x00slash"),
		{
			Role:    chat.RoleAssistant,
			Content: "",
			ToolCalls: []chat.ToolCall{
				{ID: "call_1", Name: "weather", Arguments: `{"city": "Zürich",  "unit":"C"}`, Index: 0},
				{ID: "call_2", Name: "weather", Arguments: `{"city":"東京"}`, Index: 1, Signature: "sig/+=="},
			},
			Reasoning: []chat.Reasoning{
				{Provider: "anthropic", Text: "Two cities, two calls.", Signature: "EqQBCkYIARgCKkD"},
				{Provider: "openai", ID: "rs_1", Encrypted: "gAAAAABo"},
			},
		},
		chat.ToolMessage(
			chat.ToolResult{ID: "call_1", Name: "weather", Content: `{"tempC":21}`},
			chat.ToolResult{ID: "call_2", Name: "weather", Content: "service unavailable", IsError: true},
		),
		chat.Assistant("Zürich: 21 °C. Tokyo: unknown.\r\n<b>&amp;</b> %s %d ? $1 -- ; DROP TABLE x;"),
		chat.User(strings.Repeat("long message ", 20000)),
	}
}

// Equal reports whether two conversations are the same, treating nil and empty slices alike.
func Equal(a, b []chat.Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(normalize(a[i]), normalize(b[i])) {
			return false
		}
	}
	return true
}

func normalize(m chat.Message) chat.Message {
	if len(m.ToolCalls) == 0 {
		m.ToolCalls = nil
	}
	if len(m.ToolResults) == 0 {
		m.ToolResults = nil
	}
	if len(m.Reasoning) == 0 {
		m.Reasoning = nil
	}
	return m
}

// Batch returns the size messages of batch number batch written by writer, marked so that
// [CheckBatches] can tell whether batches were stored whole, in order and without loss. The
// messages alternate user, assistant with a tool call, and tool result.
func Batch(writer string, batch, size int) []chat.Message {
	msgs := make([]chat.Message, size)
	for i := range msgs {
		tag := fmt.Sprintf("%s|%d|%d|%d", writer, batch, i, size)
		switch i % 3 {
		case 0:
			msgs[i] = chat.User(tag)
		case 1:
			msgs[i] = chat.Assistant(tag, chat.ToolCall{ID: tag, Name: "probe", Arguments: `{"tag":"` + tag + `"}`})
		default:
			msgs[i] = chat.ToolMessage(chat.ToolResult{ID: tag, Name: "probe", Content: tag})
		}
		msgs[i].Content = tag
	}
	return msgs
}

// CheckBatches checks a conversation written only with [Batch] messages: every batch whole and
// contiguous, each writer's batches in order from 0 with none missing or repeated. It returns how
// many batches each writer has.
func CheckBatches(msgs []chat.Message) (map[string]int, error) {
	counts := map[string]int{}
	for i := 0; i < len(msgs); {
		writer, batch, pos, size, err := parseTag(msgs[i].Content)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		if pos != 0 {
			return nil, fmt.Errorf("message %d: batch %d of %s starts at its message %d: batches interleaved or cut", i, batch, writer, pos)
		}
		if batch != counts[writer] {
			return nil, fmt.Errorf("message %d: batch %d of %s follows its batch %d: lost, repeated or reordered", i, batch, writer, counts[writer]-1)
		}
		if i+size > len(msgs) {
			return nil, fmt.Errorf("message %d: batch %d of %s cut after %d of %d messages", i, batch, writer, len(msgs)-i, size)
		}
		want := Batch(writer, batch, size)
		if !Equal(msgs[i:i+size], want) {
			return nil, fmt.Errorf("messages %d..%d: batch %d of %s not stored intact:\n got %v\nwant %v", i, i+size-1, batch, writer, msgs[i:i+size], want)
		}
		counts[writer]++
		i += size
	}
	return counts, nil
}

func parseTag(tag string) (writer string, batch, pos, size int, err error) {
	parts := strings.Split(tag, "|")
	if len(parts) != 4 {
		return "", 0, 0, 0, fmt.Errorf("not a batch message: %q", tag)
	}
	nums := make([]int, 3)
	for i, p := range parts[1:] {
		if nums[i], err = strconv.Atoi(p); err != nil {
			return "", 0, 0, 0, fmt.Errorf("not a batch message: %q", tag)
		}
	}
	return parts[0], nums[0], nums[1], nums[2], nil
}

func mustAppend(t *testing.T, r memory.Repository, id string, msgs ...chat.Message) {
	t.Helper()
	if err := r.Append(t.Context(), id, msgs...); err != nil {
		t.Fatalf("Append(%q): %v", id, err)
	}
}

func mustMessages(t *testing.T, r memory.Repository, id string) []chat.Message {
	t.Helper()
	msgs, err := r.Messages(t.Context(), id)
	if err != nil {
		t.Fatalf("Messages(%q): %v", id, err)
	}
	return msgs
}

func mustConversations(t *testing.T, r memory.Repository) []string {
	t.Helper()
	ids, err := r.Conversations(t.Context())
	if err != nil {
		t.Fatalf("Conversations: %v", err)
	}
	return ids
}

func wantMessages(t *testing.T, r memory.Repository, id string, want []chat.Message) {
	t.Helper()
	if got := mustMessages(t, r, id); !Equal(got, want) {
		t.Fatalf("Messages(%q) =\n%v\nwant\n%v", id, got, want)
	}
}

func testEmpty(t *testing.T, r memory.Repository) {
	if msgs := mustMessages(t, r, "unknown"); len(msgs) != 0 {
		t.Errorf("Messages of an unknown conversation = %v, want none", msgs)
	}
	if ids := mustConversations(t, r); len(ids) != 0 {
		t.Errorf("Conversations of an empty repository = %v, want none", ids)
	}
	if err := r.Delete(t.Context(), "unknown"); err != nil {
		t.Errorf("Delete of an unknown conversation: %v", err)
	}
}

func testRoundTrip(t *testing.T, r memory.Repository) {
	rich := Rich()
	mustAppend(t, r, "c", rich...)
	wantMessages(t, r, "c", rich)
	if ids := mustConversations(t, r); !slices.Equal(ids, []string{"c"}) {
		t.Errorf("Conversations = %q, want [c]", ids)
	}
}

func testAppendInOrder(t *testing.T, r memory.Repository) {
	var want []chat.Message
	for i := range 12 {
		msgs := Batch("w", i, i%4+1)
		mustAppend(t, r, "c", msgs...)
		want = append(want, msgs...)
	}
	wantMessages(t, r, "c", want)
	counts, err := CheckBatches(mustMessages(t, r, "c"))
	if err != nil || counts["w"] != 12 {
		t.Fatalf("CheckBatches = %v, %v; want 12 batches", counts, err)
	}
}

func testAppendNothing(t *testing.T, r memory.Repository) {
	mustAppend(t, r, "c")
	if msgs := mustMessages(t, r, "c"); len(msgs) != 0 {
		t.Fatalf("Messages after an empty Append = %v, want none", msgs)
	}
	mustAppend(t, r, "c", chat.User("hi"))
	mustAppend(t, r, "c")
	wantMessages(t, r, "c", []chat.Message{chat.User("hi")})
}

// ids that share prefixes, differ in case, or look like SQL or LIKE patterns.
var oddIDs = []string{"a", "ab", "A", "", " ", "a%", "a_", "%", "'; DROP TABLE x; --", "ünï/cödé 🌦", "a\nb", strings.Repeat("x", 300)}

func testIsolation(t *testing.T, r memory.Repository) {
	for i, id := range oddIDs {
		mustAppend(t, r, id, chat.User("first of "+strconv.Itoa(i)))
	}
	for i, id := range oddIDs {
		mustAppend(t, r, id, chat.Assistant("second of "+strconv.Itoa(i)))
	}
	for i, id := range oddIDs {
		wantMessages(t, r, id, []chat.Message{chat.User("first of " + strconv.Itoa(i)), chat.Assistant("second of " + strconv.Itoa(i))})
	}
	want := slices.Sorted(slices.Values(oddIDs))
	if ids := mustConversations(t, r); !slices.Equal(ids, want) {
		t.Fatalf("Conversations = %q, want %q", ids, want)
	}
	if err := r.Delete(t.Context(), "a"); err != nil {
		t.Fatal(err)
	}
	wantMessages(t, r, "ab", []chat.Message{chat.User("first of 1"), chat.Assistant("second of 1")})
	wantMessages(t, r, "A", []chat.Message{chat.User("first of 2"), chat.Assistant("second of 2")})
}

func testCopies(t *testing.T, r memory.Repository) {
	in := Rich()[:4]
	mustAppend(t, r, "c", in...)
	in[2].ToolCalls[0].Name = "changed after Append"
	in[0].Content = "changed after Append"
	got := mustMessages(t, r, "c")
	got[2].ToolCalls[0].Name = "changed after Messages"
	got[3].ToolResults[0].Content = "changed after Messages"
	wantMessages(t, r, "c", Rich()[:4])
}

func testReplace(t *testing.T, r memory.Repository) {
	mustAppend(t, r, "c", Batch("old", 0, 5)...)
	mustAppend(t, r, "other", chat.User("untouched"))
	repl := Rich()[:3]
	if err := r.Replace(t.Context(), "c", repl); err != nil {
		t.Fatalf("Replace: %v", err)
	}
	wantMessages(t, r, "c", repl)
	mustAppend(t, r, "c", chat.User("after replace"))
	wantMessages(t, r, "c", append(slices.Clone(repl), chat.User("after replace")))
	if err := r.Replace(t.Context(), "new", []chat.Message{chat.User("created by Replace")}); err != nil {
		t.Fatalf("Replace of a new conversation: %v", err)
	}
	wantMessages(t, r, "new", []chat.Message{chat.User("created by Replace")})
	wantMessages(t, r, "other", []chat.Message{chat.User("untouched")})
	// A shorter conversation replacing a longer one keeps nothing of the longer.
	if err := r.Replace(t.Context(), "c", []chat.Message{chat.User("short")}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, r, "c", chat.User("next"))
	wantMessages(t, r, "c", []chat.Message{chat.User("short"), chat.User("next")})
}

func testReplaceEmpty(t *testing.T, r memory.Repository) {
	mustAppend(t, r, "c", chat.User("hi"))
	mustAppend(t, r, "d", chat.User("stays"))
	if err := r.Replace(t.Context(), "c", nil); err != nil {
		t.Fatalf("Replace with nothing: %v", err)
	}
	if msgs := mustMessages(t, r, "c"); len(msgs) != 0 {
		t.Fatalf("Messages after Replace with nothing = %v", msgs)
	}
	if ids := mustConversations(t, r); !slices.Equal(ids, []string{"d"}) {
		t.Fatalf("Conversations = %q, want [d]", ids)
	}
}

func testDelete(t *testing.T, r memory.Repository) {
	mustAppend(t, r, "c", Batch("w", 0, 4)...)
	mustAppend(t, r, "d", chat.User("stays"))
	if err := r.Delete(t.Context(), "c"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if msgs := mustMessages(t, r, "c"); len(msgs) != 0 {
		t.Fatalf("Messages after Delete = %v", msgs)
	}
	if ids := mustConversations(t, r); !slices.Equal(ids, []string{"d"}) {
		t.Fatalf("Conversations after Delete = %q, want [d]", ids)
	}
	if err := r.Delete(t.Context(), "c"); err != nil {
		t.Fatalf("second Delete: %v", err)
	}
	mustAppend(t, r, "c", chat.User("fresh"))
	wantMessages(t, r, "c", []chat.Message{chat.User("fresh")})
	wantMessages(t, r, "d", []chat.Message{chat.User("stays")})
}

func testConversationsSorted(t *testing.T, r memory.Repository) {
	ids := []string{"b", "a", "B", "é", "a-2", "a-10", "z", "0"}
	for _, id := range ids {
		mustAppend(t, r, id, chat.User(id))
	}
	want := slices.Sorted(slices.Values(ids))
	if got := mustConversations(t, r); !slices.Equal(got, want) {
		t.Fatalf("Conversations = %q, want %q (bytewise order)", got, want)
	}
}

// testConcurrentAppend has writers append batches to one conversation while readers check that
// every read sees whole batches.
func testConcurrentAppend(t *testing.T, r memory.Repository) {
	const writers, batches = 6, 15
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, writers*batches+64)
	done := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				if err := r.Append(ctx, "shared", Batch("w"+strconv.Itoa(w), b, 1+(w+b)%4)...); err != nil {
					errs <- fmt.Errorf("writer %d batch %d: %w", w, b, err)
					return
				}
			}
		})
	}
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				msgs, err := r.Messages(ctx, "shared")
				if err == nil {
					_, err = CheckBatches(msgs)
				}
				if err != nil {
					errs <- fmt.Errorf("reader: %w", err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	counts, err := CheckBatches(mustMessages(t, r, "shared"))
	if err != nil {
		t.Fatal(err)
	}
	for w := range writers {
		if n := counts["w"+strconv.Itoa(w)]; n != batches {
			t.Errorf("writer %d has %d batches stored, want %d", w, n, batches)
		}
	}
}

// testConcurrentConversations has each writer own a conversation while others are replaced and
// deleted around them.
func testConcurrentConversations(t *testing.T, r memory.Repository) {
	const writers, batches = 5, 12
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, writers+2)
	for w := range writers {
		wg.Go(func() {
			id := "conv-" + strconv.Itoa(w)
			for b := range batches {
				if err := r.Append(ctx, id, Batch(id, b, 2)...); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Go(func() {
		for i := range batches {
			if err := r.Replace(ctx, "replaced", Batch("r", 0, 1+i%3)); err != nil {
				errs <- err
				return
			}
			if err := r.Append(ctx, "deleted", chat.User("x")); err != nil {
				errs <- err
				return
			}
			if err := r.Delete(ctx, "deleted"); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w := range writers {
		id := "conv-" + strconv.Itoa(w)
		counts, err := CheckBatches(mustMessages(t, r, id))
		if err != nil || len(counts) != 1 || counts[id] != batches {
			t.Errorf("%s: batches %v, %v; want %d of its own", id, counts, err, batches)
		}
	}
	wantMessages(t, r, "replaced", Batch("r", 0, 1+(batches-1)%3))
	if msgs := mustMessages(t, r, "deleted"); len(msgs) != 0 {
		t.Errorf("deleted conversation has %v", msgs)
	}
}

// testConcurrentReplace checks that readers see a replaced conversation either before or after
// a Replace, never a mix.
func testConcurrentReplace(t *testing.T, r memory.Repository) {
	ctx := context.WithoutCancel(t.Context())
	mustAppend(t, r, "c", Batch("v0", 0, 6)...)
	done := make(chan struct{})
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for v := 1; v <= 15; v++ {
			if err := r.Replace(ctx, "c", Batch("v"+strconv.Itoa(v), 0, 3+v%5)); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Go(func() {
		for {
			msgs, err := r.Messages(ctx, "c")
			if err == nil {
				var counts map[string]int
				counts, err = CheckBatches(msgs)
				if err == nil && len(counts) != 1 {
					err = fmt.Errorf("read a mix of versions: %v", counts)
				}
			}
			if err != nil {
				errs <- fmt.Errorf("reader: %w", err)
				return
			}
			select {
			case <-done:
				return
			default:
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	wantMessages(t, r, "c", Batch("v15", 0, 3))
}
