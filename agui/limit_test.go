package agui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/wield-ai/wield/agui"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/internal/clienttest"
)

// TestRunsPerClient: runs go on after their clients leave, so one client starting runs that do
// not end could hold every place; with the per-client cap it is refused with 429 and another
// client still gets a run.
func TestRunsPerClient(t *testing.T) {
	release := make(chan struct{})
	model := chattest.New(chattest.Respond(func(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &chat.Response{Generations: []chat.Generation{{Message: chat.Message{Role: chat.RoleAssistant, Content: "done"}, FinishReason: chat.FinishStop}}}, nil
	})).Repeat()
	h, err := agui.New(agui.Config{
		Client: clienttest.New(t, model), MaxRuns: 8, MaxRunsPerClient: 2,
		Principal: func(r *http.Request) string { return r.Header.Get("X-User") },
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, h)
	defer close(release)
	start := func(user, run string) *http.Response {
		body, _ := json.Marshal(input("t-"+run, run, "hi"))
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-User", user)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close() // the run goes on without its client
		return resp
	}
	started := 0
	for i := range 6 {
		resp := start("mallory", "m"+string(rune('0'+i)))
		switch {
		case resp.StatusCode == http.StatusOK:
			started++
		case resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "":
			t.Fatalf("mallory's run %d: %s, want 429 with Retry-After", i, resp.Status)
		}
	}
	if started != 2 {
		t.Fatalf("mallory started %d runs, want her share of 2", started)
	}
	if resp := start("alice", "a0"); resp.StatusCode != http.StatusOK {
		t.Fatalf("alice was locked out by mallory: %s", resp.Status)
	}
}
