package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/memory/memorytest"
)

func call(id string) chat.ToolCall { return chat.ToolCall{ID: id, Name: "t"} }
func result(id string) chat.ToolResult {
	return chat.ToolResult{ID: id, Name: "t", Content: "r" + id}
}

func roles(msgs []chat.Message) string {
	s := ""
	for _, m := range msgs {
		switch {
		case m.Role == chat.RoleAssistant && len(m.ToolCalls) > 0:
			s += "C"
		case m.Role == chat.RoleAssistant:
			s += "A"
		case m.Role == chat.RoleTool:
			s += "T"
		case m.Role == chat.RoleUser:
			s += "U"
		case m.Role == chat.RoleSystem:
			s += "S"
		}
	}
	return s
}

func TestTrim(t *testing.T) {
	u, a, sys := chat.User("u"), chat.Assistant("a"), chat.System("s")
	c1 := chat.Assistant("", call("1"))
	c12 := chat.Assistant("", call("1"), call("2"))
	t1 := chat.ToolMessage(result("1"))
	t2 := chat.ToolMessage(result("2"))
	t12 := chat.ToolMessage(result("1"), result("2"))
	tests := []struct {
		name string
		msgs []chat.Message
		n    int
		want string
	}{
		{"fits", []chat.Message{u, a}, 5, "UA"},
		{"last n", []chat.Message{u, a, u, a, u, a}, 3, "AUA"},
		{"cut after call skips its results", []chat.Message{u, c1, t1, a}, 2, "A"},
		{"cut at call keeps group", []chat.Message{u, c1, t1, a}, 3, "CTA"},
		{"results in two messages", []chat.Message{u, c12, t1, t2, a}, 3, "A"},
		{"results in two messages kept", []chat.Message{u, c12, t1, t2, a}, 4, "CTTA"},
		{"one message, two results", []chat.Message{u, c12, t12, a}, 3, "CTA"},
		{"unanswered call at end dropped", []chat.Message{u, a, u, c1}, 4, "UAU"},
		{"partly answered call dropped", []chat.Message{u, c12, t1, a}, 4, "UA"},
		{"unanswered call keeps its text", []chat.Message{u, chat.Assistant("thinking", call("9"))}, 4, "UA"},
		{"orphan result dropped", []chat.Message{t1, u, a}, 5, "UA"},
		{"system kept and counted", []chat.Message{sys, u, a, u, a}, 3, "SUA"},
		{"latest system wins", []chat.Message{sys, u, chat.System("s2"), a}, 5, "SUA"},
		{"n below one", []chat.Message{u}, 0, ""},
		{"only system room", []chat.Message{sys, u, a}, 1, "S"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := memory.Trim(tt.msgs, tt.n)
			if r := roles(got); r != tt.want {
				t.Fatalf("Trim = %s (%v), want %s", r, got, tt.want)
			}
			if len(got) > tt.n {
				t.Fatalf("Trim returned %d > %d messages", len(got), tt.n)
			}
			if len(got) > 0 && got[0].Role == chat.RoleTool {
				t.Fatal("window starts with a tool result")
			}
		})
	}
	got := memory.Trim([]chat.Message{sys, u, chat.System("s2"), a}, 5)
	if got[0].Content != "s2" {
		t.Fatalf("system = %q, want the latest", got[0].Content)
	}
}

// TestTrimNeverOrphans checks every window size over a long conversation with tool loops.
func TestTrimNeverOrphans(t *testing.T) {
	var conv []chat.Message
	for i := range 10 {
		id := fmt.Sprint(i)
		conv = append(conv, chat.User("q"+id))
		for j := range i % 3 {
			cid := fmt.Sprint(id, "-", j)
			conv = append(conv, chat.Assistant("", call(cid+"a"), call(cid+"b")), chat.ToolMessage(result(cid+"a"), result(cid+"b")))
		}
		conv = append(conv, chat.Assistant("a"+id))
	}
	for n := 1; n <= len(conv)+1; n++ {
		got := memory.Trim(conv, n)
		if len(got) > n {
			t.Fatalf("n=%d: %d messages", n, len(got))
		}
		pending := map[string]bool{}
		for k, m := range got {
			if m.Role == chat.RoleTool {
				for _, r := range m.ToolResults {
					if !pending[r.ID] {
						t.Fatalf("n=%d: message %d answers call %s not in the window", n, k, r.ID)
					}
					delete(pending, r.ID)
				}
				continue
			}
			if len(pending) > 0 {
				t.Fatalf("n=%d: calls %v unanswered before message %d", n, pending, k)
			}
			for _, c := range m.ToolCalls {
				pending[c.ID] = true
			}
		}
		if len(pending) > 0 {
			t.Fatalf("n=%d: calls %v unanswered at the end", n, pending)
		}
	}
}

func TestWindow(t *testing.T) {
	ctx := context.Background()
	repo := memory.NewInMemory()
	w := memory.NewWindow(repo, 3)
	for i := range 5 {
		if err := w.Add(ctx, "c", chat.User(fmt.Sprint("u", i)), chat.Assistant(fmt.Sprint("a", i))); err != nil {
			t.Fatal(err)
		}
	}
	got, err := w.Get(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.Message{chat.Assistant("a3"), chat.User("u4"), chat.Assistant("a4")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Get = %v", got)
	}
	all, _ := repo.Messages(ctx, "c")
	if len(all) != 10 {
		t.Fatalf("repository holds %d messages, want all 10", len(all))
	}
	if err := w.Clear(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if got, _ := w.Get(ctx, "c"); len(got) != 0 {
		t.Fatalf("after Clear: %v", got)
	}
	for _, err := range []error{w.Add(ctx, "", chat.User("x")), w.Clear(ctx, "")} {
		if !errors.Is(err, memory.ErrNoConversationID) {
			t.Fatalf("err = %v", err)
		}
	}
	if _, err := w.Get(ctx, ""); !errors.Is(err, memory.ErrNoConversationID) {
		t.Fatalf("err = %v", err)
	}
	if d := memory.NewWindow(nil, 0); d.Size() != memory.DefaultWindowSize || d.Repository() == nil {
		t.Fatal("defaults")
	}
}

func TestWindowConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	repo := memory.NewInMemory()
	w := memory.NewWindow(repo, 10)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				if err := w.Add(ctx, "c", chat.User(fmt.Sprint(i, "/", j))); err != nil {
					t.Error(err)
				}
				if _, err := w.Get(ctx, "c"); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	all, _ := repo.Messages(ctx, "c")
	if len(all) != 200 {
		t.Fatalf("%d messages stored, want 200: concurrent adds lost messages", len(all))
	}
}

type failingRepo struct{ memory.Repository }

func (failingRepo) Messages(context.Context, string) ([]chat.Message, error) {
	return nil, errors.New("db down")
}

func (failingRepo) Last(context.Context, string, int) (*chat.Message, []chat.Message, error) {
	return nil, nil, errors.New("db down")
}

func TestWindowRepositoryError(t *testing.T) {
	w := memory.NewWindow(failingRepo{memory.NewInMemory()}, 3)
	if _, err := w.Get(context.Background(), "c"); err == nil || err.Error() != "db down" {
		t.Fatalf("err = %v", err)
	}
}

// countingRepo counts the messages its repository hands out.
type countingRepo struct {
	memory.Repository
	read int
}

func (r *countingRepo) Messages(ctx context.Context, id string) ([]chat.Message, error) {
	msgs, err := r.Repository.Messages(ctx, id)
	r.read += len(msgs)
	return msgs, err
}

func (r *countingRepo) Last(ctx context.Context, id string, n int) (*chat.Message, []chat.Message, error) {
	sys, msgs, err := r.Repository.Last(ctx, id, n)
	r.read += len(msgs)
	if sys != nil {
		r.read++
	}
	return sys, msgs, err
}

// TestWindowReadsOnlyTheWindow checks that Get reads the end of a long conversation, not all of it.
func TestWindowReadsOnlyTheWindow(t *testing.T) {
	ctx := context.Background()
	repo := &countingRepo{Repository: memory.NewInMemory()}
	w := memory.NewWindow(repo, 10)
	if err := w.Add(ctx, "c", chat.System("rules")); err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		id := fmt.Sprint(i)
		if err := w.Add(ctx, "c", chat.User("q"+id), chat.Assistant("", call(id)), chat.ToolMessage(result(id)), chat.Assistant("a"+id)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := w.Get(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if r := roles(got); r != "SAUCTAUCTA" {
		t.Fatalf("Get = %s, want the system message and the last turns", r)
	}
	if want := memory.Trim(mustAll(t, repo.Repository, "c"), 10); !reflect.DeepEqual(got, want) {
		t.Fatalf("Get =\n%v\nTrim of the whole conversation =\n%v", got, want)
	}
	if repo.read > 2*10+1 {
		t.Fatalf("Get read %d messages of 2001 for a window of 10", repo.read)
	}
}

func mustAll(t *testing.T, r memory.Repository, id string) []chat.Message {
	t.Helper()
	msgs, err := r.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// TestWindowMatchesTrim checks that Get, reading from the end, returns what Trim returns for the
// whole conversation, over random conversations with every repair Trim makes: calls cut from
// their results, unanswered and partly answered calls, orphan results and system messages.
func TestWindowMatchesTrim(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	for conv := range 300 {
		repo := &countingRepo{Repository: memory.NewInMemory()}
		var msgs []chat.Message
		for i := range rng.IntN(120) {
			id := fmt.Sprint(i)
			switch k := rng.IntN(20); {
			case k < 6:
				msgs = append(msgs, chat.User("u"+id))
			case k < 10:
				msgs = append(msgs, chat.Assistant("a"+id))
			case k < 15: // a complete group, results in one or two messages
				msgs = append(msgs, chat.Assistant("", call(id+"x"), call(id+"y")))
				if rng.IntN(2) == 0 {
					msgs = append(msgs, chat.ToolMessage(result(id+"x"), result(id+"y")))
				} else {
					msgs = append(msgs, chat.ToolMessage(result(id+"x")), chat.ToolMessage(result(id+"y")))
				}
			case k < 16: // unanswered, with or without text
				msgs = append(msgs, chat.Assistant([]string{"", "t"}[rng.IntN(2)], call(id)))
			case k < 17: // partly answered
				msgs = append(msgs, chat.Assistant("", call(id+"x"), call(id+"y")), chat.ToolMessage(result(id+"x")))
			case k < 18: // orphan results
				for range 1 + rng.IntN(4) {
					msgs = append(msgs, chat.ToolMessage(result("gone"+id)))
				}
			default:
				msgs = append(msgs, chat.System("s"+id))
			}
		}
		if len(msgs) > 0 {
			if err := repo.Append(ctx, "c", msgs...); err != nil {
				t.Fatal(err)
			}
		}
		for _, size := range []int{1, 2, 3, 5, 8, 20, 200} {
			got, err := memory.NewWindow(repo, size).Get(ctx, "c")
			if err != nil {
				t.Fatal(err)
			}
			if want := memory.Trim(msgs, size); !reflect.DeepEqual(got, want) {
				t.Fatalf("conversation %d (%s), window %d:\nGet  = %s\nTrim = %s", conv, roles(msgs), size, roles(got), roles(want))
			}
		}
	}
}

func TestValidateConversationID(t *testing.T) {
	for _, id := range []string{"a", " ", "user-42/thread 7", "ünï 🌦", "a\u200bb", strings.Repeat("x", memory.MaxConversationIDLen)} {
		if err := memory.ValidateConversationID(id); err != nil {
			t.Errorf("ValidateConversationID(%q): %v", id, err)
		}
	}
	if err := memory.ValidateConversationID(""); err != memory.ErrNoConversationID {
		t.Errorf("empty id: %v", err)
	}
	for name, id := range memorytest.InvalidIDs() {
		if id == "" {
			continue
		}
		err := memory.ValidateConversationID(id)
		if !errors.Is(err, memory.ErrInvalidConversationID) {
			t.Errorf("%s: %v", name, err)
		}
	}
	err := memory.ValidateConversationID(strings.Repeat("y", 1<<20))
	if want := "memory: invalid conversation id: 1048576 bytes long, at most 512 allowed"; err == nil || err.Error() != want {
		t.Errorf("a 1 MB id: %v, want %q", err, want)
	}
	err = memory.ValidateConversationID("\x1b[2J")
	if want := "memory: invalid conversation id: control character U+001B at byte 0"; err == nil || err.Error() != want {
		t.Errorf("an escape sequence: %v, want %q", err, want)
	}
}

// TestWindowInvalidIDs checks that the window refuses what repositories refuse, before them.
func TestWindowInvalidIDs(t *testing.T) {
	ctx := context.Background()
	w := memory.NewWindow(nil, 5)
	for _, id := range []string{"a\x00b", strings.Repeat("x", 1<<20), "\xff"} {
		_, getErr := w.Get(ctx, id)
		for _, err := range []error{w.Add(ctx, id, chat.User("x")), getErr, w.Clear(ctx, id)} {
			if !errors.Is(err, memory.ErrInvalidConversationID) || len(err.Error()) > 100 {
				t.Fatalf("err = %.200v", err)
			}
		}
	}
}

func TestWindowMaxMessageBytes(t *testing.T) {
	ctx := context.Background()
	repo := memory.NewInMemory()
	small := chat.User("hello")
	size, err := json.Marshal(small)
	if err != nil {
		t.Fatal(err)
	}
	w := memory.NewWindow(repo, 10, memory.MaxMessageBytes(len(size)))
	if err := w.Add(ctx, "c", small); err != nil {
		t.Fatalf("a message exactly at the cap: %v", err)
	}
	big := chat.User(strings.Repeat("z", 1<<20))
	err = w.Add(ctx, "c", chat.User("ok"), big)
	if !errors.Is(err, memory.ErrMessageTooLarge) {
		t.Fatalf("Add of a 1 MB user message: %v", err)
	}
	for _, want := range []string{"message 1 (user)", "1048", fmt.Sprintf("over the cap of %d (MaxMessageBytes)", len(size)), "none of the 2 messages was stored"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if stored := mustAll(t, repo, "c"); len(stored) != 1 {
		t.Fatalf("stored %d messages, want only the first Add's", len(stored))
	}
	// No cap by default, nor with a limit below one.
	for _, w := range []*memory.Window{memory.NewWindow(repo, 10), memory.NewWindow(repo, 10, memory.MaxMessageBytes(0)), memory.NewWindow(repo, 10, memory.MaxMessageBytes(-5))} {
		if err := w.Add(ctx, "d", big); err != nil {
			t.Fatalf("uncapped window: %v", err)
		}
	}
}

// TestWindowMaxMessageBytesInvalidUTF8 checks that a window with a cap measures and stores a
// message that is not valid UTF-8 (a tool's raw bytes) instead of failing to encode it, which
// failed the turn after its tools ran, and every retry of it.
func TestWindowMaxMessageBytesInvalidUTF8(t *testing.T) {
	w := memory.NewWindow(nil, 10, memory.MaxMessageBytes(1<<10))
	msgs := []chat.Message{
		chat.User("caf\xe9"),
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c1", Name: "cat", Arguments: `{}`}}},
		chat.ToolMessage(chat.ToolResult{ID: "c1", Name: "cat", Content: "bin\xffary"}),
	}
	if err := w.Add(t.Context(), "c", msgs...); err != nil {
		t.Fatalf("Add: %v", err)
	}
	// Over the cap, the results are still measured and replaced.
	big := chat.ToolMessage(chat.ToolResult{ID: "c1", Name: "cat", Content: strings.Repeat("\xff", 4<<10)})
	if err := w.Add(t.Context(), "d", big); err != nil {
		t.Fatalf("Add over the cap: %v", err)
	}
	got, err := w.Repository().Messages(t.Context(), "d")
	if err != nil || len(got) != 1 || !got[0].ToolResults[0].IsError || !strings.Contains(got[0].ToolResults[0].Content, "not kept") {
		t.Fatalf("stored %q, %v", got, err)
	}
}

// TestWindowMaxMessageBytesToolResults checks that a tool message over the cap is kept with its
// largest results replaced by error results, as few as make it fit, since its calls have run;
// and that one that cannot fit even so is refused.
func TestWindowMaxMessageBytesToolResults(t *testing.T) {
	ctx := context.Background()
	repo := memory.NewInMemory()
	const limit = 2000
	w := memory.NewWindow(repo, 10, memory.MaxMessageBytes(limit))
	tm := chat.ToolMessage(
		chat.ToolResult{ID: "1", Name: "small", Content: "ok"},
		chat.ToolResult{ID: "2", Name: "read_file", Content: strings.Repeat("z", 1<<20)},
		chat.ToolResult{ID: "3", Name: "medium", Content: strings.Repeat("m", 900)},
		chat.ToolResult{ID: "4", Name: "large", Content: strings.Repeat("l", 1500)},
	)
	if err := w.Add(ctx, "c", chat.User("read it"), tm); err != nil {
		t.Fatalf("Add of a tool message over the cap: %v", err)
	}
	if len(tm.ToolResults[1].Content) != 1<<20 {
		t.Fatal("Add changed the caller's message")
	}
	stored := mustAll(t, repo, "c")
	if len(stored) != 2 {
		t.Fatalf("stored %d messages", len(stored))
	}
	got := stored[1].ToolResults
	if b, _ := json.Marshal(stored[1]); len(b) > limit {
		t.Fatalf("stored tool message is %d bytes, over the cap of %d", len(b), limit)
	}
	for i, want := range []struct {
		replaced bool
		content  string
	}{{false, "ok"}, {true, "result (1048"}, {false, strings.Repeat("m", 900)}, {true, "over the 2000 bytes"}} {
		r := got[i]
		if r.ID != tm.ToolResults[i].ID || r.Name != tm.ToolResults[i].Name || r.IsError != want.replaced || !strings.Contains(r.Content, want.content) {
			t.Errorf("result %d = %+v, want replaced=%v and content with %q", i, r, want.replaced, want.content)
		}
	}
	// So many results that their error results alone are over the cap: refused.
	var many []chat.ToolResult
	for i := range 100 {
		many = append(many, chat.ToolResult{ID: fmt.Sprint(i), Name: "t", Content: strings.Repeat("x", 100)})
	}
	err := w.Add(ctx, "c", chat.ToolMessage(many...))
	if !errors.Is(err, memory.ErrMessageTooLarge) || !strings.Contains(err.Error(), "message 0 (tool)") {
		t.Fatalf("Add of a tool message that cannot fit: %v", err)
	}
	if n := len(mustAll(t, repo, "c")); n != 2 {
		t.Fatalf("%d messages stored after a refused Add, want 2", n)
	}
}

// TestWindowHugeSize checks that a window larger than any conversation reads it once.
func TestWindowHugeSize(t *testing.T) {
	ctx := context.Background()
	repo := &countingRepo{Repository: memory.NewInMemory()}
	w := memory.NewWindow(repo, math.MaxInt)
	if err := w.Add(ctx, "c", chat.ToolMessage(result("orphan")), chat.User("u"), chat.Assistant("a")); err != nil {
		t.Fatal(err)
	}
	got, err := w.Get(ctx, "c")
	if err != nil || roles(got) != "UA" || repo.read != 3 {
		t.Fatalf("Get = %s, %v after reading %d messages", roles(got), err, repo.read)
	}
	capped := memory.NewWindow(repo, 5, memory.MaxMessageBytes(1000))
	bad := chat.Message{Role: chat.RoleAssistant, ServerTools: []chat.ServerTool{{Provider: "p", Data: json.RawMessage("{not json")}}}
	if err := capped.Add(ctx, "c", bad); err == nil || !strings.Contains(err.Error(), "message 0") {
		t.Fatalf("Add of a message that cannot be encoded: %v", err)
	}
}

// TestEndsWith: whether an append whose outcome was lost took place.
func TestEndsWith(t *testing.T) {
	if !memory.EndsWith([]chat.Message{chat.User("x"), chat.User("a")}, []chat.Message{chat.User("a")}) ||
		memory.EndsWith([]chat.Message{chat.User("a")}, []chat.Message{chat.User("x"), chat.User("a")}) {
		t.Fatal("EndsWith")
	}
	// A tool message is the same one stored when it answers the same calls, though a memory
	// may have kept a result over its cap as an error result.
	sent := chat.ToolMessage(chat.ToolResult{ID: "1", Name: "read", Content: "a long result"})
	kept := chat.ToolMessage(chat.ToolResult{ID: "1", Name: "read", Content: "too large", IsError: true})
	other := chat.ToolMessage(chat.ToolResult{ID: "2", Name: "read", Content: "a long result"})
	if !memory.EndsWith([]chat.Message{chat.User("a"), kept}, []chat.Message{sent}) || memory.EndsWith([]chat.Message{other}, []chat.Message{sent}) {
		t.Fatal("EndsWith of tool messages")
	}
}
