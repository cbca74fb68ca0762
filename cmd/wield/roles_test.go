package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
)

// offered are the names of the tools a request offered.
func offered(p *chat.Prompt) string {
	var names []string
	for _, tl := range p.Options.Tools {
		names = append(names, tl.Definition().Name)
	}
	return strings.Join(names, ",")
}

// TestChatToolChoice: -T chooses a chat's tools by name, glob and source, takes groups away, and
// refuses a pattern that matches nothing or cannot be read, before any model call.
func TestChatToolChoice(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-T", "setAlarm"}, "setAlarm"},
		{[]string{"--tools", "get*"}, "getCurrentDateTime"},
		{[]string{"-T", "built-in", "-T", "-setAlarm"}, "getCurrentDateTime"},
		{[]string{"-T", "-built-in"}, ""},
		{[]string{"-T", "setAlarm,getCurrentDateTime"}, "getCurrentDateTime,setAlarm"},
	} {
		m := chattest.New(chattest.Text("ok"))
		_, stderr, code := run(t, keyEnv(t), m, "", append(append([]string{"chat"}, tc.args...), "hi")...)
		if code != exitOK {
			t.Fatalf("%v: exit %d, %s", tc.args, code, stderr)
		}
		if got := offered(m.Prompts()[0]); got != tc.want {
			t.Errorf("%v: offered %q, want %q", tc.args, got, tc.want)
		}
	}
	for pattern, want := range map[string]string{
		"nosuch": `tool pattern "nosuch" matches no tool`,
		"mcp:*":  `tool pattern "mcp:*" matches no tool`,
		"[":      `tool pattern "["`,
		"-":      "names nothing",
	} {
		m := chattest.New(chattest.Text("ok"))
		if _, stderr, code := run(t, keyEnv(t), m, "", "chat", "-T", pattern, "hi"); code != exitUsage || !strings.Contains(stderr, want) || m.Requests() != 0 {
			t.Errorf("-T %s: exit %d, %d requests, %q, want %q", pattern, code, m.Requests(), stderr, want)
		}
	}
	// tools list shows the choice.
	stdout, stderr, code := run(t, keyEnv(t), nil, "", "tools", "list", "-T", "set*")
	if code != 0 || !strings.HasPrefix(stdout, "setAlarm  (built-in") || strings.Contains(stdout, "getCurrentDateTime") {
		t.Fatalf("tools list -T: %d %q %s", code, stdout, stderr)
	}
}

// writeConfig writes cfg as the configuration file of env.
func writeConfig(t *testing.T, env map[string]string, cfg string) {
	t.Helper()
	dir := t.TempDir()
	env["XDG_CONFIG_HOME"] = dir
	os.MkdirAll(filepath.Join(dir, "wield"), 0o700)
	if err := os.WriteFile(filepath.Join(dir, "wield", "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

const rolesConfig = `{
  "aliases": {"fast": "openai/gpt-4.1-mini"},
  "roles": {
    "clock": {"description": "tells the time", "system": "You tell the time.", "model": "fast", "tools": ["getCurrentDateTime"], "options": {"temperature": 0.2, "stop": "END"}},
    "plain": {"system": "You answer plainly.", "tools": ["-built-in"]}
  }
}`

// TestChatRoles: --role takes a role's system prompt, model, tools and options; flags win; an
// unknown role or a broken one is refused before anything is sent.
func TestChatRoles(t *testing.T) {
	env := keyEnv(t)
	writeConfig(t, env, rolesConfig)
	var models []string
	m := chattest.New(chattest.Text("ok"))
	setModel := func(a *app) {
		a.modelOverride = func(s modelSpec) (chat.Model, error) { models = append(models, s.String()); return m, nil }
	}
	_, stderr, code := runApp(t, env, nil, "", setModel, "chat", "--role", "clock", "What time is it?")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p := m.Prompts()[0]
	if p.Messages[0].Role != chat.RoleSystem || p.Messages[0].Content != "You tell the time." || offered(p) != "getCurrentDateTime" ||
		p.Options.Temperature == nil || *p.Options.Temperature != 0.2 || strings.Join(p.Options.Stop, "|") != "END" {
		t.Fatalf("request %+v, options %+v", p.Messages[0], p.Options)
	}
	if strings.Join(models, ",") != "openai/gpt-4.1-mini" {
		t.Fatalf("models %v", models)
	}
	// Flags win over the role; -o goes after the role's options.
	m = chattest.New(chattest.Text("ok"))
	models = nil
	_, stderr, code = runApp(t, env, nil, "", setModel, "chat", "-r", "clock", "-s", "Be brief.", "-m", "openai/gpt-5", "-T", "setAlarm", "-o", "temperature", "0.7", "hi")
	p = m.Prompts()[0]
	if code != exitOK || p.Messages[0].Content != "Be brief." || offered(p) != "setAlarm" || *p.Options.Temperature != 0.7 || models[0] != "openai/gpt-5" {
		t.Fatalf("exit %d %s: %+v %+v %v", code, stderr, p.Messages[0], p.Options, models)
	}
	// An unknown role lists the roles.
	if _, stderr, code := run(t, env, m, "", "chat", "--role", "poet", "hi"); code != exitUsage || !strings.Contains(stderr, `no role "poet"; the roles are clock, plain`) {
		t.Fatalf("unknown role: %d %q", code, stderr)
	}
	// Broken roles are named when the file is read.
	for bad, want := range map[string]string{
		`{"roles": {"a b": {"system": "x"}}}`:                     `roles: "a b" is not a name for a role`,
		`{"roles": {"empty": {}}}`:                                "roles.empty sets nothing",
		`{"roles": {"r": {"tools": ["["]}}}`:                      `roles.r.tools: tool pattern "["`,
		`{"roles": {"r": {"options": {"warmth": 1}}}}`:            `roles.r.options: no option "warmth"`,
		`{"roles": {"r": {"options": {"stop": ["a"]}}}}`:          "roles.r.options.stop: give a string, a number or true/false",
		`{"roles": {"r": {"system": "x", "temperature": 1}}}`:     `unknown field "temperature"`,
		`{"roles": {"r": {"system": "x"}, "r": {"system": "y"}}}`: "duplicate",
	} {
		e := keyEnv(t)
		writeConfig(t, e, bad)
		if _, stderr, code := run(t, e, m, "", "chat", "hi"); code != exitError || !strings.Contains(stderr, want) {
			t.Errorf("%s: %d %q, want %q", bad, code, stderr, want)
		}
	}
	// A role's option out of range for its provider is refused before anything is sent.
	e := keyEnv(t)
	writeConfig(t, e, `{"roles": {"hot": {"options": {"temperature": 9}}}}`)
	m = chattest.New(chattest.Text("ok"))
	if _, stderr, code := run(t, e, m, "", "chat", "--role", "hot", "hi"); code != exitUsage || !strings.Contains(stderr, "temperature") || m.Requests() != 0 {
		t.Fatalf("hot role: %d %q", code, stderr)
	}
}

// TestSlashRole: /role lists the roles and changes the chat's system prompt, model and tools from
// the next question on.
func TestSlashRole(t *testing.T) {
	env := keyEnv(t)
	writeConfig(t, env, rolesConfig)
	m := chattest.New(chattest.Text("one"), chattest.Text("two"))
	_, stderr, code := run(t, env, m, "first\n/role\n/role nosuch\n/role plain\nsecond\n/tools\n", "chat", "--lines", "--verbose")
	if code != exitOK || m.Requests() != 2 {
		t.Fatalf("exit %d, %d requests: %s", code, m.Requests(), stderr)
	}
	if offered(m.Prompts()[0]) != "getCurrentDateTime,setAlarm" || m.Prompts()[0].Messages[0].Role == chat.RoleSystem {
		t.Fatalf("first question: %+v", m.Prompts()[0])
	}
	p := m.Prompts()[1]
	if offered(p) != "" || p.Messages[0].Content != "You answer plainly." {
		t.Fatalf("after /role plain: tools %q, %+v", offered(p), p.Messages[0])
	}
	if !strings.Contains(stderr, "  clock  tells the time") || !strings.Contains(stderr, `no role "nosuch"`) || !strings.Contains(stderr, "no tools") {
		t.Fatalf("stderr %q", stderr)
	}
}
