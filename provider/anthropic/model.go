package anthropic

import (
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/internal/sameorigin"
	"github.com/wield-ai/wield/provider/internal/wire"
)

// Defaults used when neither [Config] nor the call's options say otherwise.
const (
	// DefaultModel is the model used when no model is configured.
	DefaultModel = sdk.ModelClaudeSonnet5_5
	// DefaultMaxTokens is the max_tokens sent when none is configured; see the package
	// documentation for why it is 4096.
	DefaultMaxTokens = 4096
)

// ProviderName is the provider's name in [chat.Info], [chat.Reasoning] and
// [chat.ProviderError].
const ProviderName = "anthropic"

// Config holds a [Model]'s defaults. The zero value is usable: it reads the API key and base URL
// from the environment and uses [DefaultModel] and [DefaultMaxTokens].
type Config struct {
	// APIKey authenticates requests; empty means the SDK's sources ($ANTHROPIC_API_KEY,
	// $ANTHROPIC_AUTH_TOKEN, profiles).
	APIKey string
	// BaseURL is the API's address; empty means $ANTHROPIC_BASE_URL or https://api.anthropic.com.
	BaseURL string
	// Model is the default model; empty means [DefaultModel].
	Model string
	// MaxTokens is the default max_tokens; zero means [DefaultMaxTokens].
	MaxTokens int
	// Temperature is the default temperature; nil leaves Anthropic's default.
	Temperature *float64
	// ThinkingBudget, when positive, turns on extended thinking with this budget in tokens
	// (Anthropic requires at least 1024). [ExtraThinkingBudget] overrides it per call.
	ThinkingBudget int
	// AdaptiveThinking turns on adaptive thinking, for models that support it. It is ignored when
	// a thinking budget is set.
	AdaptiveThinking bool
	// Cache places prompt-caching breakpoints on every request; the zero value places none, and
	// [CacheAuto] suits tool loops. [ExtraCache] overrides it per call.
	Cache Cache
	// ContextEditing, when set, has the API clear old tool results from requests that grow past
	// its trigger ([ContextEditing]); [ExtraContextEditing] overrides it per call.
	ContextEditing *ContextEditing
	// Compaction, when set, has the API compact requests that grow past its trigger
	// ([Compaction]); [ExtraCompaction] overrides it per call.
	Compaction *Compaction
	// Transport says how requests reach the API: HTTP client, retries, timeouts, size bound,
	// headers.
	provider.Transport
	// SDKOptions are passed to the SDK on every request, after wield's own: the escape hatch to
	// the SDK.
	SDKOptions []option.RequestOption
	// RequestOptions are passed after SDKOptions.
	//
	// Deprecated: use SDKOptions, the name every provider's Config gives its SDK's options.
	RequestOptions []option.RequestOption
}

// Model is a [chat.Model] for the Anthropic Messages API, on Anthropic's own API ([New]), Amazon
// Bedrock ([NewBedrock]) or Google Vertex AI ([NewVertex]). It is safe for concurrent use.
type Model struct {
	client sdk.Client
	cfg    Config
	// platform is the GenAI semantic-convention provider name reported by Info.
	platform string
}

var (
	_ chat.Model     = (*Model)(nil)
	_ chat.Describer = (*Model)(nil)
)

// New returns a Model for Anthropic's API with the given defaults.
func New(cfg Config) (*Model, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	var opts []option.RequestOption
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	opts = append(opts, option.WithHTTPClient(sameorigin.Client(cfg.HTTPClient)))
	return newModel(cfg, ProviderName, opts), nil
}

// check rejects settings no request could use.
func (cfg *Config) check() error {
	if cfg.MaxTokens < 0 {
		return fmt.Errorf("anthropic: MaxTokens %d is negative", cfg.MaxTokens)
	}
	if cfg.ThinkingBudget < 0 {
		return fmt.Errorf("anthropic: ThinkingBudget %d is negative", cfg.ThinkingBudget)
	}
	if err := cfg.ContextEditing.check(); err != nil {
		return err
	}
	if err := cfg.Compaction.check(); err != nil {
		return err
	}
	return cfg.Cache.check()
}

// newModel returns a Model whose SDK client gets the platform's options (credentials, endpoint
// rewriting), then the base URL, retries and the caller's own request options, so that these
// override what the platform sets.
func newModel(cfg Config, platform string, opts []option.RequestOption) *Model {
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if n := cfg.MaxRetries; n != 0 {
		opts = append(opts, option.WithMaxRetries(max(n, 0)))
	}
	// As middleware, the transport's bounds hold whatever HTTP client the platform or the SDK
	// options choose.
	mw := wire.Middleware(cfg.Transport)
	opts = append(opts, option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		return mw(r, next)
	}))
	opts = append(opts, cfg.SDKOptions...)
	opts = append(opts, cfg.RequestOptions...)
	return &Model{client: sdk.NewClient(opts...), cfg: cfg, platform: platform}
}

// Client returns the SDK client, for the API features wield does not cover. It carries the
// model's retries, timeouts and headers.
func (m *Model) Client() *sdk.Client { return &m.client }

// Info names the provider ("anthropic", "aws.bedrock" or "gcp.vertex_ai") and the configured
// model.
func (m *Model) Info() chat.Info {
	return chat.Info{Provider: m.platform, Model: m.cfg.Model}
}

// Call sends the prompt and returns the whole answer. Response.Raw is the SDK's *Message.
//
// When max_tokens is so large that the SDK refuses a non-streaming request (it expects such
// requests to outlast its ten-minute timeout), Call streams the answer and returns it whole.
func (m *Model) Call(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
	return wire.PromptCall(ctx, p, func() (*request, error) { return m.request(p) }, m.call)
}

func (m *Model) call(ctx context.Context, req *request) (*chat.Response, error) {
	opts := slices.Concat(m.client.Options, req.opts)
	if _, err := sdk.CalculateNonStreamingTimeout(int(req.params.MaxTokens), req.params.Model, opts); err != nil {
		return m.callStreaming(ctx, req)
	}
	msg, err := m.client.Messages.New(ctx, req.params, callOptions(ctx, req.opts)...)
	if err != nil {
		return nil, wrapError(ctx, err)
	}
	resp, err := fromMessage(msg)
	if err == nil {
		resp, err = req.reportEdits(resp, msg.RawJSON())
	}
	return req.restore(resp, err)
}

// callStreaming gets the whole answer through the streaming endpoint.
func (m *Model) callStreaming(ctx context.Context, req *request) (*chat.Response, error) {
	stream := m.client.Messages.NewStreaming(ctx, req.params, callOptions(ctx, req.opts)...)
	defer stream.Close()
	var msg sdk.Message
	var st streamState
	var delta string // the message_delta event, which reports context editing
	for stream.Next() {
		ev := stream.Current()
		if err := msg.Accumulate(ev); err != nil {
			return nil, fmt.Errorf("anthropic: malformed stream: %w", err)
		}
		if ev.Type == "message_delta" {
			delta = ev.RawJSON()
		}
		if _, err := st.event(&ev); err != nil {
			return nil, err
		}
	}
	if err := st.finish(ctx, stream.Err()); err != nil {
		return nil, err
	}
	if err := st.wholeCompaction(&msg); err != nil {
		return nil, err
	}
	resp, err := fromMessage(&msg)
	if err == nil && delta != "" {
		resp, err = req.reportEdits(resp, delta)
	}
	return req.restore(resp, err)
}

// Stream sends the prompt and yields the answer as it arrives, one chat.Response per event that
// carries something (text, a tool-call fragment keyed by Index, a whole reasoning block, the
// finish reason, usage). Response.Raw is the SDK's MessageStreamEventUnion. The request is sent
// when iteration starts; stopping the iteration early closes the connection.
func (m *Model) Stream(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error] {
	return wire.PromptStream(ctx, p, func() (*request, error) { return m.request(p) }, m.stream)
}

// stream sends req and yields its events.
func (m *Model) stream(ctx context.Context, req *request, yield func(*chat.Response, error) bool) {
	stream := m.client.Messages.NewStreaming(ctx, req.params, callOptions(ctx, req.opts)...)
	defer stream.Close()
	var st streamState
	for stream.Next() {
		ev := stream.Current()
		chunk, err := st.event(&ev)
		if err != nil {
			yield(nil, err)
			return
		}
		if chunk == nil {
			continue
		}
		if ev.Type == "message_delta" {
			if chunk, err = req.reportEdits(chunk, ev.RawJSON()); err != nil {
				yield(nil, err)
				return
			}
		}
		raw := new(sdk.MessageStreamEventUnion)
		*raw = ev
		chunk.Raw = raw
		req.names.Restore(chunk)
		if !yield(chunk, nil) {
			return
		}
	}
	if err := st.finish(ctx, stream.Err()); err != nil {
		yield(nil, err)
	}
}

// ErrIncompleteStream is the error of a stream that ends before its message_stop event. It wraps
// io.ErrUnexpectedEOF, as does a connection dropped in the middle of an event.
var ErrIncompleteStream = fmt.Errorf("anthropic: stream ended before message_stop: %w", io.ErrUnexpectedEOF)

// callOptions returns a call's request options: opts, with the SDK's retries off when the caller
// retries itself ([chat.WithoutRetries]).
func callOptions(ctx context.Context, opts []option.RequestOption) []option.RequestOption {
	if !chat.RetriesOff(ctx) {
		return opts
	}
	return append(opts[:len(opts):len(opts)], option.WithMaxRetries(0))
}
