package gemini

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"os"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/bodywatch"
	"github.com/wield-ai/wield/internal/httpretry"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/internal/sameorigin"
	"github.com/wield-ai/wield/provider/internal/wire"
)

// DefaultModel is the model used when neither [Config.Model] nor the call's options name one.
const DefaultModel = "gemini-2.5-flash"

// Config configures a [Model]. The zero value talks to the Gemini Developer API with
// [DefaultModel] and the API key from the environment.
type Config struct {
	// Model is the default model name, such as "gemini-2.5-flash"; chat.Options.Model overrides it
	// per call.
	Model string
	// APIKey authenticates to the API. Empty means $GEMINI_API_KEY, then $GOOGLE_API_KEY (for the
	// Gemini Developer API; Vertex AI may authenticate with Google credentials instead).
	APIKey string
	// BaseURL replaces the API endpoint, e.g. for a proxy or a test server. Empty means the SDK's
	// default, which honours $GOOGLE_GEMINI_BASE_URL.
	BaseURL string
	// Transport says how requests reach the API: HTTP client, retries, timeouts, size bound,
	// headers.
	provider.Transport
	// Temperature and MaxTokens are defaults for calls whose options leave them unset.
	Temperature *float64
	MaxTokens   int
	// SchemaMode chooses how tool and response schemas are sent; the default is [SchemaJSON].
	SchemaMode SchemaMode
	// ClientConfig, when set, is the base configuration of the SDK client: use it for Vertex AI
	// (Backend, Project, Location, Credentials) and SDK HTTP options (headers, API version,
	// extra body fields). APIKey, BaseURL and HTTPClient above override its fields when set.
	ClientConfig *genai.ClientConfig
	// SDKOptions edit the SDK client's configuration after wield has filled it from the fields
	// above and before the client is built: the escape hatch to the SDK. Retries and timeouts
	// are layered on whatever HTTP client they leave.
	SDKOptions []func(*genai.ClientConfig)
	// Configure, when set, may adjust every request's SDK configuration after wield has filled it
	// (safety settings, cached content, media resolution, and so on). A per-call function under
	// [ExtraConfigure] runs after it.
	Configure func(*genai.GenerateContentConfig)

	sleep func(context.Context, time.Duration) error // replaces retry waits in tests
}

// Model is a chat.Model backed by Gemini's generateContent and streamGenerateContent. It is safe
// for concurrent use.
type Model struct {
	client *genai.Client
	cfg    Config
	info   chat.Info
}

var (
	_ chat.Model     = (*Model)(nil)
	_ chat.Describer = (*Model)(nil)
)

// New returns a Model. ctx is used only while setting up credentials (Vertex AI).
func New(ctx context.Context, cfg Config) (*Model, error) {
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	cc := genai.ClientConfig{}
	if cfg.ClientConfig != nil {
		cc = *cfg.ClientConfig
	}
	if cfg.APIKey != "" {
		cc.APIKey = cfg.APIKey
	}
	if cfg.BaseURL != "" {
		cc.HTTPOptions.BaseURL = cfg.BaseURL
	}
	if cfg.HTTPClient != nil {
		cc.HTTPClient = cfg.HTTPClient
	}
	for _, f := range cfg.SDKOptions {
		f(&cc)
	}
	vertex := cc.Backend == genai.BackendVertexAI || cc.Backend == genai.BackendEnterprise ||
		(cc.Backend == genai.BackendUnspecified && vertexFromEnv())
	if cc.APIKey == "" && cc.Credentials == nil && !vertex {
		cc.APIKey = envAPIKey()
		if cc.APIKey == "" {
			return nil, errors.New("gemini: no API key: set Config.APIKey, $GEMINI_API_KEY or $GOOGLE_API_KEY")
		}
	}
	// Vertex AI with Google credentials: let the SDK build its authenticated client first, then
	// layer retries on it.
	if cc.HTTPClient == nil && vertex && cc.APIKey == "" {
		probe, err := genai.NewClient(ctx, &cc)
		if err != nil {
			return nil, clientError(err)
		}
		cc = probe.ClientConfig()
	}
	cc.HTTPClient = retryingClient(cc.HTTPClient, &cfg)
	client, err := genai.NewClient(ctx, &cc)
	if err != nil {
		return nil, clientError(err)
	}
	provider := "gcp.gemini"
	if client.ClientConfig().Backend == genai.BackendVertexAI {
		provider = "gcp.vertex_ai"
	}
	return &Model{client: client, cfg: cfg, info: chat.Info{Provider: provider, Model: cfg.Model}}, nil
}

// NewWithClient returns a Model that uses an SDK client built by the caller. No retry or timeout
// transport is added: configure the client's own options if needed.
func NewWithClient(client *genai.Client, cfg Config) (*Model, error) {
	if client == nil {
		return nil, errors.New("gemini: nil client")
	}
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	provider := "gcp.gemini"
	if client.ClientConfig().Backend == genai.BackendVertexAI {
		provider = "gcp.vertex_ai"
	}
	return &Model{client: client, cfg: cfg, info: chat.Info{Provider: provider, Model: cfg.Model}}, nil
}

// clientError reports a failure to build the SDK client without the configuration dump the SDK
// appends, which holds the API key.
func clientError(err error) error {
	msg, _, dumped := strings.Cut(err.Error(), " ClientConfig:")
	if !dumped {
		return fmt.Errorf("gemini: %w", err)
	}
	return errors.New("gemini: " + strings.TrimSuffix(strings.TrimSpace(msg), "."))
}

// vertexFromEnv reports whether the SDK's environment selects Vertex AI.
func vertexFromEnv() bool {
	for _, k := range []string{"GOOGLE_GENAI_USE_ENTERPRISE", "GOOGLE_GENAI_USE_VERTEXAI"} {
		if v, ok := os.LookupEnv(k); ok {
			return strings.EqualFold(v, "true") || v == "1"
		}
	}
	return false
}

func envAPIKey() string {
	if k := os.Getenv("GEMINI_API_KEY"); k != "" {
		return k
	}
	return os.Getenv("GOOGLE_API_KEY")
}

func retryingClient(base *http.Client, cfg *Config) *http.Client {
	c := &http.Client{}
	if base != nil {
		*c = *base
	}
	// The SDK reports a stream cut inside an event as a JSON error about the partial event; the
	// watch keeps the read error that is the real cause.
	// An authorizing transport (Vertex AI's) adds its token to redirected requests too, and
	// net/http keeps the API key's header on them.
	c.CheckRedirect = sameorigin.Check(c.CheckRedirect)
	c.Transport = &bodywatch.Transport{Base: &httpretry.Transport{
		Base:       wire.Timeouts(cfg.Transport, wire.Headers(cfg.Transport, c.Transport)),
		MaxRetries: cfg.MaxRetries,
		Hint:       retryInfoHint,
		Sleep:      cfg.sleep,
	}}
	return c
}

// Info names the provider and the configured model.
func (m *Model) Info() chat.Info { return m.info }

// Client returns the SDK client, for the Gemini features wield does not cover.
func (m *Model) Client() *genai.Client { return m.client }

// Call sends the prompt to generateContent and returns the whole answer.
func (m *Model) Call(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
	return wire.PromptCall(ctx, p, func() (*request, error) { return m.request(p) }, m.call)
}

func (m *Model) call(ctx context.Context, req *request) (*chat.Response, error) {
	resp, err := m.generate(ctx, req)
	if err != nil {
		return nil, wrapError(err)
	}
	d := newDecoderFor(req)
	return d.flush(d.response(resp)), nil
}

// generate calls the SDK, turning its panics on well-formed JSON of the wrong shape into errors.
func (m *Model) generate(ctx context.Context, req *request) (resp *genai.GenerateContentResponse, err error) {
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, fmt.Errorf("malformed response: %v", r)
		}
	}()
	return m.client.Models.GenerateContent(ctx, req.model, req.contents, req.config)
}

// Stream sends the prompt to streamGenerateContent and yields each server-sent event as a
// chunk. Function calls arrive whole in one chunk (Vertex AI's streamed arguments are joined
// before the call is yielded); thoughts are yielded as one Reasoning item once complete.
func (m *Model) Stream(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error] {
	return wire.PromptStream(ctx, p, func() (*request, error) { return m.request(p) }, m.stream)
}

// stream sends req to streamGenerateContent and yields its chunks.
func (m *Model) stream(ctx context.Context, req *request, yield func(*chat.Response, error) bool) {
	ctx, watch := bodywatch.With(ctx)
	inYield := false
	defer func() {
		if r := recover(); r != nil {
			if inYield {
				panic(r) // the consumer's own panic
			}
			yield(nil, fmt.Errorf("gemini: malformed stream: %v", r))
		}
	}()
	d := newDecoderFor(req)
	for chunk, err := range m.client.Models.GenerateContentStream(ctx, req.model, req.contents, req.config) {
		if err != nil {
			if cause := watch.Err(); cause != nil {
				err = fmt.Errorf("stream broken off: %w", cause)
			}
			inYield = true
			yield(nil, wrapError(err))
			return
		}
		if chunk == nil {
			continue
		}
		inYield = true
		if !yield(d.response(chunk), nil) {
			return
		}
		inYield = false
	}
	inYield = true // only yields from here on
	if tail := d.flush(&chat.Response{}); len(tail.Generations) > 0 {
		if !yield(tail, nil) {
			return
		}
	}
	if !d.complete() {
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return
		}
		yield(nil, fmt.Errorf("gemini: stream ended before the answer was complete: %w", io.ErrUnexpectedEOF))
	}
}
