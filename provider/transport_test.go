package provider_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/anthropic"
	"github.com/wield-ai/wield/provider/bedrock"
	"github.com/wield-ai/wield/provider/gemini"
	"github.com/wield-ai/wield/provider/ollama"
	"github.com/wield-ai/wield/provider/openai"
)

// models builds every provider's model on url with the one Transport, as its Config embeds it.
func models(ctx context.Context, url string, tr provider.Transport) map[string]func() (chat.Model, error) {
	awsCfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")}
	return map[string]func() (chat.Model, error){
		"openai": func() (chat.Model, error) {
			return openai.New(openai.Config{BaseURL: url, APIKey: "k", Model: "m", Transport: tr})
		},
		"openai responses": func() (chat.Model, error) {
			return openai.NewResponses(openai.Config{BaseURL: url, APIKey: "k", Model: "m", Transport: tr})
		},
		"anthropic": func() (chat.Model, error) {
			return anthropic.New(anthropic.Config{BaseURL: url, APIKey: "k", Model: "m", Transport: tr})
		},
		"bedrock": func() (chat.Model, error) {
			return bedrock.New(ctx, bedrock.Config{BaseURL: url, Model: "m", AWS: &awsCfg, Transport: tr})
		},
		"gemini": func() (chat.Model, error) {
			return gemini.New(ctx, gemini.Config{BaseURL: url, APIKey: "k", Model: "m", Transport: tr})
		},
		"ollama": func() (chat.Model, error) { return ollama.New(ollama.Config{BaseURL: url, Model: "m", Transport: tr}) },
	}
}

// TestTransport: every provider sends the Transport's headers on every attempt, and counts its
// retries by MaxRetries, negative meaning none.
func TestTransport(t *testing.T) {
	ctx := context.Background()
	var attempts, tagged atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		if r.Header.Get("X-Tenant") == "t1" && r.Header.Get("User-Agent") == "wield-test" {
			tagged.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":{"message":"down","code":503}}`))
	}))
	defer srv.Close()
	p := &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}
	header := http.Header{"X-Tenant": {"t1"}, "user-agent": {"wield-test"}}
	for _, tc := range []struct {
		retries int
		want    int32
	}{{-1, 1}, {1, 2}} {
		for name, build := range models(ctx, srv.URL, provider.Transport{MaxRetries: tc.retries, Header: header}) {
			m, err := build()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			attempts.Store(0)
			tagged.Store(0)
			if _, err := m.Call(ctx, p); err == nil {
				t.Errorf("%s: a 503 answer was no error", name)
			}
			if n := attempts.Load(); n != tc.want {
				t.Errorf("%s, MaxRetries %d: %d attempts, want %d", name, tc.retries, n, tc.want)
			}
			if n := tagged.Load(); n != attempts.Load() {
				t.Errorf("%s: %d of %d attempts carried the Transport's headers", name, n, attempts.Load())
			}
		}
	}
}
