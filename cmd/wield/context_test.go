package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/compact"
)

// bigEcho is a call of server-everything's echo whose result is about 20 KB.
func bigEcho() (call chattest.Reply, text string) {
	text = strings.Repeat("lorem ipsum dolor ", 1200)
	args, _ := json.Marshal(map[string]string{"message": text})
	return chattest.Calls(chattest.Call("echo", string(args))), text
}

// toolResultOf returns the content of the tool result with the text marker in p, "" when none.
func toolResultOf(p *chat.Prompt) string {
	for _, m := range p.Messages {
		for _, r := range m.ToolResults {
			if r.Name == "echo" {
				return r.Content
			}
		}
	}
	return ""
}

// TestChatContextCompaction: with --context, a tool result too big for the budget reaches the
// model as a marked excerpt, the chat says so in one line, and the next question, whose history
// holds the whole result, is compacted too.
func TestChatContextCompaction(t *testing.T) {
	cfg := everythingConfig(t)
	call, text := bigEcho()
	m := chattest.New(call, chattest.Text("It echoed."), chattest.Text("Still here."))
	_, stderr, code := run(t, keyEnv(t), m, "echo a lot\nand now?\n", "chat", "--mcp-config", cfg, "-T", "echo", "--context", "12000", "--lines", "--verbose")
	if code != exitOK || m.Requests() != 3 {
		t.Fatalf("exit %d, %d requests: %s", code, m.Requests(), stderr)
	}
	if !strings.Contains(stderr, "context compacted: 1 results cut to excerpts; about ") || !strings.Contains(stderr, " tokens of 12000") {
		t.Fatalf("no compaction note: %q", stderr)
	}
	for i, p := range m.Prompts()[1:] {
		got := toolResultOf(p)
		if !strings.HasPrefix(got, "[excerpt:") || len(got) >= len(text) {
			t.Fatalf("request %d: the result sent is %d bytes: %.80q", i+2, len(got), got)
		}
	}
	// Without --context the model's window is the budget: nothing is cut.
	m = chattest.New(call, chattest.Text("It echoed."))
	_, stderr, code = run(t, keyEnv(t), m, "", "chat", "--mcp-config", cfg, "-T", "echo", "--verbose", "echo a lot")
	if code != exitOK || strings.Contains(stderr, "compacted") || !strings.Contains(toolResultOf(m.Prompts()[1]), text) {
		t.Fatalf("exit %d: %q", code, stderr)
	}
	if _, stderr, code := run(t, keyEnv(t), m, "", "chat", "--context", "-1", "hi"); code != exitUsage || !strings.Contains(stderr, "--context must not be negative") {
		t.Fatalf("--context -1: %d %q", code, stderr)
	}
}

// TestSlashCompact: /compact shortens the stored conversation at once, keeping the conversation
// before whole under another session; an empty one has nothing to compact.
func TestSlashCompact(t *testing.T) {
	cfg := everythingConfig(t)
	env := keyEnv(t)
	call, text := bigEcho()
	m := chattest.New(call, chattest.Text("It echoed."), chattest.Text("Still here."))
	_, stderr, code := run(t, env, m, "/compact\necho a lot\n/compact\nand now?\n", "chat", "--mcp-config", cfg, "-T", "echo", "--session", "work", "--lines")
	if code != exitOK || m.Requests() != 3 {
		t.Fatalf("exit %d, %d requests: %s", code, m.Requests(), stderr)
	}
	if !strings.Contains(stderr, "nothing to compact: the conversation is empty") {
		t.Fatalf("empty /compact: %q", stderr)
	}
	_, line, ok := strings.Cut(stderr, "compacted: 4 messages → 4, about ")
	_, kept, _ := strings.Cut(line, "kept as session ")
	kept, _, _ = strings.Cut(kept, "\n")
	if !ok || !unnamedID.MatchString(kept) {
		t.Fatalf("/compact said %q", stderr)
	}
	if got := toolResultOf(m.Prompts()[2]); !strings.HasPrefix(got, "[excerpt:") {
		t.Fatalf("the next question's history holds %.80q", got)
	}
	stdout, _, _ := run(t, env, nil, "", "sessions", "show", "--json", "work")
	whole := "Echo: " + strings.TrimSpace(text) // the result; the call's arguments hold the text too
	if strings.Contains(stdout, whole) || !strings.Contains(stdout, "[excerpt:") {
		t.Fatalf("session work is not compacted")
	}
	stdout, _, _ = run(t, env, nil, "", "sessions", "show", "--json", kept)
	if !strings.Contains(stdout, whole) {
		t.Fatalf("session %s does not keep the whole result", kept)
	}
}

// TestChatFetchOfferedWhenOnlyTheHistoryIsCut: in a chat with memory, a question's own messages
// hold nothing to cut, but its history does. The compaction that sees the whole request
// (innermost) cuts it, or finds it cut by an earlier question, and the context_fetch tool the
// model is offered in that call runs when the model calls it, not only from the call after.
func TestChatFetchOfferedWhenOnlyTheHistoryIsCut(t *testing.T) {
	cfg := everythingConfig(t)
	env := keyEnv(t)
	call, text := bigEcho()
	excerpt := regexp.MustCompile(`call context_fetch with id ("[^"]*")`)
	offered := func(p *chat.Prompt) bool {
		for _, tl := range p.Options.Tools {
			if tl.Definition().Name == "context_fetch" {
				return true
			}
		}
		return false
	}
	fetch := chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		m := excerpt.FindStringSubmatch(toolResultOf(p))
		if m == nil || !offered(p) {
			return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant(fmt.Sprintf("excerpt %v, fetch offered %v", m != nil, offered(p)))}}}, nil
		}
		id, _ := strconv.Unquote(m[1])
		args, _ := json.Marshal(map[string]any{"id": id})
		return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("", chat.ToolCall{ID: "f1", Name: "context_fetch", Arguments: string(args)})}}}, nil
	})
	fetched := func(t *testing.T, p *chat.Prompt) {
		t.Helper()
		var got string
		for _, msg := range p.Messages {
			for _, r := range msg.ToolResults {
				if r.Name == "context_fetch" {
					got = r.Content
				}
			}
		}
		if !strings.Contains(got, strings.TrimSpace(text)[:200]) {
			t.Fatalf("the fetch gave %.200q", got)
		}
	}
	t.Run("cut now", func(t *testing.T) {
		// The first chat has the model's whole window: the result is kept whole. The second has a
		// small budget: only the history is over it.
		m := chattest.New(call, chattest.Text("It echoed."))
		if _, stderr, code := run(t, env, m, "echo a lot\n", "chat", "--mcp-config", cfg, "-T", "echo", "--session", "whole", "--lines"); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		m = chattest.New(fetch, chattest.Text("Read it."))
		_, stderr, code := run(t, env, m, "read the whole echo\n", "chat", "--mcp-config", cfg, "-T", "echo", "--context", "12000", "--session", "whole", "--lines", "--verbose")
		if code != exitOK || m.Requests() != 2 || !strings.Contains(stderr, "context compacted: 1 results cut to excerpts") {
			t.Fatalf("exit %d, %d requests: %s", code, m.Requests(), stderr)
		}
		fetched(t, m.Prompts()[1])
	})
	t.Run("cut before", func(t *testing.T) {
		// The first question's result is cut within its turn; the second question's history holds
		// the excerpt, and its original is in the conversation's store.
		m := chattest.New(call, chattest.Text("It echoed."), fetch, chattest.Text("Read it."))
		_, stderr, code := run(t, env, m, "echo a lot\nread the whole echo\n", "chat", "--mcp-config", cfg, "-T", "echo", "--context", "12000", "--session", "work", "--lines")
		if code != exitOK || m.Requests() != 4 {
			t.Fatalf("exit %d, %d requests: %s", code, m.Requests(), stderr)
		}
		fetched(t, m.Prompts()[3])
		// A question with nothing cut is not offered the tool.
		if offered(m.Prompts()[0]) {
			t.Fatal("the first request, with nothing cut, offers context_fetch")
		}
	})
}

// TestChatNativeContext: --native-context asks the provider for its own context management at
// three quarters of the budget; without it nothing is asked.
func TestChatNativeContext(t *testing.T) {
	for _, native := range []bool{true, false} {
		m := chattest.New(chattest.Text("Hi."))
		args := []string{"chat", "--context", "12000", "hi"}
		if native {
			args = append(args, "--native-context")
		}
		if _, stderr, code := run(t, keyEnv(t), m, "", args...); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		v, ok := m.Prompts()[0].Options.Extra[compact.ExtraNative]
		got, _ := v.(map[string]int)
		if ok != native || native && (got["trigger"] != 9000 || got["keep"] != compact.DefaultKeepResults) {
			t.Fatalf("native %v: asked %v", native, v)
		}
	}
}
