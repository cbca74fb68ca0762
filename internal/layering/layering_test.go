// Package layering checks the import rules of docs/design.md.
package layering

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/wield-ai/wield"

// allowed lists, for each library package, the wield packages it may import directly
// (internal packages are always allowed). A package not listed may import anything.
var allowed = map[string][]string{
	"content":            {},
	"engine":             {},
	"tool":               {"content", "engine"},
	"tool/augment":       {"tool", "content", "engine"},
	"chat":               {"tool", "content"},
	"toolcall":           {"chat", "tool", "content", "engine"},
	"budget":             {"chat", "tool", "content"},
	"client":             {"chat", "tool", "toolcall", "content", "engine"},
	"memory":             {"chat", "client", "content", "engine"},
	"memory/sqlstore":    {"chat", "memory", "content"},
	"toolsearch":         {"chat", "client", "tool", "content", "engine"},
	"mcp":                {"tool", "chat", "content"},
	"agui":               {"client", "chat", "content"},
	"web":                {"agui", "client", "chat", "memory", "tool", "content"},
	"a2a":                {"chat", "client", "tool", "toolcall", "content"},
	"chattest":           {"chat", "tool", "content"},
	"provider/openai":    {"chat", "tool", "content"},
	"provider/gemini":    {"chat", "tool", "content"},
	"provider/ollama":    {"chat", "tool", "content"},
	"provider/bedrock":   {"chat", "tool", "content"},
	"provider/anthropic": {"chat", "tool", "content"},
}

func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		rules, ok := allowed[rel]
		if !ok {
			continue
		}
		checked++
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if strings.HasPrefix(dep, "internal/") || strings.Contains(dep, "/internal/") {
				continue
			}
			ok := false
			for _, a := range rules {
				ok = ok || a == dep
			}
			if !ok {
				t.Errorf("%s imports %s, which docs/design.md does not allow", rel, dep)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d packages; the module layout changed under this test", checked)
	}
}
