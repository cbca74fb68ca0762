package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/testenv"
)

// filesConfig writes an mcpServers file with the reference filesystem server, allowed to work in
// a directory of its own, which it returns.
func filesConfig(t *testing.T) (cfg, dir string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"files": map[string]any{
			"command": testenv.Bin(t, "mcp-server-filesystem"),
			"args":    []string{dir},
			"env":     map[string]string{"PATH": testenv.Path()},
		},
	}})
	cfg = filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg, dir
}

// writeCall is the arguments of a write_file call.
func writeCall(path, content string) string {
	b, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return string(b)
}

// toolResults are the tool results of a chat request, in order.
func toolResults(req sentRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, text(m.Content))
		}
	}
	return out
}

// Without a terminal, a call of a destructive tool of a real MCP server is refused: the file is
// left alone, the model reads why, and stderr says what was refused. --yes, --approve and the
// configuration file's approval let it run; read-only tools never ask.
func TestApprovalWithoutTerminal(t *testing.T) {
	cfg, dir := filesConfig(t)
	target := filepath.Join(dir, "notes.txt")
	chatArgs := func(srv *fakeOpenAI, extra ...string) []string {
		return append([]string{"chat", "--builtin=false", "--mcp-config", cfg, "--base-url", srv.v1(), "--model", "gpt-4o"}, extra...)
	}

	t.Run("refused", func(t *testing.T) {
		srv := newFakeOpenAI(t, reply{calls: [][2]string{{"write_file", writeCall(target, "hello")}}}, reply{text: "I could not write the file."})
		r := wield(t, cleanEnv(t), "", chatArgs(srv, "write hello to notes.txt")...)
		if r.code != 0 || r.stdout != "I could not write the file.\n" {
			t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
		}
		if _, err := os.Stat(target); !os.IsNotExist(err) {
			t.Fatalf("the file was written: %v", err)
		}
		if want := "wield: write_file (mcp:files) needs approval and was refused: there is no terminal to ask on (--approve write_file or --yes runs it)\n"; r.stderr != want {
			t.Errorf("stderr %q, want %q", r.stderr, want)
		}
		reqs := srv.chatRequests()
		if len(reqs) != 2 {
			t.Fatalf("%d model calls", len(reqs))
		}
		if got := toolResults(reqs[1]); len(got) != 1 || got[0] != "Error: "+refusalNoTerminal {
			t.Errorf("the model read %q", got)
		}
	})

	t.Run("json", func(t *testing.T) {
		srv := newFakeOpenAI(t, reply{calls: [][2]string{{"write_file", writeCall(target, "hello")}}}, reply{text: "Refused."})
		r := wield(t, cleanEnv(t), "", chatArgs(srv, "--json", "write hello to notes.txt")...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		var types []string
		for _, ev := range jsonEvents(t, r.stdout) {
			if ev.Type == "approval_required" || ev.Type == "approval" {
				if ev.Tool != "write_file" || !strings.Contains(string(ev.Arguments), "notes.txt") {
					t.Errorf("event %+v", ev)
				}
			}
			types = append(types, ev.Type+":"+ev.Decision)
		}
		if got := strings.Join(types, " "); got != "approval_required: approval:rejected tool_start: tool_end: text: done:" {
			t.Errorf("events %s", got)
		}
		if _, err := os.Stat(target); !os.IsNotExist(err) {
			t.Fatalf("the file was written: %v", err)
		}
	})

	for _, tc := range []struct {
		name string
		env  func(t *testing.T) []string
		args []string
	}{
		{"--yes", cleanEnv, []string{"--yes"}},
		{"--approve", cleanEnv, []string{"--approve", "write_file"}},
		{"config approve", func(t *testing.T) []string {
			return configEnv(t, `{"approval": {"approve": ["write_file"]}}`)
		}, nil},
		{"config yes", func(t *testing.T) []string {
			return configEnv(t, `{"approval": {"policy": "yes"}}`)
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(target)
			srv := newFakeOpenAI(t,
				reply{calls: [][2]string{{"read_text_file", `{"path":"` + filepath.Join(dir, "missing.txt") + `"}`}, {"write_file", writeCall(target, "hello")}}},
				reply{text: "Written."})
			r := wield(t, tc.env(t), "", chatArgs(srv, append(tc.args, "write hello to notes.txt")...)...)
			if r.code != 0 || r.stdout != "Written.\n" || r.stderr != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			if b, err := os.ReadFile(target); err != nil || string(b) != "hello" {
				t.Fatalf("the file holds %q, %v", b, err)
			}
		})
	}

	t.Run("unknown --approve", func(t *testing.T) {
		srv := newFakeOpenAI(t, reply{text: "Hi."})
		r := wield(t, cleanEnv(t), "", chatArgs(srv, "--approve", "wirte_file", "hi")...)
		if r.code != 0 || !strings.Contains(r.stderr, "wield: --approve wirte_file: no tool has that name") {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
	})
}

// configEnv is a clean environment whose configuration file holds cfg.
func configEnv(t *testing.T, cfg string) []string {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return append(cleanEnv(t), "WIELD_CONFIG="+path)
}

// tools list says which tools ask before running, under the configuration's policy.
func TestToolsListApproval(t *testing.T) {
	cfg, _ := filesConfig(t)
	tools, _ := listTools(t, cleanEnv(t), "--mcp-config", cfg)
	asks := map[string]bool{}
	for _, tl := range tools {
		asks[tl.Name] = tl.AsksApproval
		if tl.Name == "read_text_file" && !tl.Annotations.ReadOnly {
			t.Errorf("read_text_file: %+v", tl.Annotations)
		}
	}
	for name, want := range map[string]bool{"write_file": true, "move_file": true, "read_text_file": false, "getCurrentDateTime": false, "setAlarm": false} {
		if asks[name] != want {
			t.Errorf("%s asks %v, want %v", name, asks[name], want)
		}
	}
	r := wield(t, configEnv(t, `{"approval": {"approve": ["write_file"]}}`), "", "tools", "list", "--mcp-config", cfg)
	if !strings.Contains(r.stdout, "write_file  (mcp:files; destructive; idempotent)\n") || !strings.Contains(r.stdout, "move_file  (mcp:files; destructive; asks before running)\n") {
		t.Errorf("tools list:\n%s", r.stdout)
	}
}

// Arguments shown in a question are escaped, cut, and numbered when long; the text to edit is one
// line of JSON whose every character is a key the line editor types as is.
func TestApprovalArgumentsShown(t *testing.T) {
	// Raw in the JSON, as a model may send them (a raw ESC would not be JSON).
	hostile := "{\"path\":\"/tmp/x\\u001b[2J\",\"note\":\"a\u202eb\x7fc\u0085d\"}"
	shown := showArgs(hostile, 30)
	if strings.ContainsAny(shown, "\x1b\u202e\x7f\u0085") || !strings.Contains(shown, `"note": "a\u202eb\x7fc\x85d"`) {
		t.Errorf("shown %q", shown)
	}
	edit := editableJSON(hostile)
	if strings.ContainsAny(edit, "\x1b\u202e\x7f\u0085\n") {
		t.Errorf("editable %q", edit)
	}
	var a, b map[string]string
	if json.Unmarshal([]byte(hostile), &a) != nil || json.Unmarshal([]byte(edit), &b) != nil || a["note"] != b["note"] || a["path"] != b["path"] {
		t.Errorf("editing changes the arguments: %q → %q", hostile, edit)
	}
	if got := editableJSON(`{"emoji":"` + "\U000E0041" + `"}`); got != `{"emoji":"\udb40\udc41"}` {
		t.Errorf("a tag character: %q", got)
	}

	long := `{"content":"` + strings.Repeat("x", 1000) + `"}`
	if shown := showArgs(long, 30); !strings.Contains(shown, "… (619 more characters)") {
		t.Errorf("long line shown as %q", shown)
	}
	many, _ := json.Marshal(map[string][]int{"n": make([]int, 50)})
	if shown := showArgs(string(many), 30); strings.Count(shown, "\n") != 31 || !strings.HasSuffix(shown, "… 24 more lines (e shows them all)\n") {
		t.Errorf("many lines shown as %q", shown)
	}
}

// stopTurn leaves in the sessions of env a turn of session id stopped for the approval of a
// write_file call of the filesystem server in cfg, as a chat whose process ended at the question
// does.
func stopTurn(t *testing.T, env map[string]string, cfg, id, target string) {
	t.Helper()
	ctx := t.Context()
	a := newApp(strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return env[k] })
	store, err := a.openSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cat, err := a.loadCatalog(ctx, toolFlags{mcpConfig: cfg}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	ap, err := a.newApprover(approvalFlags{}, cat, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	model := chattest.New(chattest.Calls(chattest.Call("write_file", writeCall(target, "later"))))
	c, err := a.newChatClient(chatSetup{model: model, tools: cat.tools, repo: store, conversation: id, approver: ap})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Prompt("write it").Param(client.ParamConversationID, id).Call(ctx).Response()
	if err != nil || resp.Outcome != client.OutcomeApproval {
		t.Fatalf("the turn did not stop for approval: %v %+v", err, resp)
	}
}

// A turn stopped at the question in an earlier chat is taken up by the next chat of its session
// when its calls can be decided (here with --yes), and left, with a warning, when no one can
// decide them; deleting the session deletes it.
func TestStoppedTurnTakenUp(t *testing.T) {
	cfg, dir := filesConfig(t)
	target := filepath.Join(dir, "later.txt")
	env := keyEnv(t)
	chatArgs := func(session string, extra ...string) []string {
		return append([]string{"chat", "--session", session, "--builtin=false", "--mcp-config", cfg}, extra...)
	}

	stopTurn(t, env, cfg, "left", target)
	m := chattest.New(chattest.Text("Hi."))
	stdout, stderr, code := run(t, env, m, "", chatArgs("left", "hello")...)
	if code != 0 || stdout != "Hi.\n" || stderr != "wield: the last answer of session left waits for a decision on write_file (mcp:files), and there is no terminal to ask on; this chat leaves it\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("written: %v", err)
	}

	stopTurn(t, env, cfg, "taken", target)
	m = chattest.New(chattest.Text("Wrote it."), chattest.Text("Hi."))
	stdout, stderr, code = run(t, env, m, "", chatArgs("taken", "--yes", "hello")...)
	if code != 0 || stdout != "Wrote it.\nHi.\n" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "later" {
		t.Fatalf("later.txt holds %q, %v", b, err)
	}
	// The model saw the call's result after the question it answered, then the new question.
	var roles []string
	for _, msg := range m.Prompt(1).Messages {
		roles = append(roles, string(msg.Role))
	}
	if got := strings.Join(roles, " "); got != "user assistant tool assistant user" {
		t.Errorf("the conversation: %s", got)
	}

	stopTurn(t, env, cfg, "gone", target)
	if _, stderr, code := run(t, env, nil, "", "sessions", "delete", "gone"); code != 0 {
		t.Fatalf("sessions delete: %d %s", code, stderr)
	}
	a := newApp(strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return env[k] })
	store, err := a.openSessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, ok, err := store.LoadTurn(t.Context(), "gone"); ok || err != nil {
		t.Errorf("the deleted session's turn is still there (%v)", err)
	}
}
