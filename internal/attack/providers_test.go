package attack

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/anthropic"
	"github.com/wield-ai/wield/provider/bedrock"
	"github.com/wield-ai/wield/provider/gemini"
	"github.com/wield-ai/wield/provider/ollama"
	"github.com/wield-ai/wield/provider/openai"
)

// The secrets each provider is given; none may reach a server other than the configured one.
const (
	apiKey       = "sk-attack-api-key"
	oauthToken   = "ya29.attack-oauth-token"
	sessionToken = "attack-aws-session-token"
	promptText   = "attack-private-prompt"
)

// TestProviderRedirectToForeignHost: a provider's server (or a proxy in front of it) answers
// with a 307 to another host. net/http would follow it, replaying the request body and every
// header except Authorization and Cookie, and an authorizing transport would sign the new
// request too: the API key, the OAuth token, the AWS session token and the prompt would all
// reach the other host. Every provider must refuse the redirect instead, with an error, and
// send the other host nothing.
func TestProviderRedirectToForeignHost(t *testing.T) {
	var mu sync.Mutex
	var stolen []string
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		stolen = append(stolen, r.Method+" "+r.URL.Path+" "+headerText(r.Header)+" "+string(b))
		mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer foreign.Close()
	// Another host name for the same loopback address: net/http compares host names.
	foreignURL := strings.Replace(foreign.URL, "127.0.0.1", "localhost", 1)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, foreignURL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer origin.Close()

	ctx := context.Background()
	awsCfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", sessionToken)}
	vertexCreds := &google.Credentials{ProjectID: "p", TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: oauthToken})}
	build := map[string]func() (chat.Model, error){
		"openai": func() (chat.Model, error) {
			return openai.New(openai.Config{BaseURL: origin.URL, APIKey: apiKey, Model: "m", Transport: provider.Transport{MaxRetries: -1}})
		},
		"azure": func() (chat.Model, error) {
			return openai.New(openai.Config{Azure: &openai.Azure{Endpoint: origin.URL, Deployment: "d", APIKey: apiKey}, Transport: provider.Transport{MaxRetries: -1}})
		},
		"anthropic": func() (chat.Model, error) {
			return anthropic.New(anthropic.Config{BaseURL: origin.URL, APIKey: apiKey, Model: "m", Transport: provider.Transport{MaxRetries: -1}})
		},
		"anthropic-bedrock": func() (chat.Model, error) {
			return anthropic.NewBedrock(ctx, anthropic.BedrockConfig{Config: anthropic.Config{BaseURL: origin.URL, Model: "m", Transport: provider.Transport{MaxRetries: -1}}, AWS: &awsCfg})
		},
		"anthropic-vertex": func() (chat.Model, error) {
			return anthropic.NewVertex(ctx, anthropic.VertexConfig{Config: anthropic.Config{BaseURL: origin.URL, Model: "m@1", Transport: provider.Transport{MaxRetries: -1}}, Region: "us-east5", Credentials: vertexCreds})
		},
		// The caller's own client gets the same policy.
		"anthropic-own-client": func() (chat.Model, error) {
			return anthropic.New(anthropic.Config{BaseURL: origin.URL, APIKey: apiKey, Model: "m", Transport: provider.Transport{MaxRetries: -1, HTTPClient: &http.Client{}}})
		},
		"anthropic-vertex-own-client": func() (chat.Model, error) {
			return anthropic.NewVertex(ctx, anthropic.VertexConfig{Config: anthropic.Config{BaseURL: origin.URL, Model: "m@1", Transport: provider.Transport{MaxRetries: -1, HTTPClient: &http.Client{}}}, Region: "us-east5", Credentials: vertexCreds})
		},
		"bedrock-own-client": func() (chat.Model, error) {
			return bedrock.New(ctx, bedrock.Config{BaseURL: origin.URL, Model: "m", AWS: &awsCfg, MaxAttempts: 1, Transport: provider.Transport{HTTPClient: &http.Client{}}})
		},
		"gemini-own-client": func() (chat.Model, error) {
			return gemini.New(ctx, gemini.Config{BaseURL: origin.URL, APIKey: apiKey, Model: "m", Transport: provider.Transport{MaxRetries: -1, HTTPClient: &http.Client{}}})
		},
		"gemini": func() (chat.Model, error) {
			return gemini.New(ctx, gemini.Config{BaseURL: origin.URL, APIKey: apiKey, Model: "m", Transport: provider.Transport{MaxRetries: -1}})
		},
		"ollama": func() (chat.Model, error) {
			return ollama.New(ollama.Config{BaseURL: origin.URL, Model: "m", Transport: provider.Transport{MaxRetries: -1}})
		},
		"bedrock": func() (chat.Model, error) {
			return bedrock.New(ctx, bedrock.Config{BaseURL: origin.URL, Model: "m", AWS: &awsCfg, MaxAttempts: 1})
		},
	}
	p := &chat.Prompt{Messages: []chat.Message{chat.User(promptText)}}
	for name, newModel := range build {
		t.Run(name, func(t *testing.T) {
			m, err := newModel()
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			stolen = nil
			mu.Unlock()
			_, err = m.Call(ctx, p)
			if err == nil {
				t.Error("Call followed the redirect without an error")
			}
			mu.Lock()
			defer mu.Unlock()
			for _, s := range stolen {
				for _, secret := range []string{apiKey, oauthToken, sessionToken, promptText} {
					if strings.Contains(s, secret) {
						t.Errorf("the foreign host got %q: %s", secret, s)
					}
				}
			}
			if len(stolen) > 0 {
				t.Errorf("the foreign host got %d requests; error %v", len(stolen), err)
			}
		})
	}
}

func headerText(h http.Header) string {
	var b strings.Builder
	for k, v := range h {
		b.WriteString(k + "=" + strings.Join(v, ",") + " ")
	}
	return b.String()
}

// TestProviderHugeResponse: a server answers a call or a stream with a body far larger than any
// answer, gzip-compressed so it costs the server next to nothing (8 MiB inflated from some
// 8 KiB; a real bomb would be gigabytes). Every provider stops reading at MaxResponseBytes and
// fails with an error that names it, instead of holding the whole body in memory.
func TestProviderHugeResponse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Encoding", "gzip")
		if strings.Contains(r.URL.RawQuery, "alt=sse") || r.Header.Get("Accept") == "text/event-stream" {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		zw := gzip.NewWriter(w)
		_, _ = zw.Write([]byte(`data: {"id":"`))
		chunk := []byte(strings.Repeat("a", 1<<20))
		for range 8 {
			if _, err := zw.Write(chunk); err != nil {
				return
			}
		}
		_, _ = zw.Write([]byte("\"}\n\n"))
		_ = zw.Close()
	}))
	defer srv.Close()
	ctx := context.Background()
	const limit = 1 << 20
	build := map[string]func() (chat.Model, error){
		"openai": func() (chat.Model, error) {
			return openai.New(openai.Config{BaseURL: srv.URL, APIKey: apiKey, Model: "m", Transport: provider.Transport{MaxRetries: -1, MaxResponseBytes: limit}})
		},
		"openai-responses": func() (chat.Model, error) {
			return openai.NewResponses(openai.Config{BaseURL: srv.URL, APIKey: apiKey, Model: "m", Transport: provider.Transport{MaxRetries: -1, MaxResponseBytes: limit}})
		},
		"anthropic": func() (chat.Model, error) {
			return anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: apiKey, Model: "m", Transport: provider.Transport{MaxRetries: -1, MaxResponseBytes: limit}})
		},
		"gemini": func() (chat.Model, error) {
			return gemini.New(ctx, gemini.Config{BaseURL: srv.URL, APIKey: apiKey, Model: "m", Transport: provider.Transport{MaxRetries: -1, MaxResponseBytes: limit}})
		},
		"ollama": func() (chat.Model, error) {
			return ollama.New(ollama.Config{BaseURL: srv.URL, Model: "m", Transport: provider.Transport{MaxRetries: -1, MaxResponseBytes: limit}})
		},
	}
	p := &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}
	for name, newModel := range build {
		t.Run(name, func(t *testing.T) {
			m, err := newModel()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Call(ctx, p); err == nil || !strings.Contains(err.Error(), "MaxResponseBytes") {
				t.Errorf("Call: %v, want an error naming MaxResponseBytes", err)
			}
			var last error
			for _, err := range m.Stream(ctx, p) {
				last = err
			}
			if last == nil || !strings.Contains(last.Error(), "MaxResponseBytes") {
				t.Errorf("Stream: %v, want an error naming MaxResponseBytes", last)
			}
		})
	}
}
