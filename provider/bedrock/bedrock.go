package bedrock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/smithy-go/auth/bearer"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/internal/awsconf"
	"github.com/wield-ai/wield/provider/internal/wire"
)

// ProviderName names the provider in [chat.ProviderError] and [chat.Reasoning].
const ProviderName = "bedrock"

// Platform is the GenAI semantic-convention provider name, reported by [Model.Info].
const Platform = "aws.bedrock"

// Retry defaults; see [Config.MaxAttempts] and [Config.MaxBackoff].
const (
	// DefaultMaxAttempts is how many times a request is sent at most when throttled or failing:
	// Bedrock throttles on tokens per minute as well as requests, so one more attempt than the
	// SDK's default of three pays.
	DefaultMaxAttempts = 4
	// DefaultMaxBackoff caps the wait between attempts, which grows exponentially with jitter.
	DefaultMaxBackoff = 20 * time.Second
)

// Config holds a [Model]'s settings and the defaults of its requests.
type Config struct {
	// Model is the model id, inference profile or ARN the requests go to
	// ("us.amazon.nova-2-lite-v1:0", "meta.llama3-3-70b-instruct-v1:0"); it must be set.
	// [chat.Options.Model] overrides it per call.
	Model string

	// Region is the AWS region; empty means the region of the AWS configuration ($AWS_REGION,
	// the profile's region).
	Region string
	// Profile names the shared-configuration profile to load; empty means $AWS_PROFILE or the
	// default profile. It is ignored when AWS is set.
	Profile string
	// AWS, when set, is the AWS configuration to use (region, credentials, HTTP client) instead
	// of the one config.LoadDefaultConfig finds: environment, shared files, SSO, web identity,
	// container and instance roles. Its retry settings give way to MaxAttempts and MaxBackoff.
	AWS *aws.Config
	// APIKey, when set, is a Bedrock API key, sent as a bearer token instead of signing requests
	// with AWS credentials. Empty means $AWS_BEARER_TOKEN_BEDROCK if set, else AWS credentials.
	APIKey string
	// BaseURL, when set, replaces the regional endpoint https://bedrock-runtime.{region}.amazonaws.com
	// (a VPC endpoint, a proxy).
	BaseURL string
	// Transport says how requests reach the API: HTTP client, retries, timeouts, size bound,
	// headers.
	provider.Transport

	// MaxTokens is the default inferenceConfig.maxTokens; zero leaves the model's default.
	MaxTokens int
	// Temperature is the default temperature; nil leaves the model's default.
	Temperature *float64
	// Cache places prompt-caching checkpoints on every request; see [Cache].
	Cache Cache

	// MaxAttempts is how many times a request is sent at most: throttling (429
	// ThrottlingException), ModelNotReadyException, 5xx answers and connection errors are
	// retried by the AWS SDK's standard retryer with exponential backoff and jitter. Zero means
	// [Transport.MaxRetries] + 1 when that is set, else [DefaultMaxAttempts]; 1 turns retries
	// off.
	//
	// Deprecated: use MaxRetries, the retries every provider's Transport counts.
	MaxAttempts int
	// MaxBackoff caps the wait between attempts; zero means [DefaultMaxBackoff].
	MaxBackoff time.Duration
	// Retryer, when set, replaces the retryer built from MaxAttempts and MaxBackoff.
	Retryer func() aws.Retryer

	// SDKOptions edit the SDK client's options last, for settings this package does not map:
	// the escape hatch to the SDK.
	SDKOptions []func(*bedrockruntime.Options)
	// ClientOptions run after SDKOptions.
	//
	// Deprecated: use SDKOptions, the name every provider's Config gives its SDK's options.
	ClientOptions []func(*bedrockruntime.Options)
}

// Model is a [chat.Model] for the Amazon Bedrock Converse API. It is safe for concurrent use.
type Model struct {
	client *bedrockruntime.Client
	cfg    Config
}

var (
	_ chat.Model     = (*Model)(nil)
	_ chat.Describer = (*Model)(nil)
)

// New returns a Model. The AWS configuration is loaded now (ctx bounds the loading);
// credentials are resolved when the first request is sent.
func New(ctx context.Context, cfg Config) (*Model, error) {
	switch {
	case cfg.Model == "":
		return nil, errors.New("bedrock: Model must be set to a model id, inference profile or ARN")
	case cfg.MaxTokens < 0:
		return nil, fmt.Errorf("bedrock: MaxTokens %d is negative", cfg.MaxTokens)
	case cfg.MaxAttempts < 0:
		return nil, fmt.Errorf("bedrock: MaxAttempts %d is negative", cfg.MaxAttempts)
	case cfg.MaxAttempts != 0 && cfg.MaxRetries != 0 && cfg.MaxAttempts != max(cfg.MaxRetries, 0)+1:
		return nil, fmt.Errorf("bedrock: MaxAttempts %d and MaxRetries %d disagree; set MaxRetries only", cfg.MaxAttempts, cfg.MaxRetries)
	case cfg.MaxBackoff < 0:
		return nil, fmt.Errorf("bedrock: MaxBackoff %v is negative", cfg.MaxBackoff)
	}
	if err := cfg.Cache.check(); err != nil {
		return nil, err
	}
	awsCfg, err := awsconf.Load(ctx, awsconf.Settings{AWS: cfg.AWS, Region: cfg.Region, Profile: cfg.Profile, APIKey: cfg.APIKey},
		ProviderName, "Config.Region")
	if err != nil {
		return nil, err
	}
	client := bedrockruntime.NewFromConfig(awsCfg, func(o *bedrockruntime.Options) {
		if cfg.BaseURL != "" {
			o.BaseEndpoint = aws.String(cfg.BaseURL)
		}
		if cfg.HTTPClient != nil {
			o.HTTPClient = cfg.HTTPClient
		}
		if cfg.APIKey != "" {
			// After the client read $AWS_BEARER_TOKEN_BEDROCK, so the configured key wins.
			o.BearerAuthTokenProvider = bearer.StaticTokenProvider{Token: bearer.Token{Value: cfg.APIKey}}
			o.AuthSchemePreference = []string{"httpBearerAuth"}
		}
		o.Retryer = newRetryer(cfg)
		o.RetryMaxAttempts = 0
		for _, f := range slices.Concat(cfg.SDKOptions, cfg.ClientOptions) {
			f(o)
		}
		// Outermost, so that the timeouts and the size bound apply to each attempt as sent.
		o.HTTPClient = bounded{wire.Middleware(cfg.Transport), bodyGuard{o.HTTPClient}}
	})
	return &Model{client: client, cfg: cfg}, nil
}

// bounded sends requests through the transport's headers, timeouts and size bound.
type bounded struct {
	mw   func(*http.Request, wire.Next) (*http.Response, error)
	next bedrockruntime.HTTPClient
}

func (b bounded) Do(r *http.Request) (*http.Response, error) { return b.mw(r, b.next.Do) }

// bodyGuard hides the WriteTo method of request bodies from net/http. The AWS SDK closes a
// request's body as soon as the response headers arrive, after which the body's WriteTo fails
// with io.EOF; net/http, still finishing the request in another goroutine, reads the body once
// more to check it has no bytes beyond its Content-Length, through WriteTo when the body has one,
// takes that io.EOF for a failed write and closes the connection, cutting the response body
// being read ("use of closed network connection", about one stream in a hundred from a fast
// server). Read after close returns io.EOF, which net/http takes as the end it checks for.
type bodyGuard struct{ next bedrockruntime.HTTPClient }

func (g bodyGuard) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = readCloser{r.Body}
	}
	return g.next.Do(r)
}

// readCloser exposes only Read and Close.
type readCloser struct{ io.ReadCloser }

// newRetryer returns the configured retryer: the SDK's standard one, which retries throttling
// codes, 5xx statuses, connection errors and timeouts, plus ModelNotReadyException, which Bedrock
// answers while it loads a model and tells clients to retry.
func newRetryer(cfg Config) aws.Retryer {
	if cfg.Retryer != nil {
		return cfg.Retryer()
	}
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = cfg.MaxAttempts
		if o.MaxAttempts == 0 && cfg.MaxRetries != 0 {
			o.MaxAttempts = max(cfg.MaxRetries, 0) + 1
		}
		if o.MaxAttempts == 0 {
			o.MaxAttempts = DefaultMaxAttempts
		}
		o.MaxBackoff = cfg.MaxBackoff
		if o.MaxBackoff == 0 {
			o.MaxBackoff = DefaultMaxBackoff
		}
		o.Retryables = append(o.Retryables, retry.RetryableErrorCode{Codes: map[string]struct{}{"ModelNotReadyException": {}}})
	})
}

// Client returns the SDK client, for the Bedrock features wield does not cover. It carries the
// model's retries, timeouts and headers.
func (m *Model) Client() *bedrockruntime.Client { return m.client }

// Info names the platform and the configured model.
func (m *Model) Info() chat.Info { return chat.Info{Provider: Platform, Model: m.cfg.Model} }

// Call sends the prompt with Converse and returns the whole answer. Response.Raw is the SDK's
// *bedrockruntime.ConverseOutput.
func (m *Model) Call(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
	req, err := m.request(p)
	if err != nil {
		return nil, err
	}
	out, err := m.client.Converse(ctx, req.input, callOptions(ctx)...)
	if err != nil {
		return nil, wrapError(ctx, err)
	}
	return req.response(out)
}

// Stream sends the prompt with ConverseStream and yields the answer as it arrives: text pieces,
// tool-call fragments keyed by Index (the input JSON in the pieces Bedrock streams it in),
// reasoning blocks whole, the finish reason, then the usage. Response.Raw is the SDK's
// types.ConverseStreamOutput event. The request is sent when iteration starts; stopping the
// iteration early closes the connection.
func (m *Model) Stream(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error] {
	return wire.Stream(ctx, func() (*request, error) { return m.request(p) }, m.stream)
}

// stream sends req with ConverseStream and yields its events.
func (m *Model) stream(ctx context.Context, req *request, yield func(*chat.Response, error) bool) {
	out, err := m.client.ConverseStream(ctx, req.streamInput(), callOptions(ctx)...)
	if err != nil {
		yield(nil, wrapError(ctx, err))
		return
	}
	stream := out.GetStream()
	defer stream.Close()
	st := streamState{names: req.names, model: aws.ToString(req.input.ModelId)}
	st.id, _ = awsmiddleware.GetRequestIDMetadata(out.ResultMetadata)
	for ev := range stream.Events() {
		chunk, err := st.event(ev)
		if err != nil {
			yield(nil, err)
			return
		}
		if chunk == nil {
			continue
		}
		chunk.Raw = ev
		if !yield(chunk, nil) {
			return
		}
	}
	if err := st.finish(ctx, stream.Err()); err != nil {
		yield(nil, err)
	}
}

// ErrIncompleteStream is the error of a stream that ends before its messageStop and metadata
// events. It wraps io.ErrUnexpectedEOF, as does a connection dropped inside a frame.
var ErrIncompleteStream = fmt.Errorf("bedrock: stream ended before messageStop and metadata: %w", io.ErrUnexpectedEOF)

// callOptions returns a call's options: none, or, when the caller retries itself
// ([chat.WithoutRetries]), a retryer that does not.
func callOptions(ctx context.Context) []func(*bedrockruntime.Options) {
	if !chat.RetriesOff(ctx) {
		return nil
	}
	return []func(*bedrockruntime.Options){func(o *bedrockruntime.Options) { o.Retryer = aws.NopRetryer{} }}
}
