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
	// Snippets that use the temporal module (a module of its own) build inside it, the others
	// inside this one.
	builds := map[string]*snippetBuild{"": {root: root}, "temporal": {root: filepath.Join(root, "temporal")}}
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
		b := builds[""]
		if strings.Contains(src, `"github.com/wield-ai/wield/temporal"`) {
			b = builds["temporal"]
		}
		pkg := fmt.Sprintf("internal/readme/snippet%d", i+1)
		b.add(filepath.Join(b.root, pkg, "main.go"), file, "./"+pkg)
	}
	if t.Failed() {
		return
	}
	for name, b := range builds {
		if len(b.pkgs) == 0 {
			continue
		}
		args := []string{"build", "-o", os.DevNull}
		if name != "" {
			// The temporal module does not depend on the providers a snippet may use: it builds
			// with a copy of its go.mod that may grow, never with its own.
			modfile := filepath.Join(dir, name+".mod")
			for _, f := range [][2]string{{"go.mod", modfile}, {"go.sum", strings.TrimSuffix(modfile, ".mod") + ".sum"}} {
				data, err := os.ReadFile(filepath.Join(b.root, f[0]))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(f[1], data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args = append(args, "-mod=mod", "-modfile="+modfile)
		}
		overlay, _ := json.Marshal(map[string]any{"Replace": b.replace})
		overlayFile := filepath.Join(dir, "overlay"+name+".json")
		if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-overlay", overlayFile)
		cmd := exec.Command("go", append(args, b.pkgs...)...)
		cmd.Dir = b.root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("README.md snippets do not build (snippetN is the N-th Go block):\n%s", out)
		}
	}
}

// snippetBuild is the snippets that build in one module.
type snippetBuild struct {
	root    string
	replace map[string]string
	pkgs    []string
}

func (b *snippetBuild) add(path, file, pkg string) {
	if b.replace == nil {
		b.replace = map[string]string{}
	}
	b.replace[path] = file
	b.pkgs = append(b.pkgs, pkg)
}
