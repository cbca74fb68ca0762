package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/memory/sqlstore"
)

// sessions list puts the most recent first, with its date, model, questions and first line;
// --continue takes the newest chat left when the last one is deleted.
func TestSessionsListNewestFirstAndContinue(t *testing.T) {
	env := keyEnv(t)
	env["XDG_STATE_HOME"] = t.TempDir()
	for _, name := range []string{"zebra", "alpha", "middle"} {
		if _, stderr, code := run(t, env, chattest.New(chattest.Text("ok")), "", "chat", "--session", name, "about "+name+"\nmore"); code != 0 {
			t.Fatal(stderr)
		}
	}
	stdout, _, code := run(t, env, nil, "", "sessions", "list", "--json")
	var list []sessionInfo
	if err := json.Unmarshal([]byte(stdout), &list); code != 0 || err != nil || len(list) != 3 {
		t.Fatalf("list --json: %d %v %q", code, err, stdout)
	}
	if list[0].Name != "middle" || list[1].Name != "alpha" || list[2].Name != "zebra" {
		t.Fatalf("order %v, want the newest first", list)
	}
	if l := list[0]; l.Model != "openai/gpt-4.1-mini" || l.Turns != 1 || l.FirstLine != "about middle" || l.Updated.IsZero() {
		t.Fatalf("entry %+v", l)
	}
	stdout, _, _ = run(t, env, nil, "", "sessions", "list")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "middle") || !strings.Contains(lines[0], "openai/gpt-4.1-mini") || !strings.HasSuffix(lines[0], "1  about middle") {
		t.Fatalf("list:\n%s", stdout)
	}
	// The last chat deleted, --continue takes the newest left.
	if _, stderr, code := run(t, env, nil, "", "sessions", "delete", "middle"); code != 0 {
		t.Fatal(stderr)
	}
	m := chattest.New(chattest.Text("ok"))
	if _, stderr, code := run(t, env, m, "", "chat", "-c", "and?"); code != 0 {
		t.Fatalf("-c after the last chat was deleted: %s", stderr)
	}
	if msgs := m.Prompts()[0].Messages; len(msgs) != 3 || !strings.HasPrefix(msgs[0].Content, "about alpha") {
		t.Fatalf("-c sent %v", msgs)
	}
}

// A sessions file written before turns were recorded opens: listed, shown (without records),
// continued, with its tool calls and results sent back to the model.
func TestOldSessionFileOpens(t *testing.T) {
	env := keyEnv(t)
	env["XDG_STATE_HOME"] = t.TempDir()
	dir := filepath.Join(env["XDG_DATA_HOME"], "wield")
	os.MkdirAll(dir, 0o700)
	store, err := sqlstore.OpenSQLite(t.Context(), filepath.Join(dir, "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	call := chat.ToolCall{ID: "c1", Name: "getCurrentDateTime", Arguments: `{}`}
	err = store.Append(t.Context(), "old", chat.User("What time is it?"),
		chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{call}},
		chat.Message{Role: chat.RoleTool, ToolResults: []chat.ToolResult{{ID: "c1", Name: "getCurrentDateTime", Content: "09:41"}}},
		chat.Assistant("It is 09:41."))
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, env, nil, "", "sessions", "list")
	if code != 0 || !strings.HasPrefix(stdout, "old") || !strings.Contains(stdout, "What time is it?") {
		t.Fatalf("list: %d %q %s", code, stdout, stderr)
	}
	stdout, stderr, code = run(t, env, nil, "", "sessions", "show", "old")
	if code != 0 || !strings.HasPrefix(stdout, "you:\nWhat time is it?") || !strings.Contains(stdout, "← getCurrentDateTime: 09:41") {
		t.Fatalf("show: %d %q %s", code, stdout, stderr)
	}
	m := chattest.New(chattest.Text("Later."))
	if _, stderr, code := run(t, env, m, "", "chat", "--session", "old", "And now?"); code != 0 {
		t.Fatal(stderr)
	}
	msgs := m.Prompts()[0].Messages
	if len(msgs) != 5 || msgs[2].Role != chat.RoleTool || msgs[2].ToolResults[0].Content != "09:41" {
		t.Fatalf("sent %v", msgs)
	}
	// The new turn has its record; the old one has none, and the two do not mix up.
	stdout, _, _ = run(t, env, nil, "", "sessions", "show", "--json", "old")
	var shown []struct {
		Content string
		Turn    *turnInfo
	}
	json.Unmarshal([]byte(stdout), &shown)
	if len(shown) != 6 || shown[0].Turn != nil || shown[4].Turn == nil || shown[4].Content != "And now?" {
		t.Fatalf("show --json: %s", stdout)
	}
}
