package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wield-ai/wield/internal/orderedjson"
)

// Configuration and MCP server files go through one bounded reader: devices, pipes and
// directories are refused at once, files over the cap are refused without being read, and the
// JSON inside is held to its bounds, duplicate keys included.
func TestConfigFilesBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	huge := write("huge.json", `{"model": "`+strings.Repeat("x", maxConfigFileBytes)+`"}`)
	long := write("long.json", `{"model": "openai/`+strings.Repeat("x", orderedjson.ConfigBounds.MaxString)+`"}`)
	dup := write("dup.json", `{"model": "openai/gpt-4.1", "providers": {"openai": {"baseURL": "https://a/v1", "baseURL": "https://b/v1"}}}`)
	dupTop := write("duptop.json", `{"model": "openai/a", "model": "openai/b"}`)
	list := write("list.json", `{"approval": {"approve": [`+strings.Repeat(`"t",`, orderedjson.ConfigBounds.MaxList)+`"t"]}}`)
	deep := write("deep.json", `{"mcpServers": `+strings.Repeat("[", 40)+strings.Repeat("]", 40)+`}`)
	mcpDup := write("mcpdup.json", `{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`)
	for _, tt := range []struct {
		name, config, want string
	}{
		{"a device", "/dev/zero", "/dev/zero is a device"},
		{"a named pipe", fifo, "is a named pipe"},
		{"a directory", dir, "is a directory"},
		{"over the size cap", huge, "the limit is 1.0 MB"},
		{"a long string", long, `model: a string of 64 KB is over the limit of 64 KB`},
		{"a duplicate key", dup, `providers.openai.baseURL: key "baseURL" is given twice`},
		{"a duplicate top-level key", dupTop, `model: key "model" is given twice`},
		{"a long list", list, "approval.approve has more than 4096 elements"},
		{"deep nesting", deep, "nested more than 32 deep"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := wield(t, envWith(cleanEnv(t), "WIELD_CONFIG="+tt.config), "", "config")
			if r.code == 0 || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q, want %q", r.code, r.stderr, tt.want)
			}
		})
		t.Run(tt.name+" as --mcp-config", func(t *testing.T) {
			if tt.name == "a long string" || tt.name == "a duplicate top-level key" || tt.name == "a duplicate key" {
				return // the JSON is a valid config, but not an MCP file: covered by the next case
			}
			r := wield(t, cleanEnv(t), "", "tools", "list", "--mcp-config", tt.config)
			if r.code == 0 || !strings.Contains(r.stderr, "--mcp-config") || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q, want %q", r.code, r.stderr, tt.want)
			}
		})
	}
	r := wield(t, cleanEnv(t), "", "tools", "list", "--mcp-config", mcpDup)
	if r.code == 0 || !strings.Contains(r.stderr, `mcpServers.a: key "a" is given twice`) {
		t.Fatalf("--mcp-config with a duplicate server: exit %d, %q", r.code, r.stderr)
	}
}

// SIGTERM ends the command whatever it is doing, even blocked where no cancellation reaches.
func TestSIGTERMEndsCommand(t *testing.T) {
	cmd := exec.Command(wieldBin, "chat", "--model", "openai/x", "--base-url", "http://127.0.0.1:1/v1")
	cmd.Env = cleanEnv(t)
	// A standard input that never ends nor says anything: chat waits to read its prompt.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	cmd.Stdin = pr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	time.Sleep(500 * time.Millisecond) // let it reach the read; it must end whenever the signal comes
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("SIGTERM did not end the command")
	}
}

// With nothing configured, wield models says what chat says (exit 3), and wield config gives the
// whole "no model" line.
func TestNothingConfiguredModelsAndConfig(t *testing.T) {
	if localOllama() {
		t.Skip("an Ollama server listens here")
	}
	r := wield(t, cleanEnv(t), "", "models")
	if r.code != exitConfig || !strings.Contains(r.stderr, "no model configured") || !strings.Contains(r.stderr, "OPENAI_API_KEY") {
		t.Fatalf("models: exit %d, %q", r.code, r.stderr)
	}
	r = wield(t, cleanEnv(t), "", "config")
	if !strings.Contains(r.stdout, "ANTHROPIC_API_KEY or GEMINI_API_KEY, or OLLAMA_HOST, start Ollama locally, or pass --model") {
		t.Fatalf("config: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
}
