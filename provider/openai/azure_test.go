package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/tool"
)

// fakeCredential is an Entra ID credential handing out numbered tokens valid for an hour.
type fakeCredential struct {
	calls  atomic.Int32
	scopes []string
}

func (f *fakeCredential) GetToken(_ context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	n := f.calls.Add(1)
	f.scopes = o.Scopes
	return azcore.AccessToken{Token: "entra-token-" + string(rune('0'+n)), ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// azureModel returns a model of api ("chat" or "responses") on Azure at srv's address.
// The versioned routes go through the SDK's azure package, which sends credentials over HTTPS
// only unless told the loopback test server is fine.
func azureModel(t testing.TB, api string, az Azure, cfg Config) chat.Model {
	t.Helper()
	cfg.Azure = &az
	cfg.RequestOptions = append(cfg.RequestOptions, azure.WithUnsafeAllowHTTP())
	var m chat.Model
	var err error
	if api == "responses" {
		m, err = NewResponses(cfg)
	} else {
		m, err = New(cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// recordedResponsesText reads the text of a recorded Responses answer (JSON or stream).
func recordedResponsesText(t testing.TB, ex replay.Exchange) string {
	t.Helper()
	if strings.HasPrefix(ex.Header.Get("Content-Type"), "text/event-stream") {
		return sseResponsesText(t, ex.Body)
	}
	var r struct {
		Output []struct {
			Type    string                  `json:"type"`
			Content []struct{ Text string } `json:"content"`
		} `json:"output"`
	}
	if err := json.Unmarshal(ex.Body, &r); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, o := range r.Output {
		if o.Type == "message" {
			for _, c := range o.Content {
				b.WriteString(c.Text)
			}
		}
	}
	return b.String()
}

// TestAzureToolLoops replays the recorded Azure OpenAI tool loops, both URL shapes (the versioned
// deployment routes and the v1 API), Chat Completions and Responses, called and streamed: the
// requests go to the recorded path and query with the key in Api-Key, mean what the recorded
// ones meant, and the answers (Azure's content filter results and the empty first chunk of its
// streams included) are read as the recording says.
func TestAzureToolLoops(t *testing.T) {
	cases := []struct {
		name, api, version string
		stream             bool
	}{
		{"fantasy-azure-deployments-chat-tool-loop-gpt-5-mini", "chat", "2025-01-01-preview", false},
		{"fantasy-azure-deployments-chat-tool-loop-streaming-gpt-5-mini", "chat", "2025-01-01-preview", true},
		{"fantasy-azure-v1-chat-tool-loop-gpt-5-mini", "chat", "", false},
		{"fantasy-azure-v1-chat-tool-loop-streaming-gpt-5-mini", "chat", "", true},
		{"fantasy-azure-v1-responses-tool-loop-gpt-5-mini", "responses", "", false},
		{"fantasy-azure-v1-responses-tool-loop-streaming-gpt-5-mini", "responses", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exs := providertest.Load(t, "azure", tc.name)
			srv := replay.NewServer(t, exs...)
			cfg := Config{MaxTokens: 4000}
			norms := []normalizer{dropFalseStrict}
			if tc.api == "responses" {
				cfg = fantasyResponsesConfig("")
				norms = []normalizer{joinTextParts("input"), developerAsSystem}
			}
			m := azureModel(t, tc.api, Azure{Endpoint: srv.URL, Deployment: "gpt-5-mini", APIVersion: tc.version, APIKey: "azure-key"}, cfg)
			weather := weatherTool()
			history := fantasyPrompt("What's the weather in Florence,Italy?", nil).Messages
			opts := &chat.Options{Tools: []tool.Tool{weather}, ToolChoice: "auto"}
			first, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: history, Options: opts}, tc.stream)
			if err != nil {
				t.Fatal(err)
			}
			if calls := first.ToolCalls(); len(calls) != 1 || calls[0].Name != "weather" || !strings.Contains(calls[0].Arguments, "Florence") {
				t.Fatalf("tool calls %+v", calls)
			}
			if tc.api == "chat" {
				if want := readRecorded(t, exs[0]); first.Usage != want.usage {
					t.Fatalf("usage %+v, want %+v", first.Usage, want.usage)
				}
			}
			history = runTools(t, history, first, weather)
			final, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: history, Options: opts}, tc.stream)
			if err != nil {
				t.Fatal(err)
			}
			want := recordedResponsesText(t, exs[1])
			if tc.api == "chat" {
				want = readRecorded(t, exs[1]).text
			}
			if final.Text() != want || final.Result().FinishReason != chat.FinishStop {
				t.Fatalf("final answer %q (%q), want %q", final.Text(), final.Result().FinishReason, want)
			}
			for i, req := range srv.Requests() {
				wantPath, wantQuery, _ := strings.Cut(strings.Fields(exs[i].Path)[0], "?")
				if req.Path != wantPath || req.Query != wantQuery {
					t.Errorf("request %d to %s?%s, recorded %s?%s", i+1, req.Path, req.Query, wantPath, wantQuery)
				}
				if req.Header.Get("Api-Key") != "azure-key" || req.Header.Get("Authorization") != "" {
					t.Errorf("request %d: Api-Key %q, Authorization %q", i+1, req.Header.Get("Api-Key"), req.Header.Get("Authorization"))
				}
				assertSameRequest(t, req.Body, exs[i].RequestBody, norms...)
			}
			if info := m.(chat.Describer).Info(); info != (chat.Info{Provider: AzureProvider, Model: "gpt-5-mini"}) {
				t.Errorf("Info() = %+v", info)
			}
		})
	}
}

// TestAzureEntraID checks Microsoft Entra ID authentication in both URL shapes: the credential's
// token goes in Authorization (no Api-Key, no OpenAI key or organization from the environment),
// for the default scope; the v1 API reuses a token until shortly before it expires (the SDK's
// versioned routes ask the credential for each request, and azidentity's credentials cache
// tokens themselves); and a token is never sent over plain HTTP to a host that is not the
// loopback address.
func TestAzureEntraID(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak")
	t.Setenv("OPENAI_ORG_ID", "org-must-not-leak")
	ex := providertest.Load(t, "azure", "fantasy-azure-v1-chat-tool-loop-gpt-5-mini")[1]
	for _, version := range []string{"", "2025-01-01-preview"} {
		cred := &fakeCredential{}
		srv := replay.NewServer(t, ex, ex)
		m := azureModel(t, "chat", Azure{Endpoint: srv.URL, Deployment: "gpt-5-mini", APIVersion: version, TokenCredential: cred}, Config{})
		for range 2 {
			if _, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}); err != nil {
				t.Fatalf("version %q: %v", version, err)
			}
		}
		for _, req := range srv.Requests() {
			if !strings.HasPrefix(req.Header.Get("Authorization"), "Bearer entra-token-") || req.Header.Get("Api-Key") != "" || req.Header.Get("OpenAI-Organization") != "" {
				t.Errorf("version %q: headers %v", version, req.Header)
			}
		}
		if version == "" && cred.calls.Load() != 1 || len(cred.scopes) != 1 || cred.scopes[0] != defaultAzureScope {
			t.Errorf("version %q: %d token requests for %v", version, cred.calls.Load(), cred.scopes)
		}
	}

	m, err := New(Config{Azure: &Azure{Endpoint: "http://example.invalid", Deployment: "d", TokenCredential: &fakeCredential{}}, Transport: provider.Transport{MaxRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}); err == nil || !strings.Contains(err.Error(), "HTTPS only") {
		t.Fatalf("a token over plain HTTP: %v", err)
	}
}

// TestAzureConfig checks the configuration errors, and the environment: the endpoint and key
// come from AZURE_OPENAI_*, and OpenAI's key never reaches Azure.
func TestAzureConfig(t *testing.T) {
	t.Setenv("AZURE_OPENAI_ENDPOINT", "")
	t.Setenv("AZURE_OPENAI_API_KEY", "")
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"no endpoint", Config{Azure: &Azure{APIKey: "k"}}},
		{"no credentials", Config{Azure: &Azure{Endpoint: "https://r.openai.azure.com"}}},
		{"key and token", Config{Azure: &Azure{Endpoint: "https://r.openai.azure.com", APIKey: "k", TokenCredential: &fakeCredential{}}}},
		{"base URL too", Config{BaseURL: "https://api.openai.com/v1", Azure: &Azure{Endpoint: "https://r.openai.azure.com", APIKey: "k"}}},
		{"deployment and model differ", Config{Model: "a", Azure: &Azure{Endpoint: "https://r.openai.azure.com", APIKey: "k", Deployment: "b"}}},
	} {
		if _, err := New(tc.cfg); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}

	ex := providertest.Load(t, "azure", "fantasy-azure-v1-chat-tool-loop-gpt-5-mini")[1]
	srv := replay.NewServer(t, ex)
	t.Setenv("AZURE_OPENAI_ENDPOINT", srv.URL)
	t.Setenv("AZURE_OPENAI_API_KEY", "env-key")
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak")
	m, err := New(Config{Azure: &Azure{}, Model: "my-deployment"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	var body struct{ Model string }
	json.Unmarshal(req.Body, &body)
	if req.Path != "/openai/v1/chat/completions" || req.Header.Get("Api-Key") != "env-key" || req.Header.Get("Authorization") != "" || body.Model != "my-deployment" {
		t.Fatalf("request %s, key %q, model %q", req.Path, req.Header.Get("Api-Key"), body.Model)
	}
}

// TestAzureErrors checks that Azure's errors are ProviderErrors like OpenAI's.
func TestAzureErrors(t *testing.T) {
	srv := replay.NewServer(t, providertest.JSONError(http.StatusNotFound,
		`{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist."}}`))
	m := azureModel(t, "chat", Azure{Endpoint: srv.URL, Deployment: "missing", APIVersion: "2025-01-01-preview", APIKey: "k"},
		Config{RequestOptions: []option.RequestOption{option.WithMaxRetries(0)}})
	_, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}})
	var pe *chat.ProviderError
	if !errors.As(err, &pe) || pe.StatusCode != 404 || pe.Code != "DeploymentNotFound" {
		t.Fatalf("error = %v", err)
	}
	if got := srv.Requests()[0].Path; got != "/openai/deployments/missing/chat/completions" {
		t.Errorf("path %s", got)
	}
}

// TestAzureRoutes checks the routes no recording has: the Responses API on the versioned routes
// (/openai/responses?api-version=…), and embeddings on both shapes. The answers are built in the
// APIs' shapes.
func TestAzureRoutes(t *testing.T) {
	respAnswer := providertest.JSONError(http.StatusOK, `{"id":"resp_1","object":"response","model":"gpt-5-mini","status":"completed","output":[{"type":"message","id":"m","role":"assistant","status":"completed","content":[{"type":"output_text","text":"hi","annotations":[]}]}]}`)
	srv := replay.NewServer(t, respAnswer)
	m := azureModel(t, "responses", Azure{Endpoint: srv.URL, Deployment: "gpt-5-mini", APIVersion: "2025-04-01-preview", APIKey: "k"}, Config{})
	if r, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}); err != nil || r.Text() != "hi" {
		t.Fatalf("answer %v, %v", r, err)
	}
	if req := srv.Requests()[0]; req.Path != "/openai/responses" || req.Query != "api-version=2025-04-01-preview" || req.Header.Get("Api-Key") != "k" {
		t.Errorf("Responses request to %s?%s", req.Path, req.Query)
	}

	embedAnswer := providertest.JSONError(http.StatusOK, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.5,0.25]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":1,"total_tokens":1}}`)
	for _, tc := range []struct{ version, path, query string }{
		{"", "/openai/v1/embeddings", ""},
		{"2024-10-21", "/openai/deployments/embed-small/embeddings", "api-version=2024-10-21"},
	} {
		srv := replay.NewServer(t, embedAnswer)
		e, err := NewEmbedder(EmbedderConfig{Azure: &Azure{Endpoint: srv.URL, Deployment: "embed-small", APIVersion: tc.version, APIKey: "k"},
			RequestOptions: []option.RequestOption{azure.WithUnsafeAllowHTTP()}})
		if err != nil {
			t.Fatal(err)
		}
		vs, err := e.Embed(context.Background(), []string{"hello"})
		if err != nil || len(vs) != 1 || vs[0][0] != 0.5 {
			t.Fatalf("version %q: vectors %v, %v", tc.version, vs, err)
		}
		req := srv.Requests()[0]
		var body struct{ Model string }
		json.Unmarshal(req.Body, &body)
		if req.Path != tc.path || req.Query != tc.query || body.Model != "embed-small" || req.Header.Get("Api-Key") != "k" {
			t.Errorf("version %q: request to %s?%s for %q", tc.version, req.Path, req.Query, body.Model)
		}
	}
}
