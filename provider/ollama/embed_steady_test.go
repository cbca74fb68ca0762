//go:build unix

package ollama

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// TestSteadyAcceptsEmbedRequests validates the Embedder's /api/embed requests against Ollama's
// official OpenAPI description. steady answers with made-up vectors; only its verdict counts.
func TestSteadyAcceptsEmbedRequests(t *testing.T) {
	base := startSteady(t)
	v := &verdicts{}
	client := &http.Client{Transport: v}
	configs := map[string]EmbedderConfig{
		"plain":      {Model: "embeddinggemma"},
		"dimensions": {Model: "embeddinggemma", Dimensions: 256, Prefix: "task: search result | query: "},
		"configured": {Model: "nomic-embed-text", Configure: func(r *api.EmbedRequest) {
			r.KeepAlive = &api.Duration{Duration: 5 * time.Minute}
			truncate := false
			r.Truncate = &truncate
			r.Options["num_ctx"] = 2048
		}},
	}
	for name, cfg := range configs {
		t.Run(name, func(t *testing.T) {
			v.mu.Lock()
			v.seen = nil
			v.mu.Unlock()
			cfg.BaseURL, cfg.HTTPClient, cfg.MaxRetries = base, client, -1
			e, err := NewEmbedder(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = e.Embed(context.Background(), []string{"get_weather\nGet the current weather for a city.", "send_email"})
			v.mu.Lock()
			defer v.mu.Unlock()
			if len(v.seen) != 1 {
				t.Fatalf("%d requests", len(v.seen))
			}
			h := v.seen[0]
			if h.Get("X-Steady-Request-Valid") != "true" || h.Get("X-Steady-Matched-Path") != "/api/embed" {
				var rules []string
				for k, vals := range h {
					if strings.HasPrefix(strings.ToLower(k), "x-steady-error-") {
						rules = append(rules, k+": "+strings.Join(vals, ", "))
					}
				}
				t.Fatalf("steady rejected the request: %v", rules)
			}
		})
	}
	// steady does check EmbedRequest: dimensions of the wrong type are rejected.
	t.Run("an invalid request is rejected", func(t *testing.T) {
		resp, err := http.Post(base+"/api/embed", "application/json", strings.NewReader(`{"model":"m","input":["a"],"dimensions":"many"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 || resp.Header.Get("X-Steady-Request-Valid") != "false" {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
}
