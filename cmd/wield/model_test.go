package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wield-ai/wield/internal/testenv"
)

func TestResolveModel(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		flags   modelFlags
		want    string // provider/name
		wantKey string
		wantURL string
		wantErr string
	}{
		{"openai key", map[string]string{"OPENAI_API_KEY": "o"}, modelFlags{}, "openai/gpt-4.1-mini", "o", "", ""},
		{"anthropic key", map[string]string{"ANTHROPIC_API_KEY": "a"}, modelFlags{}, "anthropic/claude-haiku-4-5", "a", "", ""},
		{"gemini key", map[string]string{"GEMINI_API_KEY": "g"}, modelFlags{}, "gemini/gemini-2.5-flash", "g", "", ""},
		{"google key", map[string]string{"GOOGLE_API_KEY": "g2"}, modelFlags{}, "gemini/gemini-2.5-flash", "g2", "", ""},
		{"openai first", map[string]string{"GEMINI_API_KEY": "g", "OPENAI_API_KEY": "o"}, modelFlags{}, "openai/gpt-4.1-mini", "o", "", ""},
		{"flag", map[string]string{"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a"}, modelFlags{model: "anthropic/claude-sonnet-4-5"}, "anthropic/claude-sonnet-4-5", "a", "", ""},
		{"bare provider", map[string]string{"GEMINI_API_KEY": "g"}, modelFlags{model: "gemini"}, "gemini/gemini-2.5-flash", "g", "", ""},
		{"WIELD_MODEL", map[string]string{"WIELD_MODEL": "gemini/gemini-2.5-pro", "GEMINI_API_KEY": "g"}, modelFlags{}, "gemini/gemini-2.5-pro", "g", "", ""},
		{"flag over WIELD_MODEL", map[string]string{"WIELD_MODEL": "gemini/x", "OPENAI_API_KEY": "o"}, modelFlags{model: "openai/gpt-5"}, "openai/gpt-5", "o", "", ""},
		{"ollama by name", map[string]string{}, modelFlags{model: "ollama/qwen3"}, "ollama/qwen3", "", "http://127.0.0.1:11434", ""},
		{"ollama host", map[string]string{"OLLAMA_HOST": "10.0.0.2:11434"}, modelFlags{model: "ollama/qwen3"}, "ollama/qwen3", "", "http://10.0.0.2:11434", ""},
		{"compatible server", map[string]string{}, modelFlags{model: "Qwen/Qwen3-8B", baseURL: "http://127.0.0.1:8000/v1"}, "openai/Qwen/Qwen3-8B", "", "http://127.0.0.1:8000/v1", ""},
		// OPENAI_API_KEY is for OpenAI: another server gets its own key, or none.
		{"compatible server, openai prefix", map[string]string{"OPENAI_API_KEY": "o"}, modelFlags{model: "openai/llama", baseURL: "http://h/v1"}, "openai/llama", "", "http://h/v1", ""},
		{"compatible server, WIELD_API_KEY", map[string]string{"OPENAI_API_KEY": "o", "WIELD_API_KEY": "w"}, modelFlags{model: "llama", baseURL: "http://h/v1"}, "openai/llama", "w", "http://h/v1", ""},
		{"compatible server, --api-key", map[string]string{"WIELD_API_KEY": "w"}, modelFlags{model: "llama", baseURL: "http://h/v1", apiKey: "f"}, "openai/llama", "f", "http://h/v1", ""},
		{"WIELD_API_KEY not for OpenAI", map[string]string{"OPENAI_API_KEY": "o", "WIELD_API_KEY": "w"}, modelFlags{model: "openai/gpt-5"}, "openai/gpt-5", "o", "", ""},
		{"OpenAI's own host", map[string]string{"OPENAI_API_KEY": "o"}, modelFlags{model: "openai/gpt-5", baseURL: "https://api.openai.com/v1"}, "openai/gpt-5", "o", "https://api.openai.com/v1", ""},
		{"OPENAI_BASE_URL pairs with OPENAI_API_KEY", map[string]string{"OPENAI_API_KEY": "o", "OPENAI_BASE_URL": "http://proxy/v1"}, modelFlags{model: "openai/gpt-5"}, "openai/gpt-5", "o", "http://proxy/v1", ""},
		{"not a URL", map[string]string{}, modelFlags{model: "m", baseURL: "ftp://h/v1"}, "", "", "", "is not an http(s) URL"},
		{"missing key", map[string]string{"OPENAI_API_KEY": "o"}, modelFlags{model: "anthropic/claude-haiku-4-5"}, "", "", "", "needs an API key: set ANTHROPIC_API_KEY"},
		{"gemini missing key", map[string]string{}, modelFlags{model: "gemini/x"}, "", "", "", "set GEMINI_API_KEY or GOOGLE_API_KEY"},
		{"unknown provider", map[string]string{}, modelFlags{model: "mistral/large"}, "", "", "", "with a provider of openai, anthropic, gemini, ollama"},
		{"bad WIELD_MODEL", map[string]string{"WIELD_MODEL": "mistral-large"}, modelFlags{}, "", "", "", `$WIELD_MODEL "mistral-large"`},
		{"bare OpenAI name", map[string]string{"OPENAI_API_KEY": "o"}, modelFlags{model: "gpt-4.1"}, "openai/gpt-4.1", "o", "", ""},
		{"bare o3", map[string]string{"OPENAI_API_KEY": "o"}, modelFlags{model: "o3"}, "openai/o3", "o", "", ""},
		{"bare Anthropic name", map[string]string{"ANTHROPIC_API_KEY": "a"}, modelFlags{model: "claude-sonnet-4-5"}, "anthropic/claude-sonnet-4-5", "a", "", ""},
		{"bare Gemini name", map[string]string{"GEMINI_API_KEY": "g"}, modelFlags{model: "gemini-2.5-pro"}, "gemini/gemini-2.5-pro", "g", "", ""},
		{"bare name without its key", map[string]string{"GEMINI_API_KEY": "g"}, modelFlags{model: "gpt-4.1"}, "", "", "", "openai/gpt-4.1 needs an API key: set OPENAI_API_KEY"},
		{"bare name on a compatible server", map[string]string{"OPENAI_API_KEY": "o"}, modelFlags{model: "claude-x", baseURL: "http://h/v1"}, "openai/claude-x", "", "http://h/v1", ""},
		{"ollama name needs its prefix", map[string]string{}, modelFlags{model: "llama3.2"}, "", "", "", "ollama"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return tt.env[k] })
			s, err := a.resolveModel(t.Context(), tt.flags)
			if testenv.WantError(t, err, tt.wantErr) {
				return
			}
			if s.String() != tt.want || s.apiKey != tt.wantKey || s.baseURL != tt.wantURL {
				t.Fatalf("got %s key %q url %q", s, s.apiKey, s.baseURL)
			}
		})
	}
}

// fakeOllama answers /api/tags and /api/show like an Ollama server with the given models, of
// which the tool-capable ones say so.
func fakeOllama(t *testing.T, models []string, withTools map[string]bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			var list []map[string]string
			for _, m := range models {
				list = append(list, map[string]string{"name": m})
			}
			json.NewEncoder(w).Encode(map[string]any{"models": list})
		case "/api/show":
			var req struct{ Model string }
			json.NewDecoder(r.Body).Decode(&req)
			caps := []string{"completion"}
			if withTools[req.Model] {
				caps = append(caps, "tools")
			}
			json.NewEncoder(w).Encode(map[string]any{"capabilities": caps})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestResolveModelOllama(t *testing.T) {
	resolve := func(env map[string]string) (modelSpec, error) {
		a := newApp(strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return env[k] })
		return a.resolveModel(t.Context(), modelFlags{})
	}
	srv := fakeOllama(t, []string{"gemma3:1b", "qwen3:4b", "llama3.2:latest"}, map[string]bool{"qwen3:4b": true, "llama3.2:latest": true})
	s, err := resolve(map[string]string{"OLLAMA_HOST": srv.URL})
	if err != nil || s.String() != "ollama/qwen3:4b" || s.baseURL != srv.URL {
		t.Fatalf("got %s at %s, %v; want the first tool-capable model", s, s.baseURL, err)
	}
	srv = fakeOllama(t, []string{"gemma3:1b"}, nil)
	if s, err := resolve(map[string]string{"OLLAMA_HOST": strings.TrimPrefix(srv.URL, "http://")}); err != nil || s.name != "gemma3:1b" {
		t.Fatalf("got %s, %v; want the only model", s, err)
	}
	srv = fakeOllama(t, nil, nil)
	_, err = resolve(map[string]string{"OLLAMA_HOST": srv.URL})
	var cfg configError
	if !errors.As(err, &cfg) || !strings.Contains(err.Error(), "has no models: run ollama pull llama3.2") {
		t.Fatalf("an empty Ollama: %v", err)
	}
}

// TestNewModel builds a model of each provider (no request is sent).
func TestNewModel(t *testing.T) {
	a := newApp(strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
	for _, s := range []modelSpec{
		{provider: "openai", name: "gpt-4.1-mini", apiKey: "k"},
		{provider: "openai", name: "Qwen/Qwen3-8B", baseURL: "http://127.0.0.1:8000/v1"},
		{provider: "anthropic", name: "claude-haiku-4-5", apiKey: "k"},
		{provider: "gemini", name: "gemini-2.5-flash", apiKey: "k"},
		{provider: "ollama", name: "llama3.2", baseURL: "http://127.0.0.1:11434"},
	} {
		m, err := a.newModel(t.Context(), s)
		if err != nil || m == nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	if _, err := a.newModel(t.Context(), modelSpec{provider: "mistral", name: "x"}); err == nil {
		t.Error("an unknown provider built a model")
	}
}

// TestModelAliases: the configuration file's aliases stand for models, and bad ones are refused
// with the file's name.
func TestModelAliases(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"model": "fast", "aliases": {"fast": "gpt-4.1-mini", "smart": "anthropic/claude-opus-4-5", "local": "ollama/qwen3"}}`)
	env := map[string]string{"WIELD_CONFIG": good, "OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a"}
	for _, tt := range []struct{ flag, want string }{
		{"", "openai/gpt-4.1-mini"}, {"smart", "anthropic/claude-opus-4-5"}, {"local", "ollama/qwen3"}, {"gpt-5", "openai/gpt-5"},
	} {
		a := newApp(strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return env[k] })
		s, err := a.resolveModel(t.Context(), modelFlags{model: tt.flag})
		if err != nil || s.String() != tt.want {
			t.Errorf("-m %q: %v %v, want %s", tt.flag, s, err, tt.want)
		}
		if tt.flag == "smart" && !strings.Contains(s.why, "alias") {
			t.Errorf("why %q does not say it was an alias", s.why)
		}
	}
	for body, want := range map[string]string{
		`{"aliases": {"a/b": "gpt-5"}}`:              `"a/b" is not a name`,
		`{"aliases": {"openai": "gpt-5"}}`:           `"openai" is a provider's name`,
		`{"aliases": {"x": ""}}`:                     "aliases.x names no model",
		`{"aliases": {"x": "y", "y": "gpt-5"}}`:      "another alias",
		`{"aliases": {"x": "gpt-5"}, "aliasez": {}}`: "unknown field",
	} {
		p := write("bad.json", body)
		a := newApp(strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return map[string]string{"WIELD_CONFIG": p}[k] })
		_, err := a.resolveModel(t.Context(), modelFlags{model: "x"})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want %q and the file's name", body, err, want)
		}
	}
}
