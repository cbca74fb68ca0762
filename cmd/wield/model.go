package main

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	ollamaapi "github.com/ollama/ollama/api"
	ollamamodel "github.com/ollama/ollama/types/model"
	oaioption "github.com/openai/openai-go/v3/option"
	"github.com/spf13/cobra"

	"github.com/wield-ai/wield/chat"
	transport "github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/anthropic"
	"github.com/wield-ai/wield/provider/gemini"
	"github.com/wield-ai/wield/provider/ollama"
	"github.com/wield-ai/wield/provider/openai"
)

// modelFlags choose the model.
type modelFlags struct {
	model   string
	baseURL string
	apiKey  string
}

func (a *app) registerModelFlags(cmd *cobra.Command, f *modelFlags) {
	fl := cmd.Flags()
	fl.StringVarP(&f.model, "model", "m", "", "the model, as `PROVIDER/NAME`, a model name such as gpt-4.1 or claude-sonnet-4-5, or an alias of the configuration file (default: $WIELD_MODEL, the configuration file, or from the API keys in the environment)")
	fl.StringVar(&f.baseURL, "base-url", "", "`URL` of an OpenAI-compatible server, version path included (e.g. http://127.0.0.1:8000/v1)")
	fl.StringVar(&f.apiKey, "api-key", "", "API `KEY` for --base-url's server (default: $WIELD_API_KEY; keys of the providers' own variables go only to their own hosts)")
	cmd.RegisterFlagCompletionFunc("model", cobra.CompletionFunc(func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return a.completeModels(cmd.Context(), *f, toComplete)
	}))
}

// modelSpec is a resolved choice of model.
type modelSpec struct {
	provider string // openai, anthropic, gemini or ollama
	name     string
	baseURL  string // empty: the provider's default
	apiKey   string // empty: none (the transport strips any key the SDK finds in the environment)
	// why says how the model was chosen, baseFrom where the base URL came from and keyFrom the
	// key, for messages ("--model", "$OPENAI_API_KEY", "the configuration file").
	why, baseFrom, keyFrom string
	// keyVar is the environment variable the key came from, for hints about rejected keys;
	// keyWhy says why that one.
	keyVar, keyWhy string
	// picked says the model was chosen automatically (the first tool-capable Ollama model).
	picked bool
}

func (s modelSpec) String() string { return s.provider + "/" + s.name }

// url is the base URL the model is reached at, safe to print.
func (s modelSpec) url() string {
	if s.baseURL != "" {
		return redactURL(s.baseURL)
	}
	return providerNamed(s.provider).defaultURL
}

// provider describes one kind of model wield can talk to.
type provider struct {
	name         string
	defaultModel string
	keyVars      []string // environment variables holding an API key, in order of preference
	// baseVar is the environment variable the provider's SDK reads its address from.
	baseVar string
	// defaultURL is the provider's own API; hosts are the hosts its keys may go to.
	defaultURL string
	hosts      []string
}

// providers are the model providers in the order their API keys are looked for.
var providers = []*provider{
	{name: "openai", defaultModel: "gpt-4.1-mini", keyVars: []string{"OPENAI_API_KEY"}, baseVar: "OPENAI_BASE_URL",
		defaultURL: "https://api.openai.com/v1", hosts: []string{"api.openai.com"}},
	{name: "anthropic", defaultModel: "claude-haiku-4-5", keyVars: []string{"ANTHROPIC_API_KEY"}, baseVar: "ANTHROPIC_BASE_URL",
		defaultURL: "https://api.anthropic.com", hosts: []string{"api.anthropic.com"}},
	{name: "gemini", defaultModel: "gemini-2.5-flash", keyVars: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, baseVar: "GOOGLE_GEMINI_BASE_URL",
		defaultURL: "https://generativelanguage.googleapis.com", hosts: []string{"generativelanguage.googleapis.com"}},
	{name: "ollama", defaultModel: "llama3.2", baseVar: "OLLAMA_HOST", defaultURL: defaultOllama},
}

// modelPrefixes tell a provider's models by their names, so that a bare -m gpt-4.1 finds OpenAI.
// Ollama's names (llama3.2, qwen3) are any local file's, so they always need ollama/.
var modelPrefixes = []struct{ prefix, provider string }{
	{"gpt-", "openai"}, {"chatgpt-", "openai"}, {"o1-", "openai"}, {"o3-", "openai"}, {"o4-", "openai"},
	{"claude-", "anthropic"},
	{"gemini-", "gemini"},
}

// providerOf is the provider whose models are named like name, or nil.
func providerOf(name string) *provider {
	lower := strings.ToLower(name)
	for _, m := range modelPrefixes {
		if strings.HasPrefix(lower, m.prefix) || lower == strings.TrimSuffix(m.prefix, "-") {
			return providerNamed(m.provider)
		}
	}
	return nil
}

func providerNamed(name string) *provider {
	i := slices.IndexFunc(providers, func(p *provider) bool { return p.name == name })
	if i < 0 {
		return nil
	}
	return providers[i]
}

// ownHost reports whether rawURL is the provider's own API over HTTPS on the default port, or
// exactly the address (scheme, host and port) its SDK's environment variable gives: the places its
// environment key may go. A key never travels in clear text, nor to another port of its host,
// unless the user named that address for the provider.
func (a *app) ownHost(p *provider, rawURL string) bool {
	if rawURL == "" {
		return true
	}
	o := originOf(rawURL)
	return o != "" && slices.Contains(a.keyOrigins(p), o)
}

// keyOrigins are the origins (scheme://host:port) a provider's environment key may go to: its own
// hosts over HTTPS on the default port, and the address its SDK's environment variable names.
func (a *app) keyOrigins(p *provider) []string {
	var out []string
	for _, h := range p.hosts {
		out = append(out, "https://"+h+":443")
	}
	if p.name != "ollama" {
		if o := originOf(a.getenv(p.baseVar)); o != "" {
			out = append(out, o)
		}
	}
	return out
}

// originOf is rawURL's scheme, host and port (the scheme's default when none is given), lower
// case, or "" when it is not an absolute http(s) URL.
func originOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return urlOrigin(u)
}

func urlOrigin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	if (scheme != "http" && scheme != "https") || u.Hostname() == "" {
		return ""
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + effectivePort(u)
}

// effectivePort is u's port, or its scheme's default.
func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
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

// resolveModel picks the model: --model, $WIELD_MODEL or the configuration file's model, else
// --base-url's server, else the first provider with an API key in the environment, else the
// configured Ollama, $OLLAMA_HOST or a local Ollama.
func (a *app) resolveModel(ctx context.Context, f modelFlags) (modelSpec, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return modelSpec{}, err
	}
	model, why := f.model, "--model"
	if model == "" {
		model, why = a.getenv("WIELD_MODEL"), "$WIELD_MODEL"
	}
	if model == "" && cfg.Model != "" {
		model, why = cfg.Model, "the configuration file"
	}
	if model != "" {
		return a.parseModel(cfg, model, f, why)
	}
	if f.baseURL != "" {
		return modelSpec{}, usagef("--base-url needs --model NAME: the name of a model the server at %s serves", redactURL(f.baseURL))
	}
	for _, p := range providers {
		for _, v := range p.keyVars {
			if a.getenv(v) == "" {
				continue
			}
			s := modelSpec{provider: p.name, name: p.defaultModel, why: "$" + v}
			if err := a.settle(cfg, p, &s, f); err != nil {
				return modelSpec{}, err
			}
			return s, nil
		}
	}
	s := modelSpec{provider: "ollama", picked: true}
	if err := a.settle(cfg, providerNamed("ollama"), &s, f); err != nil {
		return modelSpec{}, err
	}
	name, err := a.ollamaModel(ctx, s.baseURL)
	if err != nil {
		if s.baseFrom != "" {
			return modelSpec{}, configError{fmt.Sprintf("wield: %s is %s, but %v", strings.TrimPrefix(s.baseFrom, "$"), redactURL(s.baseURL), err)}
		}
		return modelSpec{}, configError{noModelMessage}
	}
	s.name = name
	s.why = "as the first model of the Ollama server that can call tools"
	return s, nil
}

// parseModel reads provider/name, or a bare provider (its default model), or, with a base URL,
// any name an OpenAI-compatible server knows.
func (a *app) parseModel(cfg *loadedConfig, model string, f modelFlags, why string) (modelSpec, error) {
	if target, ok := cfg.alias(model); ok {
		why = fmt.Sprintf("%s (%s, an alias of the configuration file)", why, model)
		model = target
	}
	prefix, name, hasSlash := strings.Cut(model, "/")
	p := providerNamed(prefix)
	compatible := f.baseURL != "" || cfg.provider("openai").BaseURL != ""
	switch {
	case p == nil && compatible:
		p, name = providerNamed("openai"), model
	case p == nil && !hasSlash && providerOf(model) != nil:
		p, name = providerOf(model), model
	case p == nil:
		return modelSpec{}, usagef("%s %q: use PROVIDER/NAME with a provider of %s, a model name of theirs (gpt-…, o3…, claude-…, gemini-…), an alias of the configuration file's \"aliases\", or --base-url for an OpenAI-compatible server", why, model, strings.Join(providerNames(), ", "))
	case hasSlash && name == "":
		return modelSpec{}, usagef("%s %q names no model after the provider", why, model)
	case !hasSlash:
		name = p.defaultModel
	}
	if f.baseURL != "" && p.name != "openai" && p.name != "ollama" {
		return modelSpec{}, usagef("--base-url is for OpenAI-compatible servers; use it with --model openai/NAME or a bare model name")
	}
	s := modelSpec{provider: p.name, name: name, why: why}
	if err := a.settle(cfg, p, &s, f); err != nil {
		return modelSpec{}, err
	}
	return s, nil
}

// settle fills in the base URL and the key of s. The base URL is --base-url, else the
// configuration file's, else the provider's environment variable, else its default. The key is
// --api-key, else the variable the configuration file names; with a base URL elsewhere than the
// provider's own host, $WIELD_API_KEY; the provider's own variables (OPENAI_API_KEY, ...) only on
// its own host. So a key is never sent to a server it was not meant for.
func (a *app) settle(cfg *loadedConfig, p *provider, s *modelSpec, f modelFlags) error {
	pc := cfg.provider(p.name)
	switch {
	case f.baseURL != "":
		s.baseURL, s.baseFrom = f.baseURL, "--base-url"
	case pc.BaseURL != "":
		s.baseURL, s.baseFrom = pc.BaseURL, "the configuration file"
	case a.getenv(p.baseVar) != "":
		s.baseURL, s.baseFrom = a.getenv(p.baseVar), "$"+p.baseVar
	}
	if p.name == "ollama" {
		s.baseURL = ollamaURL(cmp.Or(s.baseURL, defaultOllama))
		return nil
	}
	if s.baseURL != "" {
		if u, err := url.Parse(s.baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("%s %q is not an http(s) URL", cmp.Or(s.baseFrom, "the base URL"), redactURL(s.baseURL))
		}
	}
	switch {
	case f.apiKey != "":
		s.apiKey, s.keyFrom, s.keyWhy = f.apiKey, "--api-key", "flag"
	case pc.APIKeyEnv != "":
		s.apiKey, s.keyFrom, s.keyVar, s.keyWhy = a.getenv(pc.APIKeyEnv), "$"+pc.APIKeyEnv, pc.APIKeyEnv, "the configuration file names it"
		if s.apiKey == "" {
			return configError{fmt.Sprintf("wield: the configuration file takes %s's key from $%s, which is not set", p.name, pc.APIKeyEnv)}
		}
	case a.getenv("WIELD_API_KEY") != "" && !a.ownHost(p, s.baseURL):
		s.apiKey, s.keyFrom, s.keyVar, s.keyWhy = a.getenv("WIELD_API_KEY"), "$WIELD_API_KEY", "WIELD_API_KEY", "environment, for a server other than "+p.name+"'s"
	case a.ownHost(p, s.baseURL):
		for _, v := range p.keyVars {
			if key := a.getenv(v); key != "" {
				s.apiKey, s.keyFrom, s.keyVar, s.keyWhy = key, "$"+v, v, "environment"
				break
			}
		}
		if s.apiKey == "" {
			return configError{fmt.Sprintf("wield: %s needs an API key: set %s", s, strings.Join(p.keyVars, " or "))}
		}
	}
	return nil
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
func (a *app) ollamaModel(ctx context.Context, host string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := a.ollamaClient(host)
	if err != nil {
		return "", err
	}
	list, err := c.List(ctx)
	if err != nil {
		return "", fmt.Errorf("no Ollama server answers there: %w", err)
	}
	if len(list.Models) == 0 {
		return "", fmt.Errorf("the Ollama server there has no models: run ollama pull llama3.2")
	}
	for _, m := range list.Models {
		show, err := c.Show(ctx, &ollamaapi.ShowRequest{Model: m.Name})
		if err == nil && slices.Contains(show.Capabilities, ollamamodel.CapabilityTools) {
			return m.Name, nil
		}
	}
	return list.Models[0].Name, nil
}

// ollamaClient is Ollama's own client for the server at host.
func (a *app) ollamaClient(host string) (*ollamaapi.Client, error) {
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("the Ollama address %s is not a URL", redactURL(host))
	}
	return ollamaapi.NewClient(u, a.httpClient(modelSpec{provider: "ollama", baseURL: host})), nil
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
	hc := a.httpClient(s)
	switch s.provider {
	case "openai":
		// Chat Completions, which OpenAI-compatible servers implement too.
		cfg := openai.Config{Model: s.name, APIKey: s.apiKey, BaseURL: s.baseURL, Transport: transport.Transport{HTTPClient: hc}}
		if s.apiKey == "" {
			// The SDK would read $OPENAI_API_KEY: send no key rather than one meant for OpenAI.
			cfg.RequestOptions = []oaioption.RequestOption{oaioption.WithAPIKey(""), oaioption.WithAdminAPIKey("")}
		}
		m, err = openai.New(cfg)
	case "anthropic":
		m, err = anthropic.New(anthropic.Config{Model: s.name, APIKey: s.apiKey, BaseURL: s.baseURL, Transport: transport.Transport{HTTPClient: hc}})
	case "gemini":
		m, err = gemini.New(ctx, gemini.Config{Model: s.name, APIKey: s.apiKey, BaseURL: s.baseURL, Transport: transport.Transport{HTTPClient: hc}})
	case "ollama":
		m, err = ollama.New(ollama.Config{Model: s.name, BaseURL: s.baseURL, Transport: transport.Transport{HTTPClient: hc}})
	default:
		return nil, fmt.Errorf("unknown provider %q", s.provider)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s", s, redactSecrets(err.Error(), s))
	}
	return m, nil
}
