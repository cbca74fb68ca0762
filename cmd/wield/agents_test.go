package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
)

// TestConfigAgents: a served wield agent named in the configuration file's "agents" is a tool
// that tools list shows and a chat's model calls; its token comes from the variable named.
func TestConfigAgents(t *testing.T) {
	srv := newFakeOpenAI(t, reply{text: "Hello from the served agent."})
	url := startA2AServe(t, envWith(cleanEnv(t), "OPENAI_API_KEY=test-key", "OPENAI_BASE_URL="+srv.v1(), a2aTokenEnv+"=s3cret"),
		"--model", "openai/gpt-4o", "--builtin=false", "--name", "records")
	env := keyEnv(t)
	writeConfig(t, env, `{"agents": {"records": {"url": "`+url+`", "tokenEnv": "RECORDS_TOKEN", "description": "keeps the records"}}}`)
	env["RECORDS_TOKEN"] = "s3cret"

	stdout, stderr, code := run(t, env, nil, "", "tools", "list", "--json")
	var tools []toolJSON
	if code != 0 || json.Unmarshal([]byte(stdout), &tools) != nil {
		t.Fatalf("tools list: %d %s", code, stderr)
	}
	var found *toolJSON
	for i := range tools {
		if tools[i].Name == "records" {
			found = &tools[i]
		}
	}
	if found == nil || found.Source != "a2a:records" || found.Description != "keeps the records" {
		t.Fatalf("tools %+v", tools)
	}

	m := chattest.New(chattest.Calls(chattest.Call("records", `{"input":"say hello"}`)), chattest.Text("The agent said hello."))
	stdout, stderr, code = run(t, env, m, "", "chat", "-T", "a2a:*", "--approve", "records", "ask the records agent")
	if code != 0 || stdout != "The agent said hello.\n" {
		t.Fatalf("chat: %d %q %s", code, stdout, stderr)
	}
	last := m.Prompts()[1].Messages[len(m.Prompts()[1].Messages)-1]
	if last.Role != chat.RoleTool || !strings.Contains(last.ToolResults[0].Content, "Hello from the served agent.") {
		t.Fatalf("tool result %+v", last)
	}
	if offered(m.Prompts()[0]) != "records" {
		t.Fatalf("offered %q", offered(m.Prompts()[0]))
	}

	// A wrong token: the agent refuses the call, and the model is told.
	env["RECORDS_TOKEN"] = "wrong"
	m = chattest.New(chattest.Calls(chattest.Call("records", `{"input":"say hello"}`)), chattest.Text("It refused."))
	if _, stderr, code := run(t, env, m, "", "chat", "-T", "records", "--yes", "ask"); code != 0 || strings.Contains(m.Prompts()[1].Messages[len(m.Prompts()[1].Messages)-1].ToolResults[0].Content, "Hello") {
		t.Fatalf("wrong token: %d %s", code, stderr)
	}
	if n := len(srv.chatRequests()); n != 1 {
		t.Fatalf("the served model was asked %d times", n)
	}
	// A variable that is not set is said before anything starts.
	delete(env, "RECORDS_TOKEN")
	if _, stderr, code := run(t, env, nil, "", "tools", "list"); code != exitConfig || !strings.Contains(stderr, "$RECORDS_TOKEN, which is not set") {
		t.Fatalf("unset token: %d %q", code, stderr)
	}
	// An agent that does not answer is reported and the others go on.
	e := keyEnv(t)
	writeConfig(t, e, `{"agents": {"gone": {"url": "http://127.0.0.1:1"}}}`)
	stdout, stderr, code = run(t, e, nil, "", "tools", "list")
	if code != 0 || !strings.Contains(stderr, "A2A agent gone (http://127.0.0.1:1) cannot be reached; going on without it") || !strings.Contains(stdout, "getCurrentDateTime") {
		t.Fatalf("unreachable agent: %d %q %q", code, stdout, stderr)
	}
	// Broken entries are named when the file is read.
	for bad, want := range map[string]string{
		`{"agents": {"a b": {"url": "http://x"}}}`:                  `agents: "a b" is not a name`,
		`{"agents": {"r": {"url": "ftp://x"}}}`:                     "agents.r.url is \"ftp://x\"",
		`{"agents": {"r": {}}}`:                                     "agents.r.url",
		`{"agents": {"r": {"url": "http://x", "tokenEnv": "$T"}}}`:  "agents.r.tokenEnv",
		`{"agents": {"r": {"url": "http://x", "token": "s3cret"}}}`: `unknown field "token"`,
	} {
		e := keyEnv(t)
		writeConfig(t, e, bad)
		if _, stderr, code := run(t, e, nil, "", "tools", "list"); code != exitError || !strings.Contains(stderr, want) {
			t.Errorf("%s: %d %q, want %q", bad, code, stderr, want)
		}
	}
}
