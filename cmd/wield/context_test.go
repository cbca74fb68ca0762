package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
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
