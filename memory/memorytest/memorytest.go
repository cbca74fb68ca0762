// Package memorytest checks that a [memory.Repository] keeps the contract: messages stored in
// order and intact, conversations kept apart, the end of a conversation read alone
// ([memory.Repository.Last]), the same conversation ids accepted and refused as every other
// repository, and atomic writes under concurrency. Run it from
// the tests of every implementation:
//
//	func TestConformance(t *testing.T) {
//		memorytest.Run(t, func(t *testing.T) memory.Repository { return open(t) })
//	}
package memorytest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/memory"
)

// Run runs the conformance tests as subtests of t. newRepo returns an empty repository for each
// subtest and arranges its cleanup; repositories made for one t must not share conversations
// with those of another.
func Run(t *testing.T, newRepo func(t *testing.T) memory.Repository) {
	suite[memory.Repository]{
		{"Empty", testEmpty},
		{"RoundTrip", testRoundTrip},
		{"AppendInOrder", testAppendInOrder},
		{"AppendNothing", testAppendNothing},
		{"InvalidUTF8", testInvalidUTF8},
		{"Isolation", testIsolation},
		{"Copies", testCopies},
		{"Replace", testReplace},
		{"ReplaceEmptyDeletes", testReplaceEmpty},
		{"Delete", testDelete},
		{"ConversationsSorted", testConversationsSorted},
		{"Last", testLast},
		{"LastSystem", testLastSystem},
		{"LastAfterReplace", testLastAfterReplace},
		{"InvalidIDs", testInvalidIDs},
		{"LongestID", testLongestID},
		{"ConcurrentAppend", testConcurrentAppend},
		{"ConcurrentLast", testConcurrentLast},
		{"ConcurrentConversations", testConcurrentConversations},
		{"ConcurrentReplace", testConcurrentReplace},
	}.run(t, newRepo)
}

// suite is a conformance suite: named checks of a repository of type R.
type suite[R any] []struct {
	name string
	fn   func(*testing.T, R)
}

// run runs each check as a subtest of t on a new repository.
func (s suite[R]) run(t *testing.T, newRepo func(*testing.T) R) {
	for _, c := range s {
		t.Run(c.name, func(t *testing.T) { c.fn(t, newRepo(t)) })
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
		chat.User("Compare these:",
			content.Image([]byte("\x89PNG\r\n\x1a\n\x00\xff\xfe binary"), "image/png"),
			content.Text(" and "),
			content.Document([]byte("%PDF-1.4\n\x00\x01"), "application/pdf", "report.pdf"),
			content.ImageURL("https://example.com/a.jpg?sig=x&y=1", "image/jpeg"),
			content.Audio([]byte("RIFF\x00\x00WAVE"), "audio/wav")),
		{Role: chat.RoleAssistant, Parts: []content.Part{
			{Kind: content.KindText, Text: "They differ.", Signature: "c2lnMQ=="},
			{Kind: content.KindText, Signature: "c2lnMg=="},
		}},
		chat.ToolMessage(chat.ToolResult{ID: "call_3", Name: "chart", Content: "chart:",
			Parts: []content.Part{content.Image([]byte{0x89, 'P', 'N', 'G', 0}, "image/png")}}),
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
	if len(m.Parts) == 0 {
		m.Parts = nil
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

// testInvalidUTF8 checks that messages whose strings are not valid UTF-8 (what a tool that
// returns a file's or a command's raw bytes gives) are stored, each invalid byte either kept or
// replaced by U+FFFD, as JSON encoders replace it on the way to the model: refusing them would
// fail the turn after its tools ran, and every retry of it.
func testInvalidUTF8(t *testing.T, r memory.Repository) {
	msgs := []chat.Message{
		chat.User("caf\xe9 au lait"),
		{Role: chat.RoleAssistant, Content: "reading \xff", ToolCalls: []chat.ToolCall{{ID: "c\xfe1", Name: "cat", Arguments: `{"path":"a\xffb"}`}}},
		chat.ToolMessage(chat.ToolResult{ID: "c\xfe1", Name: "cat", Content: "bin\xffary\x80 data"}),
		{Role: "us\xffer", Content: "odd role"},
	}
	mustAppend(t, r, "c", msgs...)
	got := mustMessages(t, r, "c")
	if len(got) != len(msgs) {
		t.Fatalf("Messages = %d messages, want %d", len(got), len(msgs))
	}
	same := func(got, want string) bool {
		return got == want || got == strings.ToValidUTF8(want, "\uFFFD")
	}
	if !same(got[0].Content, msgs[0].Content) || !same(got[1].Content, msgs[1].Content) ||
		len(got[1].ToolCalls) != 1 || !same(got[1].ToolCalls[0].ID, "c\xfe1") || !same(got[1].ToolCalls[0].Arguments, `{"path":"a\xffb"}`) ||
		len(got[2].ToolResults) != 1 || !same(got[2].ToolResults[0].ID, "c\xfe1") || !same(got[2].ToolResults[0].Content, "bin\xffary\x80 data") ||
		!same(string(got[3].Role), "us\xffer") {
		t.Fatalf("Messages = %q", got)
	}
}

// ids that share prefixes, differ in case, or look like SQL or LIKE patterns.
var oddIDs = []string{"a", "ab", "A", " ", "a%", "a_", "%", "'; DROP TABLE x; --", "ünï/cödé 🌦", "a\u200bb", strings.Repeat("x", 300)}

// InvalidIDs are conversation ids every repository refuses, by name: what
// [memory.ValidateConversationID] refuses.
func InvalidIDs() map[string]string {
	return map[string]string{
		"empty":              "",
		"NUL":                "a\x00b",
		"newline":            "a\nb",
		"escape sequence":    "\x1b[31mred",
		"C1 control":         "a\u009bb",
		"invalid UTF-8":      "bad \xff byte",
		"one byte too long":  strings.Repeat("x", memory.MaxConversationIDLen+1),
		"a megabyte":         strings.Repeat("y", 1<<20),
		"long multibyte":     strings.Repeat("é", memory.MaxConversationIDLen/2+1),
		"DEL":                "a\x7fb",
		"tab":                "a\tb",
		"truncated sequence": "caf\xc3",
	}
}

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
	writeWhileReading(t, r, writers, batches, 2, func(ctx context.Context) error {
		msgs, err := r.Messages(ctx, "shared")
		if err == nil {
			_, err = CheckBatches(msgs)
		}
		return err
	})
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

// concurrently runs each of fns in a goroutine of its own and, once all are done, reports every
// error they returned to t; it returns whether none did.
func concurrently(t *testing.T, fns ...func() error) bool {
	var wg sync.WaitGroup
	errs := make(chan error, len(fns))
	for _, fn := range fns {
		wg.Go(func() {
			if err := fn(); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	ok := true
	for err := range errs {
		t.Error(err)
		ok = false
	}
	return ok
}

// writeWhileReading has writers each append batches to conversation "shared" ([Batch] of writer
// "w<n>") while readers call read until the writers are done; it reports every error to t.
func writeWhileReading(t *testing.T, r memory.Repository, writers, batches, readers int, read func(context.Context) error) {
	ctx := t.Context()
	done := make(chan struct{})
	var writes []func() error
	for w := range writers {
		writes = append(writes, func() error {
			for b := range batches {
				if err := r.Append(ctx, "shared", Batch("w"+strconv.Itoa(w), b, 1+(w+b)%4)...); err != nil {
					return fmt.Errorf("writer %d batch %d: %w", w, b, err)
				}
			}
			return nil
		})
	}
	fns := []func() error{func() error {
		defer close(done)
		concurrently(t, writes...)
		return nil
	}}
	for range readers {
		fns = append(fns, func() error {
			for {
				select {
				case <-done:
					return nil
				default:
				}
				if err := read(ctx); err != nil {
					return fmt.Errorf("reader: %w", err)
				}
			}
		})
	}
	concurrently(t, fns...)
}

// testConcurrentConversations has each writer own a conversation while others are replaced and
// deleted around them.
func testConcurrentConversations(t *testing.T, r memory.Repository) {
	const writers, batches = 5, 12
	ctx := t.Context()
	fns := []func() error{func() error {
		for i := range batches {
			if err := r.Replace(ctx, "replaced", Batch("r", 0, 1+i%3)); err != nil {
				return err
			}
			if err := r.Append(ctx, "deleted", chat.User("x")); err != nil {
				return err
			}
			if err := r.Delete(ctx, "deleted"); err != nil {
				return err
			}
		}
		return nil
	}}
	for w := range writers {
		fns = append(fns, func() error {
			id := "conv-" + strconv.Itoa(w)
			for b := range batches {
				if err := r.Append(ctx, id, Batch(id, b, 2)...); err != nil {
					return err
				}
			}
			return nil
		})
	}
	concurrently(t, fns...)
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
	concurrently(t, func() error {
		defer close(done)
		for v := 1; v <= 15; v++ {
			if err := r.Replace(ctx, "c", Batch("v"+strconv.Itoa(v), 0, 3+v%5)); err != nil {
				return err
			}
		}
		return nil
	}, func() error {
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
				return fmt.Errorf("reader: %w", err)
			}
			select {
			case <-done:
				return nil
			default:
			}
		}
	})
	wantMessages(t, r, "c", Batch("v15", 0, 3))
}

func mustLast(t *testing.T, r memory.Repository, id string, n int) (*chat.Message, []chat.Message) {
	t.Helper()
	sys, msgs, err := r.Last(t.Context(), id, n)
	if err != nil {
		t.Fatalf("Last(%q, %d): %v", id, n, err)
	}
	return sys, msgs
}

// testLast checks that Last returns the end of the conversation, as Messages has it, for every n.
func testLast(t *testing.T, r memory.Repository) {
	if sys, msgs := mustLast(t, r, "unknown", 5); sys != nil || len(msgs) != 0 {
		t.Fatalf("Last of an unknown conversation = %v, %v; want none", sys, msgs)
	}
	var all []chat.Message
	for b := range 7 {
		msgs := Batch("w", b, 1+b%3)
		mustAppend(t, r, "c", msgs...)
		all = append(all, msgs...)
	}
	mustAppend(t, r, "other", chat.User("elsewhere"))
	for _, n := range []int{-1, 0, 1, 2, 3, len(all) - 1, len(all), len(all) + 1, 1000} {
		sys, got := mustLast(t, r, "c", n)
		want := all[max(len(all)-max(n, 0), 0):]
		if sys != nil || !Equal(got, want) {
			t.Fatalf("Last(c, %d) = %v, %v; want no system message and\n%v", n, sys, got, want)
		}
	}
	rich := Rich()[1:] // no system message
	mustAppend(t, r, "rich", rich...)
	if _, got := mustLast(t, r, "rich", 3); !Equal(got, rich[len(rich)-3:]) {
		t.Fatalf("Last(rich, 3) =\n%v\nwant\n%v", got, rich[len(rich)-3:])
	}
	// What Last returns is the caller's.
	_, got := mustLast(t, r, "rich", len(rich))
	got[1].ToolCalls[0].Name = "changed after Last"
	got[0].Content = "changed after Last"
	if _, again := mustLast(t, r, "rich", len(rich)); !Equal(again, Rich()[1:]) {
		t.Fatal("changing what Last returned changed the stored conversation")
	}
}

// testLastSystem checks the system message Last returns beside the tail: the most recent one,
// only when it comes before the tail.
func testLastSystem(t *testing.T, r memory.Repository) {
	s1, s2 := chat.System("first rules"), chat.System("second rules")
	conv := []chat.Message{s1, chat.User("u0"), chat.Assistant("a0"), s2, chat.User("u1"), chat.Assistant("a1"), chat.User("u2"), chat.Assistant("a2")}
	mustAppend(t, r, "c", conv...)
	mustAppend(t, r, "plain", chat.User("no system here"))
	tests := []struct {
		n          int
		wantSystem *chat.Message
	}{
		{1, &s2}, {4, &s2}, {5, nil}, {6, nil}, {7, nil}, {8, nil}, {20, nil},
	}
	for _, tt := range tests {
		sys, got := mustLast(t, r, "c", tt.n)
		want := conv[max(len(conv)-tt.n, 0):]
		if !Equal(got, want) {
			t.Fatalf("Last(c, %d) messages =\n%v\nwant\n%v", tt.n, got, want)
		}
		switch {
		case tt.wantSystem == nil && sys != nil:
			t.Fatalf("Last(c, %d) system = %v, want none: the latest system message is among the messages", tt.n, *sys)
		case tt.wantSystem != nil && (sys == nil || !Equal([]chat.Message{*sys}, []chat.Message{*tt.wantSystem})):
			t.Fatalf("Last(c, %d) system = %v, want %v", tt.n, sys, *tt.wantSystem)
		}
	}
	if sys, _ := mustLast(t, r, "plain", 1); sys != nil {
		t.Fatalf("Last of a conversation without system messages gave %v", *sys)
	}
	if sys, msgs := mustLast(t, r, "c", 0); sys != nil || len(msgs) != 0 {
		t.Fatalf("Last(c, 0) = %v, %v; want nothing", sys, msgs)
	}
	// A system message appended later is the latest.
	s3 := chat.System("third rules")
	mustAppend(t, r, "c", s3, chat.User("u3"))
	if sys, _ := mustLast(t, r, "c", 1); sys == nil || sys.Content != "third rules" {
		t.Fatalf("after another system message, Last(c, 1) system = %v", sys)
	}
}

func testLastAfterReplace(t *testing.T, r memory.Repository) {
	mustAppend(t, r, "c", chat.System("old rules"), chat.User("old"), chat.Assistant("old"))
	if err := r.Replace(t.Context(), "c", []chat.Message{chat.User("new"), chat.Assistant("new")}); err != nil {
		t.Fatal(err)
	}
	sys, got := mustLast(t, r, "c", 1)
	if sys != nil || !Equal(got, []chat.Message{chat.Assistant("new")}) {
		t.Fatalf("Last after Replace = %v, %v; want no system message and the new answer", sys, got)
	}
	if err := r.Delete(t.Context(), "c"); err != nil {
		t.Fatal(err)
	}
	if sys, got := mustLast(t, r, "c", 5); sys != nil || len(got) != 0 {
		t.Fatalf("Last after Delete = %v, %v", sys, got)
	}
}

// testInvalidIDs checks that every method refuses the ids no repository accepts, with a short
// error that does not repeat them, and stores nothing.
func testInvalidIDs(t *testing.T, r memory.Repository) {
	ctx := t.Context()
	for name, id := range InvalidIDs() {
		t.Run(name, func(t *testing.T) {
			_, _, lastErr := r.Last(ctx, id, 3)
			_, msgsErr := r.Messages(ctx, id)
			errs := map[string]error{
				"Append":   r.Append(ctx, id, chat.User("x")),
				"Replace":  r.Replace(ctx, id, []chat.Message{chat.User("x")}),
				"Delete":   r.Delete(ctx, id),
				"Messages": msgsErr,
				"Last":     lastErr,
			}
			want := memory.ValidateConversationID(id)
			if want == nil {
				t.Fatalf("ValidateConversationID accepts %q", id)
			}
			for method, err := range errs {
				switch {
				case err == nil:
					t.Errorf("%s accepted the id", method)
				case !errors.Is(err, memory.ErrInvalidConversationID) && !errors.Is(err, memory.ErrNoConversationID):
					t.Errorf("%s: %v, want an error wrapping memory.ErrInvalidConversationID or ErrNoConversationID", method, err)
				case len(err.Error()) > 200:
					t.Errorf("%s: a %d-byte error", method, len(err.Error()))
				case len(id) > 3 && strings.Contains(err.Error(), id):
					t.Errorf("%s: the error repeats the id: %v", method, err)
				}
			}
		})
	}
	if ids := mustConversations(t, r); len(ids) != 0 {
		t.Fatalf("refused ids left conversations %q", ids)
	}
}

// testLongestID checks that ids of the greatest length are accepted, multibyte ones too.
func testLongestID(t *testing.T, r memory.Repository) {
	ascii := strings.Repeat("a", memory.MaxConversationIDLen)
	multi := strings.Repeat("€", memory.MaxConversationIDLen/3) + strings.Repeat("b", memory.MaxConversationIDLen%3)
	for _, id := range []string{ascii, multi} {
		if err := memory.ValidateConversationID(id); err != nil {
			t.Fatalf("ValidateConversationID of %d bytes: %v", len(id), err)
		}
		mustAppend(t, r, id, chat.User("longest"))
		wantMessages(t, r, id, []chat.Message{chat.User("longest")})
	}
	if got, want := mustConversations(t, r), []string{ascii, multi}; !slices.Equal(got, want) {
		t.Fatalf("Conversations = %d ids, want both longest ids", len(got))
	}
}

// testConcurrentLast has writers append batches while readers check that every Last sees whole
// batches after its first message (only the oldest batch may be cut by n).
func testConcurrentLast(t *testing.T, r memory.Repository) {
	const writers, batches, n = 4, 12, 7
	writeWhileReading(t, r, writers, batches, 1, func(ctx context.Context) error {
		_, msgs, err := r.Last(ctx, "shared", n)
		if err == nil && len(msgs) > n {
			err = fmt.Errorf("Last(%d) returned %d messages", n, len(msgs))
		}
		if err == nil {
			err = checkTail(msgs)
		}
		return err
	})
	all := mustMessages(t, r, "shared")
	if _, got := mustLast(t, r, "shared", n); !Equal(got, all[len(all)-n:]) {
		t.Fatalf("Last(%d) after the writes =\n%v\nwant\n%v", n, got, all[len(all)-n:])
	}
}

// checkTail checks the end of a conversation written with [Batch] messages: after a cut first
// batch, whole batches only.
func checkTail(msgs []chat.Message) error {
	i := 0
	if len(msgs) > 0 {
		writer, batch, pos, size, err := parseTag(msgs[0].Content)
		if err != nil {
			return err
		}
		for ; i < len(msgs) && i < size-pos; i++ {
			if want := Batch(writer, batch, size)[pos+i]; !Equal(msgs[i:i+1], []chat.Message{want}) {
				return fmt.Errorf("message %d: the cut batch %d of %s is not intact: got %v, want %v", i, batch, writer, msgs[i], want)
			}
		}
	}
	for i < len(msgs) {
		writer, batch, pos, size, err := parseTag(msgs[i].Content)
		if err != nil {
			return err
		}
		if pos != 0 || i+size > len(msgs) || !Equal(msgs[i:i+size], Batch(writer, batch, size)) {
			return fmt.Errorf("message %d: batch %d of %s is not whole", i, batch, writer)
		}
		i += size
	}
	return nil
}
