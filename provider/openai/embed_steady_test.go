//go:build unix

package openai

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/option"

	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
)

// TestSteadyEmbeddings sends the Embedder's requests to steady, which checks them against
// CreateEmbeddingRequest in OpenAI's OpenAPI spec. steady answers with generated mock vectors,
// which need not fit the request: only its verdict counts.
func TestSteadyEmbeddings(t *testing.T) {
	url := startSteady(t)
	rec := &providertest.Verdicts{}
	client := &http.Client{Transport: rec}
	many := make([]string, 300)
	for i := range many {
		many[i] = strings.Repeat("tool description ", i%7+1)
	}
	shapes := []struct {
		name  string
		cfg   EmbedderConfig
		texts []string
		n     int // requests that reach steady
	}{
		{"default model", EmbedderConfig{}, []string{"get_weather\nGet the current weather for a city."}, 1},
		{"dimensions", EmbedderConfig{Model: "text-embedding-3-large", Dimensions: 256}, []string{"a", "b"}, 1},
		{"prefix", EmbedderConfig{Model: "nomic-embed-text", Prefix: "search_query: "}, []string{"weather"}, 1},
		// steady's mock answer to the first batch has made-up indexes, so Embed stops there.
		{"a batch of 128", EmbedderConfig{BatchSize: 128}, many, 1},
		// api.openai.com is asked for base64 vectors; the request goes to steady all the same.
		{"base64 from api.openai.com", EmbedderConfig{BaseURL: DefaultBaseURL, Transport: provider.Transport{HTTPClient: &http.Client{Transport: toServer{url: url, next: rec}}}},
			[]string{"a"}, 1},
	}
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			cfg := s.cfg
			if cfg.BaseURL == "" {
				cfg.BaseURL, cfg.HTTPClient = url, client
			}
			cfg.APIKey, cfg.MaxRetries = "sk-test", -1
			e, err := NewEmbedder(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = e.Embed(context.Background(), s.texts)
			vs := rec.Take()
			if len(vs) != s.n {
				t.Fatalf("%d requests, want %d", len(vs), s.n)
			}
			if s.cfg.BaseURL == DefaultBaseURL && !strings.Contains(string(vs[0].Request), `"encoding_format":"base64"`) {
				t.Fatalf("request to OpenAI without base64: %s", vs[0].Request)
			}
			for _, v := range vs {
				v.Accepted(t, "/embeddings")
			}
		})
	}

	t.Run("invalid request is reported", func(t *testing.T) {
		e, err := NewEmbedder(EmbedderConfig{BaseURL: url, APIKey: "k", Transport: provider.Transport{HTTPClient: client, MaxRetries: -1},
			RequestOptions: []option.RequestOption{option.WithJSONSet("encoding_format", "hex")}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Embed(context.Background(), []string{"a"})
		v := rec.Take()[0]
		if v.Status != http.StatusBadRequest || !strings.Contains(v.Rules(), "encoding_format") || err == nil {
			t.Fatalf("steady accepted encoding_format hex: HTTP %d %s\nrequest: %s", v.Status, v.Body, v.Request)
		}
	})
}
