// Package readme checks README.md: every Go snippet in it is a gofmt-formatted program that
// compiles against this module.
package readme

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wield-ai/wield/internal/testenv"
)

// snippets returns the ```go blocks of a Markdown text, with the line each starts on.
func snippets(md string) (blocks []string, lines []int) {
	var cur *strings.Builder
	start := 0
	for i, line := range strings.Split(md, "\n") {
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur, start = &strings.Builder{}, i+2
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks, lines = append(blocks, cur.String()), append(lines, start)
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	return blocks, lines
}

func TestSnippetsCompile(t *testing.T) {
	root := testenv.ModuleRoot()
	md, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, lines := snippets(string(md))
	if len(blocks) < 6 {
		t.Fatalf("README.md has %d Go snippets; want at least 6: tools (2), the client, chat memory, MCP and tool search", len(blocks))
	}
	dir := t.TempDir()
	replace := map[string]string{}
	var pkgs []string
	for i, src := range blocks {
		where := fmt.Sprintf("README.md:%d", lines[i])
		if !strings.HasPrefix(src, "package main\n") {
			t.Errorf("%s: a snippet must be a whole program starting with package main", where)
			continue
		}
		if formatted, err := format.Source([]byte(src)); err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		} else if !bytes.Equal(formatted, []byte(src)) {
			t.Errorf("%s: not gofmt-formatted; gofmt gives:\n%s", where, formatted)
		}
		file := filepath.Join(dir, fmt.Sprintf("snippet%d.go", i+1))
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		// Each snippet builds as a package of its own inside the module, where it does not exist
		// on disk.
		pkg := fmt.Sprintf("internal/readme/snippet%d", i+1)
		replace[filepath.Join(root, pkg, "main.go")] = file
		pkgs = append(pkgs, "./"+pkg)
	}
	if t.Failed() {
		return
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": replace})
	overlayFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", append([]string{"build", "-overlay", overlayFile}, pkgs...)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("README.md snippets do not build (snippetN is the N-th Go block):\n%s", out)
	}
}
