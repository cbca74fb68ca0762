package temporal_test

import (
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider/openai"
	"github.com/wield-ai/wield/temporal"
)

// TestPersistent500MakesTemporalsAttemptsOnly: a provider that answers 500 to everything is
// asked once per attempt of the model activity, not once per attempt and retry of the provider
// SDK (5 requests, not 15), on both loops.
func TestPersistent500MakesTemporalsAttemptsOnly(t *testing.T) {
	for _, clientLoop := range []bool{false, true} {
		var requests atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":{"message":"down","type":"server_error"}}`))
		}))
		m, err := openai.New(openai.Config{BaseURL: srv.URL, APIKey: "test-key", Model: "gpt-4.1-mini"})
		if err != nil {
			t.Fatal(err)
		}
		tc := dial(t)
		cfg := temporal.Config{TaskQueue: "down-" + rand.Text()[:8], WorkflowLoop: !clientLoop, EventPoll: 20 * time.Millisecond,
			ModelRetry: &sdktemporal.RetryPolicy{InitialInterval: 10 * time.Millisecond, BackoffCoefficient: 1, MaximumAttempts: 5}}
		startWorker(t, tc, newClient(m), cfg)
		ctx, turn := startTurn(t, tc, cfg, time.Minute, temporal.Request{Messages: []chat.Message{chat.User("hello")}})
		if _, err := turn.Result(ctx); err == nil {
			t.Fatal("a turn whose provider is down succeeded")
		}
		srv.Close()
		if n := requests.Load(); n != 5 {
			t.Errorf("clientLoop=%v: %d requests, want 5 (one per attempt)", clientLoop, n)
		}
	}
}
