// Package layering checks the import rules of docs/design.md, and its bound on function length.
package layering

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/wield-ai/wield"

// allowed lists, for every package of the module, the public wield packages it may reach: those
// it imports, and those it reaches through internal packages, whose imports count as their
// importer's, so that no helper carries an import back up the layers. A key ending in /... is a
// whole tree; "*" allows everything. A package that no key names fails the test.
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
	"mcp":                {"tool", "chat", "toolcall", "content"},
	"compact":            {"budget", "chat", "client", "engine", "tool", "toolsearch", "content"},
	"agui":               {"client", "chat", "content"},
	"web":                {"agui", "client", "chat", "memory", "tool", "content"},
	"a2a":                {"chat", "client", "memory", "tool", "toolcall", "content"},
	"chattest":           {"chat", "tool", "content"},
	"provider":           {}, // the configuration every provider shares
	"provider/openai":    {"chat", "tool", "content", "provider"},
	"provider/gemini":    {"chat", "tool", "content", "provider"},
	"provider/ollama":    {"chat", "tool", "content", "provider"},
	"provider/bedrock":   {"chat", "tool", "content", "provider"},
	"provider/anthropic": {"chat", "tool", "content", "provider"},

	// The kits that check an implementation of one's own.
	"chat/modeltest":               {"chat", "tool", "content"},
	"memory/memorytest":            {"memory", "chat", "client", "content", "engine"},
	"memory/sqlstore/sqlstoretest": {"memory/sqlstore", "memory/memorytest", "memory", "chat", "content"},
	"toolsearch/indextest":         {"toolsearch", "tool"},
	"mcp/mcptest":                  {"mcp", "tool", "chat", "content"},

	// What only providers may import (Go's internal rule keeps the rest of the module out).
	"provider/internal/...": {"chat", "tool", "content", "provider"},

	// Helpers: each reaches no higher than the lowest package that imports it.
	"internal/schema":      {},
	"internal/workers":     {},
	"internal/methodtools": {},
	"internal/otelspan":    {},
	"internal/version":     {},
	"internal/orderedjson": {"content"},
	"internal/redact":      {"tool"},
	"internal/gen":         {"tool"},
	"internal/toolresult":  {"chat"},
	"internal/inspector":   {},
	// HTTP transports (retries, timeouts, body bounds) of clients of remote services: the
	// providers and a2a.
	"internal/httpretry":   {"chat"},
	"internal/httptimeout": {},
	"internal/bodywatch":   {},
	// The guards of wield's HTTP servers (mcp, agui, a2a): loopback, origins, bodies, per-client
	// limits and a connection cap.
	"internal/httpguard": {},
	// How a2a and agui match a resume's answers to the calls a turn waits on.
	"internal/answers": {},
	// Test kits and test-only packages. What the kits reach (client, toolsearch) sits above most
	// packages, so a package's own code importing one breaks that package's rule; tests may.
	"internal/testenv":              {},
	"internal/replay":               {},
	"internal/benchratio":           {},
	"internal/sizebench":            {},
	"internal/readme":               {},
	"internal/attack":               {},
	"internal/layering":             {},
	"internal/providertest/awstest": {},
	"internal/clienttest":           {"client", "chat"},
	"internal/providertest":         {"chat", "chat/modeltest", "client", "tool", "toolcall", "toolsearch", "content"},
	"toolsearch/internal/eval":      {"toolsearch", "tool"},

	"toolsearch/internal/...":      {"tool"},
	"cmd/...":                      {"*"},
	"examples/...":                 {"*"},
	"mcp/internal/conformance/...": {"*"}, // programs the MCP conformance suite runs
}

type pkg struct {
	path    string   // relative to the module
	imports []string // the module's packages it imports, relative
}

func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
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
		q := pkg{path: rel(p.ImportPath)}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"/") {
				q.imports = append(q.imports, rel(imp))
			}
		}
		pkgs = append(pkgs, q)
	}
	if len(pkgs) < 50 {
		t.Fatalf("listed %d packages; the module layout changed under this test", len(pkgs))
	}
	for _, v := range violations(pkgs, allowed) {
		t.Error(v)
	}
}

func rel(path string) string { return strings.TrimPrefix(strings.TrimPrefix(path, module), "/") }

// internal says whether path is an internal package, whose imports count as its importer's.
func internal(path string) bool {
	return strings.HasPrefix(path, "internal/") || strings.Contains(path, "/internal/")
}

// rulesOf returns the rules of path: its own key, else the longest tree key holding it.
func rulesOf(path string, rules map[string][]string) ([]string, bool) {
	if r, ok := rules[path]; ok {
		return r, true
	}
	best, found := "", false
	for k := range rules {
		if tree, ok := strings.CutSuffix(k, "/..."); ok && (path == tree || strings.HasPrefix(path, tree+"/")) && len(k) > len(best) {
			best, found = k, true
		}
	}
	return rules[best], found
}

// violations returns a line for each package no rule names, and for each public package a
// package reaches that its rules do not allow, naming the internal packages it goes through.
func violations(pkgs []pkg, rules map[string][]string) []string {
	imports := map[string][]string{}
	for _, p := range pkgs {
		imports[p.path] = p.imports
	}
	var out []string
	for _, p := range pkgs {
		allow, ok := rulesOf(p.path, rules)
		if !ok {
			out = append(out, p.path+": no rule in internal/layering names it; add one, as docs/design.md places it")
			continue
		}
		if slices.Contains(allow, "*") {
			continue
		}
		// Walk the imports, through internal packages, to the public packages reached.
		type step struct{ path, via string }
		seen := map[string]bool{p.path: true}
		queue := []step{}
		for _, imp := range p.imports {
			queue = append(queue, step{imp, ""})
		}
		for len(queue) > 0 {
			s := queue[0]
			queue = queue[1:]
			if seen[s.path] {
				continue
			}
			seen[s.path] = true
			if internal(s.path) {
				for _, imp := range imports[s.path] {
					queue = append(queue, step{imp, s.via + " → " + s.path})
				}
				continue
			}
			if !slices.Contains(allow, s.path) {
				out = append(out, p.path+s.via+" → "+s.path+": "+p.path+" may not reach "+s.path+" (docs/design.md)")
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestViolations: the check itself finds a back-up import made directly, one carried through
// an internal package (a helper importing client, imported by toolcall), and a package no rule
// names; and it lets an internal package import what its importer may.
func TestViolations(t *testing.T) {
	rules := map[string][]string{
		"chat":         {"tool"},
		"tool":         {},
		"toolcall":     {"chat", "tool"},
		"client":       {"chat", "tool", "toolcall"},
		"internal/...": {"chat", "tool", "toolcall", "client"},
	}
	pkgs := []pkg{
		{"tool", nil},
		{"chat", []string{"tool", "internal/fine"}},
		{"internal/fine", []string{"tool"}},
		{"toolcall", []string{"chat", "internal/helper"}},
		{"internal/helper", []string{"internal/deeper"}},
		{"internal/deeper", []string{"client"}},
		{"client", []string{"toolcall", "chat"}},
		{"tool/extra", []string{"client"}},
	}
	got := violations(pkgs, rules)
	want := []string{
		"tool/extra: no rule in internal/layering names it; add one, as docs/design.md places it",
		"toolcall → internal/helper → internal/deeper → client: toolcall may not reach client (docs/design.md)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The same graph with toolcall importing client itself.
	pkgs[3].imports = append(pkgs[3].imports, "client")
	if got := violations(pkgs, rules); len(got) != 2 || !strings.HasPrefix(got[1], "toolcall → client: ") {
		t.Fatalf("a direct back-up import: %q", got)
	}
}
