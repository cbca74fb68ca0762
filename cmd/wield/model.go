package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider/anthropic"
	"github.com/wield-ai/wield/provider/gemini"
	"github.com/wield-ai/wield/provider/ollama"
	"github.com/wield-ai/wield/provider/openai"
)

// modelFlags choose the model.
type modelFlags struct {
	model   string
	baseURL string
}

// modelSpec is a resolved choice of model.
type modelSpec struct {
	provider string // openai, anthropic, gemini or ollama
	name     string
	baseURL  string // empty: the provider's default (or its environment variable)
	apiKey   string // empty: the provider reads its environment variable
	// why says how the model was chosen, for messages.
	why string
}

func (s modelSpec) String() string { return s.provider + "/" + s.name }

// provider describes one kind of model wield can talk to.
type provider struct {
	name         string
	defaultModel string
	keyVars      []string // environment variables holding an API key, in order of preference
}

// providers are the model providers in the order their API keys are looked for.
var providers = []*provider{
	{name: "openai", defaultModel: "gpt-4.1-mini", keyVars: []string{"OPENAI_API_KEY"}},
	{name: "anthropic", defaultModel: "claude-haiku-4-5", keyVars: []string{"ANTHROPIC_API_KEY"}},
	{name: "gemini", defaultModel: "gemini-2.5-flash", keyVars: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}},
	{name: "ollama", defaultModel: "llama3.2"},
}

func providerNamed(name string) *provider {
	i := slices.IndexFunc(providers, func(p *provider) bool { return p.name == name })
	if i < 0 {
		return nil
	}
	return providers[i]
}

// defaultOllama is where a local Ollama listens unless OLLAMA_HOST says otherwise.
const defaultOllama = "http://127.0.0.1:11434"

// noModelMessage says exactly what to set when no model is configured.
const noModelMessage = `wield: no model configured. Set one of these environment variables:
  OPENAI_API_KEY      OpenAI (default model openai/gpt-4.1-mini)
  ANTHROPIC_API_KEY   Anthropic (default model anthropic/claude-haiku-4-5)
  GEMINI_API_KEY      Google Gemini (default model gemini/gemini-2.5-flash)
  OLLAMA_HOST         a running Ollama server, e.g. http://127.0.0.1:11434
or start Ollama locally (https://ollama.com, then: ollama pull llama3.2), or pass
  --model PROVIDER/NAME           e.g. --model anthropic/claude-sonnet-4-5 (or set WIELD_MODEL)
  --base-url URL --model NAME     for an OpenAI-compatible server (vLLM, llama.cpp, LM Studio, ...)`

// resolveModel picks the model: --model (or $WIELD_MODEL), else --base-url's server, else the
// first provider with an API key in the environment, else $OLLAMA_HOST, else a local Ollama.
func (a *app) resolveModel(ctx context.Context, f modelFlags) (modelSpec, error) {
	model, why := f.model, "--model"
	if model == "" {
		model, why = a.getenv("WIELD_MODEL"), "$WIELD_MODEL"
	}
	if model != "" {
		return a.parseModel(model, f.baseURL, why)
	}
	if f.baseURL != "" {
		return modelSpec{}, usagef("--base-url needs --model NAME: the name of a model the server at %s serves", f.baseURL)
	}
	for _, p := range providers {
		for _, v := range p.keyVars {
			if key := a.getenv(v); key != "" {
				return modelSpec{provider: p.name, name: p.defaultModel, apiKey: key, why: "$" + v}, nil
			}
		}
	}
	host, why := a.getenv("OLLAMA_HOST"), "$OLLAMA_HOST"
	if host == "" {
		host, why = defaultOllama, "a local Ollama"
	}
	host = ollamaURL(host)
	name, err := ollamaModel(ctx, host)
	if err != nil {
		if why == "$OLLAMA_HOST" {
			return modelSpec{}, configError{fmt.Sprintf("wield: OLLAMA_HOST is %s, but %v", host, err)}
		}
		return modelSpec{}, configError{noModelMessage}
	}
	return modelSpec{provider: "ollama", name: name, baseURL: host, why: why}, nil
}

// parseModel reads provider/name, or a bare provider (its default model), or, with a base URL,
// any name an OpenAI-compatible server knows.
func (a *app) parseModel(model, baseURL, why string) (modelSpec, error) {
	prefix, name, hasSlash := strings.Cut(model, "/")
	p := providerNamed(prefix)
	switch {
	case p == nil && baseURL != "":
		return modelSpec{provider: "openai", name: model, baseURL: baseURL, apiKey: a.getenv("OPENAI_API_KEY"), why: why}, nil
	case p == nil:
		names := make([]string, len(providers))
		for i, p := range providers {
			names[i] = p.name
		}
		return modelSpec{}, usagef("%s %q: use PROVIDER/NAME with a provider of %s (or --base-url for an OpenAI-compatible server)", why, model, strings.Join(names, ", "))
	case hasSlash && name == "":
		return modelSpec{}, usagef("%s %q names no model after the provider", why, model)
	case !hasSlash:
		name = p.defaultModel
	}
	s := modelSpec{provider: p.name, name: name, baseURL: baseURL, why: why}
	for _, v := range p.keyVars {
		if key := a.getenv(v); key != "" {
			s.apiKey = key
			break
		}
	}
	switch {
	case p.name == "ollama":
		if s.baseURL == "" {
			s.baseURL = ollamaURL(cmp.Or(a.getenv("OLLAMA_HOST"), defaultOllama))
		}
	case baseURL != "" && p.name != "openai":
		return modelSpec{}, usagef("--base-url is for OpenAI-compatible servers; use it with --model openai/NAME or a bare model name")
	case s.apiKey == "" && baseURL == "":
		return modelSpec{}, configError{fmt.Sprintf("wield: %s needs an API key: set %s", s, strings.Join(p.keyVars, " or "))}
	}
	return s, nil
}

// ollamaURL turns an OLLAMA_HOST value (host, host:port or URL) into a URL.
func ollamaURL(host string) string {
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	return strings.TrimRight(host, "/")
}

// ollamaModel asks the Ollama server at host for a model to use: the first one installed that
// can call tools, else the first one installed.
func ollamaModel(ctx context.Context, host string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var tags struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := getJSON(ctx, http.MethodGet, host+"/api/tags", nil, &tags); err != nil {
		return "", fmt.Errorf("no Ollama server answers there: %w", err)
	}
	if len(tags.Models) == 0 {
		return "", fmt.Errorf("the Ollama server there has no models: run ollama pull llama3.2")
	}
	for _, m := range tags.Models {
		var show struct {
			Capabilities []string `json:"capabilities"`
		}
		body := strings.NewReader(`{"model":` + jsonString(m.Name) + `}`)
		if getJSON(ctx, http.MethodPost, host+"/api/show", body, &show) == nil && slices.Contains(show.Capabilities, "tools") {
			return m.Name, nil
		}
	}
	return tags.Models[0].Name, nil
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func getJSON(ctx context.Context, method, url string, body *strings.Reader, v any) error {
	var req *http.Request
	var err error
	if body != nil {
		req, err = http.NewRequestWithContext(ctx, method, url, body)
	} else {
		req, err = http.NewRequestWithContext(ctx, method, url, nil)
	}
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", method, url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// newModel builds the model s names.
func (a *app) newModel(ctx context.Context, s modelSpec) (chat.Model, error) {
	if a.modelOverride != nil {
		return a.modelOverride(s)
	}
	var (
		m   chat.Model
		err error
	)
	switch s.provider {
	case "openai":
		// Chat Completions, which OpenAI-compatible servers implement too.
		m, err = openai.New(openai.Config{Model: s.name, APIKey: s.apiKey, BaseURL: s.baseURL})
	case "anthropic":
		m, err = anthropic.New(anthropic.Config{Model: s.name, APIKey: s.apiKey, BaseURL: s.baseURL})
	case "gemini":
		m, err = gemini.New(ctx, gemini.Config{Model: s.name, APIKey: s.apiKey, BaseURL: s.baseURL})
	case "ollama":
		m, err = ollama.New(ollama.Config{Model: s.name, BaseURL: s.baseURL})
	default:
		return nil, fmt.Errorf("unknown provider %q", s.provider)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s, err)
	}
	return m, nil
}
