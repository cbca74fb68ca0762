package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/internal/wire"
)

// Provider names OpenAI in [chat.Info], [chat.ProviderError] and [chat.Reasoning].
const Provider = "openai"

// DefaultBaseURL is the API root used when neither [Config.BaseURL] nor $OPENAI_BASE_URL is set.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a [ChatModel] or a [ResponsesModel]. The zero value reads the API key and
// base URL from the environment; a model name must come from Model or from each call's
// [chat.Options.Model].
type Config struct {
	// APIKey authenticates requests; empty reads $OPENAI_API_KEY. Local OpenAI-compatible
	// servers that need no key accept any value, or none.
	APIKey string
	// BaseURL is the API root, version path included: empty reads $OPENAI_BASE_URL, then uses
	// [DefaultBaseURL]. Request paths are appended to it ("chat/completions", "responses"), so an
	// OpenAI-compatible server is reached through its own root, for example
	// "http://localhost:8000/v1" (vLLM), "http://localhost:8080/v1" (llama.cpp),
	// "http://localhost:1234/v1" (LM Studio), "https://openrouter.ai/api/v1",
	// "https://api.groq.com/openai/v1" or "https://api.deepseek.com".
	BaseURL string
	// Model is the default model name; [chat.Options.Model] overrides it per call.
	Model string
	// Temperature is the default sampling temperature; nil leaves the API's default.
	Temperature *float64
	// MaxTokens is the default cap on generated tokens; zero leaves the API's default.
	MaxTokens int
	// Transport says how requests reach the API: HTTP client, retries, timeouts, size bound,
	// headers.
	provider.Transport
	// StrictTools sends tool definitions in strict mode, where the model's arguments always
	// match the schema. Strict mode accepts only closed objects whose properties are all
	// required, so schemas are rewritten: see the package documentation. The
	// [ExtraStrictTools] key overrides it per call.
	StrictTools bool
	// Store sets the request's store flag; nil sends nothing, leaving the API's default. For the
	// Responses API it says whether OpenAI keeps the response (true by default), which decides
	// how reasoning is sent back: see the package documentation. For Chat Completions it stores
	// the completion for evals and distillation. [ExtraStore] overrides it per call.
	Store *bool
	// EncryptedReasoning (Responses API) asks for reasoning items with their encrypted content
	// (include: ["reasoning.encrypted_content"]), which a later turn needs when responses are not
	// stored. nil means: ask exactly when Store is false. Set it to false for models that reject
	// the include (some non-reasoning models do).
	EncryptedReasoning *bool
	// MaxTokensField (Chat Completions) names the field MaxTokens is sent in:
	// "max_completion_tokens" or "max_tokens". Empty chooses max_completion_tokens for
	// api.openai.com, where reasoning models accept only it, and max_tokens for any other base
	// URL, since every OpenAI-compatible server knows that one.
	MaxTokensField string
	// DisableStreamUsage (Chat Completions) stops asking for the usage-only final chunk
	// (stream_options.include_usage), for servers that reject stream_options.
	DisableStreamUsage bool
	// ReasoningField (Chat Completions) says how the reasoning of earlier answers goes back to
	// the server, on their assistant messages. Empty sends it in the field it came in, which is
	// what the servers that return reasoning expect: reasoning_content for DeepSeek, vLLM,
	// llama.cpp, xAI, Moonshot and Z.ai, reasoning for Groq, reasoning_details (the entries as
	// they came, signatures and encrypted entries included) for OpenRouter. [FieldReasoningContent]
	// or [FieldReasoning] sends all of a message's reasoning text in that field,
	// [FieldReasoningDetails] sends details as they came and plain text as reasoning.text entries,
	// for a server that reads one field only; [FieldNone] never sends reasoning back.
	ReasoningField string
	// Azure, when set, makes the model talk to Azure OpenAI; BaseURL and APIKey must then be
	// empty. See [Azure].
	Azure *Azure
	// SDKOptions are passed to the SDK client after the options above, so they can add
	// middleware or override anything: the escape hatch to the SDK.
	SDKOptions []option.RequestOption
	// RequestOptions are passed after SDKOptions.
	//
	// Deprecated: use SDKOptions, the name every provider's Config gives its SDK's options.
	RequestOptions []option.RequestOption
}

// The keys of [chat.Options.Extra] this package reads. Values of the wrong type make the call
// fail with an error naming the key; other keys are ignored.
const (
	// ExtraBody holds a map[string]any of fields merged into the JSON request body, overriding
	// fields of the same name: settings of OpenAI-compatible servers (top_k,
	// chat_template_kwargs, …) or API fields this package does not map.
	ExtraBody = "openai.body"
	// ExtraParams holds a function that edits the SDK's request parameters last, after
	// everything else is set: func(*openai.ChatCompletionNewParams) for [ChatModel],
	// func(*responses.ResponseNewParams) for [ResponsesModel] (SDK types, from
	// github.com/openai/openai-go/v3 and its responses package).
	ExtraParams = "openai.params"
	// ExtraRequestOptions holds []option.RequestOption applied to this call only.
	ExtraRequestOptions = "openai.request_options"
	// ExtraReasoningEffort holds the reasoning effort string ("minimal", "low", "medium",
	// "high", …) for reasoning models: reasoning_effort, or reasoning.effort in the Responses
	// API.
	ExtraReasoningEffort = "openai.reasoning_effort"
	// ExtraReasoningSummary (Responses API) holds the reasoning summary setting ("auto",
	// "concise", "detailed"); summaries are returned as [chat.Reasoning] text.
	ExtraReasoningSummary = "openai.reasoning_summary"
	// ExtraStore holds a bool overriding [Config.Store] for this call.
	ExtraStore = "openai.store"
	// ExtraStrictTools holds a bool overriding [Config.StrictTools] for this call.
	ExtraStrictTools = "openai.strict_tools"
)

// ErrNoModel is returned when neither [Config.Model] nor [chat.Options.Model] names a model.
var ErrNoModel = errors.New("openai: no model: set Config.Model or Options.Model")

// ErrUnsupported is returned, wrapped with the setting's name, for a [chat.Options] setting the
// API cannot honour (for example N, Seed or Stop with the Responses API).
var ErrUnsupported = errors.New("unsupported setting")

// base holds what both models share.
type base struct {
	cfg     Config
	client  oai.Client
	baseURL string
}

// Client returns the SDK client, for the API features wield does not cover. It carries the
// model's retries, timeouts and headers.
func (b *base) Client() *oai.Client { return &b.client }

func newBase(cfg Config) (base, error) {
	var opts []option.RequestOption
	b := base{baseURL: cfg.BaseURL}
	if cfg.Azure != nil {
		var err error
		if opts, b.baseURL, err = azureOptions(&cfg); err != nil {
			return base{}, err
		}
	} else {
		if b.baseURL == "" {
			b.baseURL = os.Getenv("OPENAI_BASE_URL")
		}
		if b.baseURL == "" {
			b.baseURL = DefaultBaseURL
		}
		u, err := url.Parse(b.baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return base{}, fmt.Errorf("openai: base URL %q is not an http(s) URL", b.baseURL)
		}
		opts = append(opts, option.WithBaseURL(b.baseURL))
		if cfg.APIKey != "" {
			opts = append(opts, option.WithAPIKey(cfg.APIKey))
		}
	}
	b.cfg = cfg
	switch cfg.MaxTokensField {
	case "", "max_tokens", "max_completion_tokens":
	default:
		return base{}, fmt.Errorf("openai: MaxTokensField is %q, want max_tokens or max_completion_tokens", cfg.MaxTokensField)
	}
	switch cfg.ReasoningField {
	case "", FieldReasoningContent, FieldReasoning, FieldReasoningDetails, FieldNone:
	default:
		return base{}, fmt.Errorf("openai: ReasoningField is %q, want %s, %s, %s, %s or empty", cfg.ReasoningField,
			FieldReasoningContent, FieldReasoning, FieldReasoningDetails, FieldNone)
	}
	opts = append(opts, option.WithMiddleware(captureFailure))
	if n := cfg.MaxRetries; n != 0 {
		opts = append(opts, option.WithMaxRetries(max(n, 0)))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	// As middleware, the transport's bounds hold whatever HTTP client the SDK options choose.
	mw := wire.Middleware(cfg.Transport)
	opts = append(opts, option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		return mw(r, next)
	}))
	opts = append(opts, cfg.SDKOptions...)
	opts = append(opts, cfg.RequestOptions...)
	b.client = oai.NewClient(opts...)
	return b, nil
}

// AzureProvider names Azure OpenAI in [chat.Info], as the GenAI semantic conventions do.
const AzureProvider = "azure.ai.openai"

// info names the provider and the configured model (the deployment, on Azure).
func (b *base) info() chat.Info {
	if b.cfg.Azure != nil {
		return chat.Info{Provider: AzureProvider, Model: b.cfg.Model}
	}
	return chat.Info{Provider: Provider, Model: b.cfg.Model}
}

// isOpenAI reports whether the model talks to OpenAI's models: OpenAI's own API, or Azure
// OpenAI.
func (b *base) isOpenAI() bool {
	if b.cfg.Azure != nil {
		return true
	}
	u, err := url.Parse(b.baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// callSettings are the per-call settings both APIs share, resolved from the options and the
// configuration.
type callSettings struct {
	opts        *chat.Options
	model       string
	temperature *float64
	maxTokens   int
	strict      bool
	store       *bool
	effort      string
	body        map[string]any
	params      any
	reqOpts     []option.RequestOption
}

func (b *base) settings(p *chat.Prompt) (callSettings, error) {
	o, err := wire.Options("openai", p)
	if err != nil {
		return callSettings{}, err
	}
	s := callSettings{opts: o, model: o.Model, temperature: o.Temperature, maxTokens: o.MaxTokens,
		strict: b.cfg.StrictTools, store: b.cfg.Store}
	if s.model == "" {
		s.model = b.cfg.Model
	}
	if s.model == "" {
		return callSettings{}, ErrNoModel
	}
	if s.temperature == nil {
		s.temperature = b.cfg.Temperature
	}
	if s.maxTokens == 0 {
		s.maxTokens = b.cfg.MaxTokens
	}
	if s.maxTokens < 0 {
		return callSettings{}, fmt.Errorf("openai: MaxTokens is %d, want 0 or more", s.maxTokens)
	}
	if o.N < 0 {
		return callSettings{}, fmt.Errorf("openai: N is %d, want 0 or more", o.N)
	}
	r := &extraReader{o: o}
	if v, ok := readExtra[bool](r, ExtraStrictTools); ok {
		s.strict = v
	}
	if v, ok := readExtra[bool](r, ExtraStore); ok {
		s.store = &v
	}
	if v, ok := readExtra[string](r, ExtraReasoningEffort); ok {
		s.effort = v
	}
	if v, ok := readExtra[map[string]any](r, ExtraBody); ok {
		s.body = v
	}
	if v, ok := readExtra[[]option.RequestOption](r, ExtraRequestOptions); ok {
		s.reqOpts = v
	}
	if r.err != nil {
		return callSettings{}, r.err
	}
	s.params = o.Extra[ExtraParams]
	return s, nil
}

// extraReader reads typed values of Options.Extra, keeping the first type mismatch.
type extraReader struct {
	o   *chat.Options
	err error
}

// readExtra returns the value of key if it is set and has type T; a value of another type is
// recorded as the reader's error.
func readExtra[T any](r *extraReader, key string) (T, bool) {
	var zero T
	v, ok := r.o.Extra[key]
	if !ok || v == nil {
		return zero, false
	}
	t, ok := v.(T)
	if !ok {
		if r.err == nil {
			r.err = fmt.Errorf("openai: Options.Extra[%q] is a %T, want %T", key, v, zero)
		}
		return zero, false
	}
	return t, true
}

// paramsHook converts the ExtraParams value to the function type a model expects.
func paramsHook[P any](v any) (func(*P), error) {
	if v == nil {
		return nil, nil
	}
	f, ok := v.(func(*P))
	if !ok {
		var p *P
		return nil, fmt.Errorf("openai: Options.Extra[%q] is a %T, want func(%T)", ExtraParams, v, p)
	}
	return f, nil
}

// finishReason maps the APIs' finish reasons onto chat's; unknown values pass through.
func finishReason(s string) chat.FinishReason {
	switch s {
	case "stop", "end_turn":
		return chat.FinishStop
	case "length", "max_tokens", "max_output_tokens", "model_length":
		return chat.FinishLength
	case "tool_calls", "function_call":
		return chat.FinishToolCalls
	case "content_filter":
		return chat.FinishContentFilter
	}
	return chat.FinishReason(s)
}

// callOptions returns a call's request options: opts, with the SDK's retries off when the caller
// retries itself ([chat.WithoutRetries]).
func callOptions(ctx context.Context, opts []option.RequestOption) []option.RequestOption {
	if !chat.RetriesOff(ctx) {
		return opts
	}
	return append(opts[:len(opts):len(opts)], option.WithMaxRetries(0))
}
