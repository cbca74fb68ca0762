package main

import (
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
)

// lastUser returns the text of the last user message of p with its parts' descriptions.
func lastUser(p *chat.Prompt) string {
	for i := len(p.Messages) - 1; i >= 0; i-- {
		if m := p.Messages[i]; m.Role == chat.RoleUser {
			s := m.Content
			for _, part := range m.Parts {
				s += "\n" + part.String()
			}
			return s
		}
	}
	return ""
}

// TestChatMCPResourcesAndPrompts: --attach mcp:SERVER/URI sends server-everything's resource
// with the question, /attach takes one too, /prompt asks with a server's prompt filled with its
// arguments; a server or resource that is not there is refused and nothing is sent.
func TestChatMCPResourcesAndPrompts(t *testing.T) {
	cfg := everythingConfig(t)
	m := chattest.New(chattest.Text("ok"))
	_, stderr, code := run(t, keyEnv(t), m, "", "chat", "--mcp-config", cfg, "--attach", "mcp:everything/demo://resource/dynamic/text/1", "what is it?")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := lastUser(m.Prompts()[0]); !strings.HasPrefix(got, "what is it?") || !strings.Contains(got, "Resource 1") {
		t.Fatalf("question sent %q", got)
	}
	for ref, want := range map[string]string{
		"mcp:nosuch/demo://x": `no MCP server "nosuch"; the servers are everything`,
		"mcp:everything":      "attach a server's resource as mcp:SERVER/URI",
		"mcp:everything/demo://resource/static/nosuch": "mcp:everything/demo://resource/static/nosuch",
	} {
		m := chattest.New(chattest.Text("ok"))
		if _, stderr, code := run(t, keyEnv(t), m, "", "chat", "--mcp-config", cfg, "--attach", ref, "hi"); code != exitUsage || !strings.Contains(stderr, want) || m.Requests() != 0 {
			t.Errorf("--attach %s: %d %q, want %q", ref, code, stderr, want)
		}
	}

	m = chattest.New(chattest.Text("Sunny."), chattest.Text("Text 2."))
	_, stderr, code = run(t, keyEnv(t), m, "/prompt nosuch-prompt\n/prompt args-prompt city=Lyon state=Rhône\n/attach mcp:everything/demo://resource/dynamic/text/2\nand this?\n", "chat", "--mcp-config", cfg, "--lines")
	if code != exitOK || m.Requests() != 2 {
		t.Fatalf("exit %d, %d requests: %s", code, m.Requests(), stderr)
	}
	if !strings.Contains(stderr, "prompt everything/nosuch-prompt") {
		t.Fatalf("unknown prompt: %q", stderr)
	}
	if got := lastUser(m.Prompts()[0]); !strings.Contains(got, "Lyon, Rhône") {
		t.Fatalf("/prompt sent %q", got)
	}
	if got := lastUser(m.Prompts()[1]); !strings.HasPrefix(got, "and this?") || !strings.Contains(got, "Resource 2") {
		t.Fatalf("/attach sent %q", got)
	}
}
