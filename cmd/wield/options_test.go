package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chattest"
)

// TestChatModelOptions: -o KEY VALUE (and KEY=VALUE) reach the model's options.
func TestChatModelOptions(t *testing.T) {
	m := chattest.New(chattest.Text("ok"))
	_, stderr, code := run(t, keyEnv(t), m, "", "chat", "-o", "temperature", "0.2", "--option", "max_tokens=50",
		"-o", "top_p", "0.9", "-o", "stop", "END", "-o", "stop", "a=b", "-o", "seed", "-7", "-o", "parallel-tool-calls", "false",
		"-o", "reasoning_effort", "low", "-o", "tool_choice", "none", "Hi")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	o := m.Prompts()[0].Options
	if o.Temperature == nil || *o.Temperature != 0.2 || o.MaxTokens != 50 || o.TopP == nil || *o.TopP != 0.9 ||
		strings.Join(o.Stop, "|") != "END|a=b" || o.Seed == nil || *o.Seed != -7 || o.ParallelToolCalls == nil || *o.ParallelToolCalls ||
		o.Extra["openai.reasoning_effort"] != "low" || o.ToolChoice != "none" {
		t.Errorf("options %+v", o)
	}
}

// TestChatModelOptionsOnTheWire: an OpenAI-compatible server receives the options as its API's
// fields.
func TestChatModelOptionsOnTheWire(t *testing.T) {
	srv := newFakeOpenAI(t, reply{text: "ok"})
	env := keyEnv(t)
	_, stderr, code := run(t, env, nil, "", "chat", "--base-url", srv.v1(), "-m", "gpt-4o", "-o", "temperature", "0.3", "-o", "max_tokens", "77", "-o", "reasoning_effort", "high", "Hi")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var body map[string]any
	for _, r := range srv.requests() {
		if r.Path == "/v1/chat/completions" {
			json.Unmarshal(r.Body, &body)
		}
	}
	if body["temperature"] != 0.3 || (body["max_tokens"] != 77.0 && body["max_completion_tokens"] != 77.0) || body["reasoning_effort"] != "high" {
		t.Errorf("request %v", body)
	}
}

// TestChatModelOptionErrors: each bad option is refused before any request, saying why.
func TestChatModelOptionErrors(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"-o", "temprature", "1"}, "-o temprature: no such option; the options are temperature, top_p"},
		{nil, []string{"-o", "temperature", "3"}, "want a number from 0 to 2"},
		{nil, []string{"-o", "temperature", "NaN"}, "want a number from 0 to 2"},
		{nil, []string{"-o", "top_p=-0.1"}, "want a number from 0 to 1"},
		{nil, []string{"-o", "max_tokens", "0"}, "want a whole number from 1"},
		{nil, []string{"-o", "max_tokens", "lots"}, `not "lots"`},
		{nil, []string{"-o", "seed", "1.5"}, "want a whole number"},
		{nil, []string{"-o", "parallel_tool_calls", "maybe"}, "want true or false"},
		{nil, []string{"-o", "reasoning_effort", "extreme"}, "want one of none, minimal, low, medium, high"},
		{nil, []string{"-o", "top_k", "5"}, "openai models do not take it (anthropic and gemini do)"},
		{nil, []string{"-o", "thinking_budget", "100"}, "openai models do not take it"},
		{map[string]string{"ANTHROPIC_API_KEY": "a"}, []string{"-m", "claude-sonnet-4-5", "-o", "thinking_budget", "-1"}, "-1 is gemini's"},
		{map[string]string{"ANTHROPIC_API_KEY": "a"}, []string{"-m", "claude-sonnet-4-5", "-o", "reasoning_effort", "low"}, "anthropic models do not take it"},
		{nil, []string{"-o", "temperature"}, "-o temperature needs a VALUE"},
	} {
		env := keyEnv(t)
		for k, v := range tt.env {
			env[k] = v
		}
		m := chattest.New(chattest.Text("ok"))
		_, stderr, code := run(t, env, m, "", append([]string{"chat", "Hi"}, tt.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tt.args, code, stderr, tt.want)
		}
		if len(m.Prompts()) != 0 {
			t.Errorf("%v: the model was called", tt.args)
		}
	}
	// Provider-specific options are taken for their provider.
	env := keyEnv(t)
	env["ANTHROPIC_API_KEY"] = "a"
	m := chattest.New(chattest.Text("ok"))
	if _, stderr, code := run(t, env, m, "", "chat", "-m", "claude-sonnet-4-5", "-o", "top_k", "40", "-o", "thinking_budget", "2048", "Hi"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if x := m.Prompts()[0].Options.Extra; x["anthropic.top_k"] != 40 || x["anthropic.thinking_budget"] != 2048 {
		t.Errorf("extra %v", x)
	}
}

func TestJoinOptionPairs(t *testing.T) {
	got := strings.Join(joinOptionPairs([]string{"-o", "a", "1", "-o", "b=2", "q", "--option", "c", "-3", "--", "-o", "x", "y"}), " ")
	if want := "-o a=1 -o b=2 q --option c=-3 -- -o x y"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSlashModelKeepsOptions: /model takes the chat's -o options to the new model, and refuses a
// model whose provider lacks one, staying on the old model.
func TestSlashModelKeepsOptions(t *testing.T) {
	env := keyEnv(t)
	env["ANTHROPIC_API_KEY"] = "a"
	m := chattest.New(chattest.Text("ok"))
	_, stderr, code := run(t, env, m, "/model gemini-2.5-pro\n/model claude-opus-4-5\n/model\nhi\n", "chat", "--lines", "-o", "top_k", "5", "-m", "claude-sonnet-4-5")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	// gemini needs its key; claude-opus-4-5 takes top_k.
	if !strings.Contains(stderr, "GEMINI_API_KEY") || !strings.Contains(stderr, "model anthropic/claude-opus-4-5") {
		t.Errorf("stderr %q", stderr)
	}
	if p := m.Prompts(); len(p) != 1 || p[0].Options.Extra["anthropic.top_k"] != 5 {
		t.Errorf("prompts %v", p)
	}
	m = chattest.New(chattest.Text("ok"))
	_, stderr, _ = run(t, env, m, "/model gpt-4.1\n/model\n", "chat", "--lines", "-o", "top_k", "5", "-m", "claude-sonnet-4-5")
	if !strings.Contains(stderr, "openai/gpt-4.1: -o top_k 5: openai models do not take it") || !strings.Contains(stderr, "model anthropic/claude-sonnet-4-5") {
		t.Errorf("stderr %q", stderr)
	}
}
