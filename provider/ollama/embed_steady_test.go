//go:build unix

package ollama

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/wield-ai/wield/internal/providertest"
)

// TestSteadyAcceptsEmbedRequests validates the Embedder's /api/embed requests against Ollama's
// official OpenAPI description. steady answers with made-up vectors; only its verdict counts.
func TestSteadyAcceptsEmbedRequests(t *testing.T) {
	base := startSteady(t)
	v := &providertest.Verdicts{}
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
			v.Take()
			cfg.BaseURL, cfg.HTTPClient, cfg.MaxRetries = base, client, -1
			e, err := NewEmbedder(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = e.Embed(context.Background(), []string{"get_weather\nGet the current weather for a city.", "send_email"})
			seen := v.One(t)
			seen.Accepted(t, "/api/embed")
			if h := seen.Header; h.Get("X-Steady-Matched-Path") != "/api/embed" {
				t.Fatalf("steady matched %q, want /api/embed", h.Get("X-Steady-Matched-Path"))
			}
		})
	}
	// steady does check EmbedRequest: dimensions of the wrong type are rejected.
	t.Run("an invalid request is rejected", func(t *testing.T) {
		providertest.SteadyRejects(t, base+"/api/embed", `{"model":"m","input":["a"],"dimensions":"many"}`)
	})
}
