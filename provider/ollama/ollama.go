package ollama

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/bodywatch"
	"github.com/wield-ai/wield/internal/httpretry"
	"github.com/wield-ai/wield/internal/httptimeout"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/internal/sameorigin"
	"github.com/wield-ai/wield/provider/internal/toolname"
	"github.com/wield-ai/wield/provider/internal/wire"
)

const providerName = "ollama"

// Config configures a [Model]. The zero value talks to the server at $OLLAMA_HOST (default
// http://127.0.0.1:11434); the model is named here or per call.
type Config struct {
	// Model is the default model name, such as "llama3.2"; chat.Options.Model overrides it per
	// call.
	Model string
	// BaseURL is the server's address; empty means $OLLAMA_HOST, read as the ollama command reads
	// it, defaulting to http://127.0.0.1:11434.
	BaseURL string
	// Transport says how requests reach the API: HTTP client, retries, timeouts, size bound,
	// headers.
	provider.Transport
	// Temperature and MaxTokens (num_predict) are defaults for calls whose options leave them unset.
	Temperature *float64
	MaxTokens   int
	// Configure, when set, may adjust every request after wield has filled it (keep_alive,
	// options, truncation, …). A per-call function under [ExtraConfigure] runs after it.
	Configure func(*api.ChatRequest)

	sleep func(context.Context, time.Duration) error // replaces retry waits in tests
}

// Model is a chat.Model backed by Ollama's /api/chat. It is safe for concurrent use.
type Model struct {
	client *api.Client
	base   *url.URL
	cfg    Config
}

var (
	_ chat.Model     = (*Model)(nil)
	_ chat.Describer = (*Model)(nil)
)

// New returns a Model.
func New(cfg Config) (*Model, error) {
	base := envconfig.Host()
	if cfg.BaseURL != "" {
		s := cfg.BaseURL
		if !strings.Contains(s, "://") {
			s = "http://" + s
		}
		u, err := url.Parse(s)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("ollama: invalid base URL %q", cfg.BaseURL)
		}
		base = u
	}
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		*hc = *cfg.HTTPClient
	}
	// The watch keeps the status and read errors the client does not report: it returns no
	// error for a stream cut short or an error status with an empty body.
	// A redirect would take the conversation, and whatever a custom transport adds, elsewhere.
	hc.CheckRedirect = sameorigin.Check(hc.CheckRedirect)
	hc.Transport = &bodywatch.Transport{Base: &httpretry.Transport{
		Base:       wire.Timeouts(cfg.Transport, wire.Headers(cfg.Transport, hc.Transport)),
		MaxRetries: cfg.MaxRetries,
		Sleep:      cfg.sleep,
	}}
	return &Model{client: api.NewClient(base, hc), base: base, cfg: cfg}, nil
}

// Info names the provider and the configured model.
func (m *Model) Info() chat.Info { return chat.Info{Provider: providerName, Model: m.cfg.Model} }

// Client returns the SDK client, for the Ollama features wield does not cover (pulling models,
// embeddings, …). It shares the Model's retries.
func (m *Model) Client() *api.Client { return m.client }

// BaseURL returns the server address the Model talks to.
func (m *Model) BaseURL() string { return m.base.String() }

// errStop ends the SDK's read loop when the consumer stops iterating.
var errStop = errors.New("ollama: iteration stopped")

// Call sends the prompt with "stream": false and returns the whole answer.
func (m *Model) Call(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
	return wire.PromptCall(ctx, p, func() (*api.ChatRequest, error) { return m.request(p, false) }, func(ctx context.Context, req *api.ChatRequest) (*chat.Response, error) {
		return m.call(ctx, req, promptNames(p))
	})
}

func (m *Model) call(ctx context.Context, req *api.ChatRequest, names *toolname.Map) (*chat.Response, error) {
	ctx, watch := bodywatch.With(ctx)
	d := newDecoder()
	d.names = names
	var agg chat.Aggregator
	var raw *api.ChatResponse
	err := m.client.Chat(ctx, req, func(r api.ChatResponse) error {
		raw = &r
		agg.Add(d.chunk(r))
		return nil
	})
	if err := d.check(ctx, err, watch); err != nil {
		return nil, err
	}
	resp := agg.Response()
	resp.Raw = raw
	return resp, nil
}

// Stream sends the prompt with "stream": true and yields each NDJSON line as a chunk. Tool
// calls arrive whole; thinking is yielded as one Reasoning item once the answer starts.
func (m *Model) Stream(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error] {
	return wire.PromptStream(ctx, p, func() (*api.ChatRequest, error) { return m.request(p, true) }, func(ctx context.Context, req *api.ChatRequest, yield func(*chat.Response, error) bool) {
		m.stream(ctx, req, promptNames(p), yield)
	})
}

// stream sends req and yields its lines; names are the prompt's tool names, to restore in
// the calls.
func (m *Model) stream(ctx context.Context, req *api.ChatRequest, names *toolname.Map, yield func(*chat.Response, error) bool) {
	ctx, watch := bodywatch.With(ctx)
	d := newDecoder()
	d.names = names
	err := m.client.Chat(ctx, req, func(r api.ChatResponse) error {
		if !yield(d.chunk(r), nil) {
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		return
	}
	if err := d.check(ctx, err, watch); err != nil {
		yield(nil, err)
	}
}

// providerError returns the client's error for an error status as a *chat.ProviderError, or nil
// for any other error.
func providerError(err error) *chat.ProviderError {
	var se api.StatusError
	var ae api.AuthorizationError
	switch {
	case errors.As(err, &se):
		msg := se.ErrorMessage
		if msg == "" {
			msg = http.StatusText(se.StatusCode)
		}
		return &chat.ProviderError{Provider: providerName, StatusCode: se.StatusCode, Message: msg, Err: err}
	case errors.As(err, &ae):
		msg := "unauthorized"
		if ae.SigninURL != "" {
			msg += "; sign in at " + ae.SigninURL
		}
		return &chat.ProviderError{Provider: providerName, StatusCode: ae.StatusCode, Message: msg, Err: err}
	}
	return nil
}

// check turns the outcome of a chat request into the error to report: the SDK's error as a
// chat.ProviderError when the server answered with an error status, and an error for an answer
// that never said it was done (a stream cut short, which the SDK does not report).
func (d *decoder) check(ctx context.Context, err error, watch *bodywatch.Watch) error {
	if pe := providerError(err); pe != nil {
		return pe
	}
	switch {
	case err != nil && watch.Err() != nil:
		// The client reports a line cut short as an error carrying the partial line; the read
		// error is the cause.
		return cutShort("the answer was cut short", watch.Err())
	case err != nil:
		return fmt.Errorf("ollama: %w", err)
	case d.done:
		return nil
	case watch.Status() >= 400:
		return &chat.ProviderError{Provider: providerName, StatusCode: watch.Status(), Message: http.StatusText(watch.Status())}
	case ctx.Err() != nil:
		return ctx.Err()
	}
	cause := watch.Err()
	if cause == nil {
		cause = io.ErrUnexpectedEOF
	}
	return cutShort("the answer ended before it was done", cause)
}

// cutShort is the error of an answer that ended early because of cause. A timeout says what
// happened itself ("timed out: the response stalled…"), so it is not prefixed with another
// account of the same end.
func cutShort(what string, cause error) error {
	if te := (*httptimeout.Error)(nil); errors.As(cause, &te) {
		return fmt.Errorf("ollama: %w", cause)
	}
	return fmt.Errorf("ollama: %s: %w", what, cause)
}
