package mcp_test

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
)

// call calls the named tool and fails the test on error.
func call(t *testing.T, tools []tool.Tool, name, args string) string {
	t.Helper()
	out, err := toolByName(t, tools, name).Call(testContext(t), args)
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	return out
}

func mustContain(t *testing.T, what, out string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(out, s) {
			t.Errorf("%s: %q does not contain %q", what, out, s)
		}
	}
}

func jsonString(s string) string {
	b, _ := jsonMarshal(s)
	return string(b)
}

// TestFilesystemServer drives every tool of the reference filesystem server in a temporary
// directory, and checks that paths outside it are refused with an error the model reads.
func TestFilesystemServer(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("top secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	if err := os.WriteFile(filepath.Join(dir, "dot.png"), png, 0o600); err != nil {
		t.Fatal(err)
	}

	c := mcptest.Connect(t, nodeServer(t, "files", "mcp-server-filesystem", dir))
	tools, err := c.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	p := func(name string) string { return jsonString(filepath.Join(dir, name)) }

	mustContain(t, "list_allowed_directories", call(t, tools, "list_allowed_directories", `{}`), dir)
	call(t, tools, "create_directory", `{"path":`+p("notes")+`}`)
	call(t, tools, "write_file", `{"path":`+p("notes/a.txt")+`,"content":"alpha\nbeta\ngamma\n"}`)
	call(t, tools, "write_file", `{"path":`+p("b.md")+`,"content":"# title\n"}`)
	mustContain(t, "read_text_file", call(t, tools, "read_text_file", `{"path":`+p("notes/a.txt")+`}`), "alpha", "gamma")
	mustContain(t, "read_text_file head", call(t, tools, "read_text_file", `{"path":`+p("notes/a.txt")+`,"head":1}`), "alpha")
	mustContain(t, "read_file", call(t, tools, "read_file", `{"path":`+p("b.md")+`}`), "# title")
	mustContain(t, "read_multiple_files", call(t, tools, "read_multiple_files", `{"paths":[`+p("notes/a.txt")+`,`+p("b.md")+`]}`), "beta", "# title")
	mustContain(t, "read_media_file", call(t, tools, "read_media_file", `{"path":`+p("dot.png")+`}`), "[image: image/png, 70 bytes]")
	mustContain(t, "edit_file", call(t, tools, "edit_file", `{"path":`+p("notes/a.txt")+`,"edits":[{"oldText":"beta","newText":"BETA"}]}`), "-beta", "+BETA")
	mustContain(t, "list_directory", call(t, tools, "list_directory", `{"path":`+jsonString(dir)+`}`), "[DIR] notes", "[FILE] b.md")
	mustContain(t, "list_directory_with_sizes", call(t, tools, "list_directory_with_sizes", `{"path":`+jsonString(dir)+`,"sortBy":"size"}`), "b.md", "dot.png")
	mustContain(t, "directory_tree", call(t, tools, "directory_tree", `{"path":`+jsonString(dir)+`}`), `a.txt`, `notes`)
	call(t, tools, "move_file", `{"source":`+p("b.md")+`,"destination":`+p("notes/b.md")+`}`)
	mustContain(t, "search_files", call(t, tools, "search_files", `{"path":`+jsonString(dir)+`,"pattern":"**/*.md"}`), filepath.Join(dir, "notes", "b.md"))
	mustContain(t, "get_file_info", call(t, tools, "get_file_info", `{"path":`+p("notes/a.txt")+`}`), "size", "isFile")
	if got, err := os.ReadFile(filepath.Join(dir, "notes", "a.txt")); err != nil || string(got) != "alpha\nBETA\ngamma\n" {
		t.Errorf("file on disk = %q, %v", got, err)
	}

	var names []string
	for _, tl := range tools {
		names = append(names, tl.Definition().Name)
	}
	t.Logf("filesystem tools: %v", names)

	// Outside the allowed directory: refused, as a tool error the model can read.
	for _, tc := range []struct{ tool, args string }{
		{"read_text_file", `{"path":` + jsonString(secret) + `}`},
		{"write_file", `{"path":` + jsonString(filepath.Join(outside, "new.txt")) + `,"content":"x"}`},
		{"list_directory", `{"path":` + jsonString(outside) + `}`},
		{"read_text_file", `{"path":` + p("../"+filepath.Base(outside)+"/secret.txt") + `}`},
	} {
		out, err := toolByName(t, tools, tc.tool).Call(testContext(t), tc.args)
		var te *mcp.ToolError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), "Access denied") {
			t.Errorf("%s(%s) = (%q, %v), want an access-denied tool error", tc.tool, tc.args, out, err)
		}
		if strings.Contains(out+errString(err), "top secret") {
			t.Errorf("%s leaked the file outside the allowed directory", tc.tool)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("write outside the allowed directory happened: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestMemoryServer runs a multi-step knowledge-graph flow on the reference memory server: create,
// relate, observe, search, open, delete, and the state survives a reconnection.
func TestMemoryServer(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	cfg := nodeServer(t, "memory", "mcp-server-memory")
	cfg.Env["MEMORY_FILE_PATH"] = file
	c := mcptest.Connect(t, cfg)
	tools, err := c.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}

	call(t, tools, "create_entities", `{"entities":[
		{"name":"Ada Lovelace","entityType":"person","observations":["wrote the first program"]},
		{"name":"Analytical Engine","entityType":"machine","observations":["designed by Babbage"]},
		{"name":"Charles Babbage","entityType":"person","observations":[]}]}`)
	call(t, tools, "create_relations", `{"relations":[
		{"from":"Ada Lovelace","to":"Analytical Engine","relationType":"programmed"},
		{"from":"Charles Babbage","to":"Analytical Engine","relationType":"designed"}]}`)
	call(t, tools, "add_observations", `{"observations":[{"entityName":"Ada Lovelace","contents":["born 1815","mathematician"]}]}`)

	out := call(t, tools, "search_nodes", `{"query":"mathematician"}`)
	mustContain(t, "search_nodes", out, "Ada Lovelace", "born 1815")
	if strings.Contains(out, "Charles Babbage") {
		t.Errorf("search_nodes found an unrelated entity: %s", out)
	}
	mustContain(t, "open_nodes", call(t, tools, "open_nodes", `{"names":["Analytical Engine"]}`), "designed by Babbage")

	call(t, tools, "delete_observations", `{"deletions":[{"entityName":"Ada Lovelace","observations":["born 1815"]}]}`)
	call(t, tools, "delete_relations", `{"relations":[{"from":"Charles Babbage","to":"Analytical Engine","relationType":"designed"}]}`)
	call(t, tools, "delete_entities", `{"entityNames":["Charles Babbage"]}`)

	// A new session (a new server process) reads the same file.
	c.Close()
	c2 := mcptest.Connect(t, cfg)
	tools, err = c2.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	graph := call(t, tools, "read_graph", `{}`)
	mustContain(t, "read_graph", graph, "Ada Lovelace", "mathematician", "programmed")
	for _, gone := range []string{"Charles Babbage", "born 1815", "designed\""} {
		if strings.Contains(graph, gone) {
			t.Errorf("read_graph still has %q: %s", gone, graph)
		}
	}
	if names := toolNames(tools); len(names) != 9 || !slices.Contains(names, "read_graph") {
		t.Errorf("memory tools = %v", names)
	}
}
