//go:build unix

package ollama

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/wield-ai/wield/internal/providertest"
)

// TestSteadyAcceptsEmbedRequests validates the Embedder's /api/embed requests against Ollama's
// official OpenAPI description. steady answers with made-up vectors; only its verdict counts.
func TestSteadyAcceptsEmbedRequests(t *testing.T) {
	spec, err := filepath.Abs(filepath.Join("testdata", "spec", "ollama-openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	base := providertest.StartSteady(t, spec)
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
			vs := v.Take()
			if len(vs) != 1 {
				t.Fatalf("%d requests", len(vs))
			}
			if !vs[0].Valid() || vs[0].Header.Get("X-Steady-Matched-Path") != "/api/embed" {
				t.Fatalf("steady rejected the request:%s\nrequest: %s", vs[0].Rules(), vs[0].Request)
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
