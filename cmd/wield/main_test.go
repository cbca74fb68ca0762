package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// wieldBin is the command built once for the tests that run it as users do.
var wieldBin string

func TestMain(m *testing.M) {
	if os.Getenv("WIELD_TEST_MCP_SERVER") != "" {
		// The test binary doubles as an MCP server for the tests of MCP servers' tools.
		serveTestMCP()
		return
	}
	if os.Getenv("WIELD_TEST_BROWSER") != "" {
		playBrowser() // oauth_test.go
		return
	}
	if bin := os.Getenv("WIELD_TEST_CONFORMANCE_CLIENT"); bin != "" {
		conformanceClient(bin) // oauth_test.go
		return
	}
	dir, err := os.MkdirTemp("", "wield-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	wieldBin = filepath.Join(dir, "wield")
	build := exec.Command("go", "build", "-o", wieldBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building wield:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is how a run of the binary ended.
type result struct {
	stdout, stderr string
	code           int
}

// cleanEnv is an environment without any model configuration, with its own home and data
// directory.
func cleanEnv(t *testing.T) []string {
	home := t.TempDir()
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"TZ=Asia/Tokyo",
	}
}

// wield runs the built command with env as its whole environment.
// listTools runs wield tools list --json with args and returns the tools it lists; it fails t
// unless wield exits with 0 and prints them.
func listTools(t *testing.T, env []string, args ...string) ([]toolJSON, result) {
	t.Helper()
	r := wield(t, env, "", append([]string{"tools", "list", "--json"}, args...)...)
	var tools []toolJSON
	if err := json.Unmarshal([]byte(r.stdout), &tools); err != nil || r.code != 0 {
		t.Fatalf("tools list --json %v: exit %d, %v\n%s\n%s", args, r.code, err, r.stdout, r.stderr)
	}
	return tools, r
}

func wield(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), wieldBin, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running wield: %v", err)
		}
		code = ee.ExitCode()
	}
	return result{out.String(), errw.String(), code}
}

// localOllama reports whether something listens where a local Ollama would.
func localOllama() bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:11434", 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func TestBinaryNoModel(t *testing.T) {
	if localOllama() {
		t.Skip("a local Ollama is running: wield would use it")
	}
	for _, args := range [][]string{{"chat", "What day is tomorrow?"}, {"chat"}} {
		r := wield(t, cleanEnv(t), "", args...)
		if r.code != exitConfig {
			t.Errorf("%q: exit %d, want %d", args, r.code, exitConfig)
		}
		if r.stderr != noModelMessage+"\n" || r.stdout != "" {
			t.Errorf("%q: stdout %q, stderr:\n%s", args, r.stdout, r.stderr)
		}
		for _, v := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OLLAMA_HOST", "--model", "--base-url"} {
			if !strings.Contains(r.stderr, v) {
				t.Errorf("the message does not mention %s", v)
			}
		}
	}
	// A provider named without its key says which variable to set.
	r := wield(t, cleanEnv(t), "", "chat", "--model", "anthropic/claude-haiku-4-5", "hi")
	if r.code != exitConfig || r.stderr != "wield: anthropic/claude-haiku-4-5 needs an API key: set ANTHROPIC_API_KEY\n" {
		t.Errorf("anthropic without a key: exit %d, stderr %q", r.code, r.stderr)
	}
	r = wield(t, append(cleanEnv(t), "OLLAMA_HOST=127.0.0.1:1"), "", "chat", "hi")
	if r.code != exitConfig || !strings.HasPrefix(r.stderr, "wield: OLLAMA_HOST is http://127.0.0.1:1, but no Ollama server answers there") {
		t.Errorf("dead OLLAMA_HOST: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestBinaryToolsList(t *testing.T) {
	r := wield(t, cleanEnv(t), "", "tools", "list")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"getCurrentDateTime  (built-in; read-only)\n    Gets the current date and time in the user's time zone",
		"setAlarm  (built-in; not destructive)\n    Sets a user alarm for the given time.\n    time   string, required  Time is when the alarm rings, in ISO-8601 format",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("tools list lacks %q:\n%s", want, r.stdout)
		}
	}
	tools, _ := listTools(t, cleanEnv(t))
	var schema bytes.Buffer
	if len(tools) == 2 {
		json.Compact(&schema, tools[1].InputSchema)
	}
	if len(tools) != 2 || tools[1].Name != "setAlarm" || tools[1].Source != "built-in" || !strings.Contains(schema.String(), `"required":["time"]`) {
		t.Fatalf("--json: %+v", tools)
	}
	r = wield(t, cleanEnv(t), "", "tools", "list", "--builtin=false")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "no tools") {
		t.Fatalf("--builtin=false: %+v", r)
	}
}

func TestBinaryToolsCall(t *testing.T) {
	r := wield(t, cleanEnv(t), "", "tools", "call", "getCurrentDateTime")
	today := time.Now().In(tokyo)
	if r.code != 0 || !strings.HasPrefix(r.stdout, today.Format("2006-01-02")) && !strings.HasPrefix(r.stdout, today.Add(time.Minute).Format("2006-01-02")) ||
		!strings.Contains(r.stdout, "time zone Asia/Tokyo)") {
		t.Fatalf("getCurrentDateTime: %+v", r)
	}
	at := time.Now().In(tokyo).Add(time.Hour).Format("2006-01-02T15:04:05")
	r = wield(t, cleanEnv(t), `{"time":"`+at+`","label":"tea"}`, "tools", "call", "setAlarm", "-")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "Alarm set for "+at+"+09:00 (tea), in ") || !strings.Contains(r.stderr, "will not ring") {
		t.Fatalf("setAlarm: %+v", r)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tools", "call", "setAlarm", `{"time":"soon"}`}, exitError, `wield: tool setAlarm: time "soon" is not in ISO-8601 format`},
		{[]string{"tools", "call", "setAlarm", `{}`}, exitError, `wield: tool setAlarm: invalid arguments`},
		{[]string{"tools", "call", "nosuch"}, exitError, `wield: tool not found: "nosuch"`},
		{[]string{"tools", "call", "setAlarm", `{"time":`}, exitUsage, "arguments are not valid JSON"},
		{[]string{"tools", "call"}, exitUsage, "accepts between 1 and 2 arg(s)"},
		{[]string{"tools", "frobnicate"}, exitUsage, `unknown command "frobnicate"`},
	} {
		r := wield(t, cleanEnv(t), "", tt.args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.want) || r.stdout != "" {
			t.Errorf("%q: %+v, want exit %d and %q", tt.args, r, tt.code, tt.want)
		}
	}
}

func TestBinaryHelp(t *testing.T) {
	r := wield(t, cleanEnv(t), "", "--help")
	for _, want := range []string{"chat", "tools", "mcp", "gen", "models", "config", "version", "sessions", "completion", "Exit codes", "Examples:"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("wield --help lacks %q (exit %d)", want, r.code)
		}
	}
	for _, cmd := range [][]string{{"chat"}, {"tools", "call"}, {"tools", "list"}, {"tools", "search"}, {"gen"}, {"mcp", "serve"},
		{"models"}, {"config"}, {"version"}, {"sessions", "show"}, {"sessions", "list"}} {
		r := wield(t, cleanEnv(t), "", append(cmd, "--help")...)
		if r.code != 0 || !strings.Contains(r.stdout, "Examples:") || !strings.Contains(r.stdout, "wield "+strings.Join(cmd, " ")) {
			t.Errorf("wield %s --help: exit %d\n%s", strings.Join(cmd, " "), r.code, r.stdout)
		}
	}
}

func TestBinaryGen(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\n// Clock tells the time.\ntype Clock struct{}\n\n// Now returns the time.\n//\n//wield:tool name=now\nfunc (Clock) Now() string { return \"\" }\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := wield(t, cleanEnv(t), "", "gen", "-v", dir)
	if r.code != 0 || !strings.Contains(r.stderr, "wrote "+filepath.Join(dir, "wield_tools.go")+" (1 tools") {
		t.Fatalf("gen: %+v", r)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "wield_tools.go"))
	if !bytes.Contains(b, []byte(`Name:        "now"`)) || !bytes.Contains(b, []byte(`Description: "Returns the time."`)) {
		t.Fatalf("generated:\n%s", b)
	}
	os.WriteFile(filepath.Join(dir, "p.go"), []byte("package p\n\n//wield:tool\nfunc F() {}\n"), 0o644)
	r = wield(t, cleanEnv(t), "", "gen", dir)
	if r.code != exitError || !strings.Contains(r.stderr, "p.go:3:1: //wield:tool on func F: only methods can be tools") {
		t.Fatalf("gen of a bad package: %+v", r)
	}
}

func TestBinaryToolsSearch(t *testing.T) {
	r := wield(t, cleanEnv(t), "", "tools", "search", "--json", "alarm")
	var hits []struct {
		Name   string  `json:"name"`
		Score  float64 `json:"score"`
		Source string  `json:"source"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil || r.code != 0 {
		t.Fatalf("exit %d, %v: %s%s", r.code, err, r.stdout, r.stderr)
	}
	if len(hits) != 1 || hits[0].Name != "setAlarm" || hits[0].Source != "built-in" || hits[0].Score <= 0 {
		t.Fatalf("hits %+v", hits)
	}
	r = wield(t, cleanEnv(t), "", "tools", "search", "current date")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "getCurrentDateTime ") {
		t.Fatalf("search: %+v", r)
	}
	r = wield(t, cleanEnv(t), "", "tools", "search", "--max", "0", "x")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--max must be between 1 and 20") {
		t.Fatalf("--max 0: %+v", r)
	}
}
