package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	anthropicsdk "github.com/anthropics/anthropic-sdk-go"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/option"
	ollamaapi "github.com/ollama/ollama/api"
	oai "github.com/openai/openai-go/v3"
	oaioption "github.com/openai/openai-go/v3/option"
	"github.com/spf13/cobra"
	"google.golang.org/genai"

	"github.com/wield-ai/wield/chat"
)

func (a *app) modelsCommand() *cobra.Command {
	var (
		flags  modelFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "models [PROVIDER]",
		Short: "List the models a provider serves",
		Long: `models asks a provider which models it serves and prints them one per line, as --model takes
them: the provider named (openai, anthropic, gemini or ollama), else the provider of the model
chat would use (see wield config). With --base-url it lists an OpenAI-compatible server's models
(GET /models).`,
		Example: `  wield models
  wield models anthropic
  wield models --base-url http://127.0.0.1:8000/v1
  wield models ollama --json`,
		Args: rangeArgs(0, 1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return providerNames(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var (
				spec modelSpec
				err  error
			)
			if len(args) == 1 {
				if providerNamed(args[0]) == nil {
					return usagef("unknown provider %q: use one of %s", args[0], strings.Join(providerNames(), ", "))
				}
				if flags.model != "" {
					return usagef("name the provider either as an argument or with --model, not both")
				}
				flags.model = args[0]
			}
			if spec, err = a.resolveModelForListing(ctx, flags); err != nil {
				return err
			}
			models, err := a.listModels(ctx, spec)
			if err != nil && spec.picked && ctx.Err() == nil {
				// No model configured, and no local Ollama answers: what chat says then.
				return configError{noModelMessage}
			}
			if err != nil {
				return a.explain(err, spec)
			}
			if asJSON {
				type entry struct {
					Model    string `json:"model"`
					Provider string `json:"provider"`
					Name     string `json:"name"`
				}
				out := make([]entry, len(models))
				for i, m := range models {
					out[i] = entry{spec.provider + "/" + m, spec.provider, m}
				}
				return writeJSON(a.stdout, out)
			}
			if len(models) == 0 {
				if a.stderrTTY {
					fmt.Fprintf(a.stderr, "%s at %s serves no models\n", spec.provider, spec.url())
				}
				return nil
			}
			for _, m := range models {
				fmt.Fprintln(a.stdout, safeLine(spec.provider+"/"+m))
			}
			return nil
		},
	}
	a.registerModelFlags(cmd, &flags)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of {model, provider, name}")
	return cmd
}

// resolveModelForListing resolves the model flags like chat does, except that an Ollama server
// is listed without picking one of its models first.
func (a *app) resolveModelForListing(ctx context.Context, f modelFlags) (modelSpec, error) {
	if f.model == "" && f.baseURL != "" {
		f.model = "openai"
	}
	if f.model == "" && a.getenv("WIELD_MODEL") == "" {
		cfg, err := a.loadConfig()
		if err != nil {
			return modelSpec{}, err
		}
		if cfg.Model == "" && !slices.ContainsFunc(providers, func(p *provider) bool {
			return slices.ContainsFunc(p.keyVars, func(v string) bool { return a.getenv(v) != "" })
		}) {
			f.model = "ollama"
			s, err := a.resolveModel(ctx, f)
			// Nothing configured at all: a local Ollama is only a guess.
			s.picked = a.getenv("OLLAMA_HOST") == "" && cfg.provider("ollama").BaseURL == ""
			return s, err
		}
	}
	return a.resolveModel(ctx, f)
}

// listTimeout bounds a listing, which is one or a few small requests.
const listTimeout = 30 * time.Second

// listModels asks the provider of s for its models, with its SDK's listing call, and returns
// their names sorted.
func (a *app) listModels(ctx context.Context, s modelSpec) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	hc := a.httpClient(s)
	var names []string
	switch s.provider {
	case "openai":
		opts := []oaioption.RequestOption{oaioption.WithHTTPClient(hc), oaioption.WithAPIKey(s.apiKey), oaioption.WithAdminAPIKey(""),
			oaioption.WithBaseURL(cmp.Or(s.baseURL, providerNamed("openai").defaultURL))}
		c := oai.NewClient(opts...)
		pages := c.Models.ListAutoPaging(ctx)
		for pages.Next() {
			names = append(names, pages.Current().ID)
		}
		if err := pages.Err(); err != nil {
			return nil, sdkError("openai", err)
		}
	case "anthropic":
		opts := []anthropicoption.RequestOption{anthropicoption.WithHTTPClient(hc), anthropicoption.WithAPIKey(s.apiKey)}
		if s.baseURL != "" {
			opts = append(opts, anthropicoption.WithBaseURL(s.baseURL))
		}
		c := anthropicsdk.NewClient(opts...)
		pages := c.Models.ListAutoPaging(ctx, anthropicsdk.ModelListParams{})
		for pages.Next() {
			names = append(names, pages.Current().ID)
		}
		if err := pages.Err(); err != nil {
			return nil, sdkError("anthropic", err)
		}
	case "gemini":
		cfg := &genai.ClientConfig{APIKey: s.apiKey, Backend: genai.BackendGeminiAPI, HTTPClient: hc}
		if s.baseURL != "" {
			cfg.HTTPOptions.BaseURL = s.baseURL
		}
		c, err := genai.NewClient(ctx, cfg)
		if err != nil {
			return nil, err
		}
		for m, err := range c.Models.All(ctx) {
			if err != nil {
				return nil, sdkError("gemini", err)
			}
			// Only the models that chat: embedding and image models cannot take a chat.
			if len(m.SupportedActions) > 0 && !slices.Contains(m.SupportedActions, "generateContent") {
				continue
			}
			names = append(names, strings.TrimPrefix(m.Name, "models/"))
		}
	case "ollama":
		c, err := a.ollamaClient(s.baseURL)
		if err != nil {
			return nil, err
		}
		list, err := c.List(ctx)
		if err != nil {
			return nil, sdkError("ollama", err)
		}
		for _, m := range list.Models {
			names = append(names, m.Name)
		}
	default:
		return nil, fmt.Errorf("unknown provider %q", s.provider)
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// sdkError turns an SDK's HTTP error into a *chat.ProviderError, as the providers' models
// return them, so that one explanation serves both.
func sdkError(provider string, err error) error {
	var (
		oe *oai.Error
		ae *anthropicsdk.Error
		ge genai.APIError
		gp *genai.APIError
		se ollamaapi.StatusError
	)
	pe := &chat.ProviderError{Provider: provider, Err: err}
	switch {
	case errors.As(err, &oe):
		pe.StatusCode, pe.Message, pe.Code, pe.Type = oe.StatusCode, oe.Message, oe.Code, oe.Type
		if pe.Message == "" {
			pe.Message = messageOf(oe.RawJSON())
		}
	case errors.As(err, &ae):
		pe.StatusCode, pe.Message = ae.StatusCode, messageOf(ae.RawJSON())
	case errors.As(err, &ge):
		pe.StatusCode, pe.Message = ge.Code, ge.Message
	case errors.As(err, &gp):
		pe.StatusCode, pe.Message = gp.Code, gp.Message
	case errors.As(err, &se):
		pe.StatusCode, pe.Message = se.StatusCode, se.ErrorMessage
	default:
		return err
	}
	if pe.StatusCode == 0 {
		return err
	}
	if pe.Message == "" {
		pe.Message = http.StatusText(pe.StatusCode)
	}
	return pe
}

// messageOf finds the message of a JSON error body in the usual places.
func messageOf(raw string) string {
	var body struct {
		Message string `json:"message"`
		Detail  any    `json:"detail"`
		Error   any    `json:"error"`
	}
	if json.Unmarshal([]byte(raw), &body) != nil {
		return strings.TrimSpace(raw)
	}
	switch e := body.Error.(type) {
	case string:
		return e
	case map[string]any:
		if m, ok := e["message"].(string); ok {
			return m
		}
	}
	if body.Message != "" {
		return body.Message
	}
	if d, ok := body.Detail.(string); ok {
		return d
	}
	return strings.TrimSpace(raw)
}

// completeModels completes --model: the providers, then, after PROVIDER/, the models the
// provider serves (asked with a short timeout, since the shell waits).
func (a *app) completeModels(ctx context.Context, f modelFlags, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	prefix, _, hasSlash := strings.Cut(toComplete, "/")
	p := providerNamed(prefix)
	if !hasSlash || p == nil {
		var out []cobra.Completion
		for _, p := range providers {
			out = append(out, cobra.CompletionWithDesc(p.name+"/", "default "+p.name+"/"+p.defaultModel))
		}
		return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	f.model = p.name
	s, err := a.resolveModelForListing(ctx, f)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names, err := a.listModels(ctx, s)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	out := make([]cobra.Completion, len(names))
	for i, n := range names {
		out[i] = p.name + "/" + n
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
