package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/a2a"
	"github.com/wield-ai/wield/tool"
)

// startA2AServe runs wield a2a serve on a free loopback port and returns its URL.
func startA2AServe(t *testing.T, env []string, args ...string) string {
	t.Helper()
	first, _ := startServer(t, env, append([]string{"a2a", "serve", "--http", "127.0.0.1:0"}, args...)...)
	_, url, ok := strings.Cut(first, " on ")
	if !ok || !strings.HasPrefix(first, "wield: serving the A2A agent") || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q", first)
	}
	return strings.TrimSuffix(url, "/")
}

// TestBinaryA2AServe: another agent calls wield a2a serve as a tool and gets the served model's
// answer; wield a2a card prints the card; with a token, only callers that send it are served.
func TestBinaryA2AServe(t *testing.T) {
	srv := newFakeOpenAI(t, reply{text: "Hello from the served agent."})
	env := envWith(cleanEnv(t), "OPENAI_API_KEY=test-key", "OPENAI_BASE_URL="+srv.v1(), a2aTokenEnv+"=s3cret")
	url := startA2AServe(t, env, "--model", "openai/gpt-4o", "--builtin=false", "--name", "records")

	r := wield(t, cleanEnv(t), "", "a2a", "card", url)
	var card struct {
		Name         string `json:"name"`
		Capabilities struct {
			Streaming bool `json:"streaming"`
		} `json:"capabilities"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &card) != nil || card.Name != "records" || !card.Capabilities.Streaming {
		t.Fatalf("a2a card: exit %d, %q, %s", r.code, r.stdout, r.stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	call := func(token string) (string, error) {
		cfg := a2a.Config{CardURL: url}
		if token != "" {
			cfg.Auth = &a2a.Auth{BearerToken: token}
		}
		agent, err := a2a.RemoteAgent(ctx, cfg)
		if err != nil {
			return "", err
		}
		res, err := tool.Invoke(ctx, agent, `{"input":"say hello"}`)
		return res.Text, err
	}
	if got, err := call("s3cret"); err != nil || !strings.Contains(got, "Hello from the served agent.") {
		t.Fatalf("with the token: %q, %v", got, err)
	}
	if got, err := call("wrong"); err == nil {
		t.Fatalf("a wrong token was served: %q", got)
	}
	if reqs := srv.chatRequests(); len(reqs) != 1 {
		t.Fatalf("the model was asked %d times", len(reqs))
	}
}

// TestA2AServeRefusesAnOpenAddressWithoutAToken: nothing listens on an address others reach
// unless a token or --allow-unauthenticated says who may call.
func TestA2AServeRefusesAnOpenAddressWithoutAToken(t *testing.T) {
	r := wield(t, envWith(cleanEnv(t), "OPENAI_API_KEY=test-key"), "", "a2a", "serve", "--http", "0.0.0.0:0", "--model", "openai/gpt-4o")
	if r.code != 2 || !strings.Contains(r.stderr, "reachable from other machines") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}
