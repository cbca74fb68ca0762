package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/anthropics/anthropic-sdk-go/bedrock"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/vertex"
	"github.com/aws/aws-sdk-go-v2/aws"
	"golang.org/x/oauth2/google"
	goption "google.golang.org/api/option"
	gtransport "google.golang.org/api/transport/http"

	"github.com/wield-ai/wield/provider/internal/awsconf"
	"github.com/wield-ai/wield/provider/internal/sameorigin"
	"github.com/wield-ai/wield/provider/internal/splice"
)

// The GenAI semantic-convention provider names of the cloud platforms, reported by [Model.Info].
const (
	PlatformBedrock = "aws.bedrock"
	PlatformVertex  = "gcp.vertex_ai"
)

// BedrockConfig configures a Model for Claude on Amazon Bedrock (the InvokeModel API, with the
// Messages API's bodies), through the SDK's bedrock package.
type BedrockConfig struct {
	// Config holds the defaults of every request, as for [New], with three differences: Model is
	// a Bedrock model id, inference profile or ARN ("us.anthropic.claude-sonnet-4-5-20250929-v1:0")
	// and must be set; APIKey, when set, is a Bedrock API key, sent as a bearer token instead of
	// signing requests with AWS credentials; BaseURL, when set, replaces the regional endpoint
	// https://bedrock-runtime.{region}.amazonaws.com (a VPC endpoint or a proxy).
	Config
	// Region is the AWS region; empty means the region of the AWS configuration ($AWS_REGION,
	// the profile's region).
	Region string
	// Profile names the shared-configuration profile to load; empty means $AWS_PROFILE or the
	// default profile. It is ignored when AWS is set.
	Profile string
	// AWS, when set, is the AWS configuration to use (region, credentials, bearer token) instead
	// of the one config.LoadDefaultConfig finds: environment, shared files, SSO, web identity,
	// container and instance roles.
	AWS *aws.Config
}

// NewBedrock returns a Model for Claude on Amazon Bedrock. Requests are signed with AWS SigV4
// using the credentials of the AWS configuration, or carry a Bedrock API key ([Config.APIKey] or
// $AWS_BEARER_TOKEN_BEDROCK). The credentials are resolved when the first request is sent; ctx
// bounds only the loading of the configuration.
func NewBedrock(ctx context.Context, cfg BedrockConfig) (*Model, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.Model == "" {
		return nil, errors.New("anthropic: bedrock: Model must be set to a Bedrock model id or inference profile")
	}
	awsCfg, err := awsconf.Load(ctx, awsconf.Settings{AWS: cfg.AWS, Region: cfg.Region, Profile: cfg.Profile, APIKey: cfg.APIKey},
		"anthropic: bedrock", "BedrockConfig.Region")
	if err != nil {
		return nil, err
	}
	if cfg.APIKey != "" {
		// The SDK gives $AWS_BEARER_TOKEN_BEDROCK precedence over any configured token; refuse a
		// conflict rather than send a key the caller did not choose.
		if env := os.Getenv(awsconf.BearerEnv); env != "" && env != cfg.APIKey {
			return nil, errors.New("anthropic: bedrock: APIKey and $AWS_BEARER_TOKEN_BEDROCK are both set and differ; unset one")
		}
		awsCfg.BearerAuthTokenProvider = bedrock.NewStaticBearerTokenProvider(cfg.APIKey)
		awsCfg.AuthSchemePreference = []string{"httpBearerAuth"}
	}
	// The SDK signs with SigV4 above net/http, whose redirects keep the session-token header.
	// The prompt's large values are spliced in before the SDK signs the body, which its hash
	// covers.
	opts := []option.RequestOption{option.WithHTTPClient(sameorigin.Client(cfg.HTTPClient)), option.WithMiddleware(spliceFirst), bedrock.WithConfig(awsCfg)}
	return newModel(cfg.Config, PlatformBedrock, opts), nil
}

// VertexConfig configures a Model for Claude on Google Vertex AI, through the SDK's vertex
// package.
type VertexConfig struct {
	// Config holds the defaults of every request, as for [New], with three differences: Model is
	// a Vertex model name with its version ("claude-sonnet-4-5@20250929") and must be set; APIKey
	// must be empty (Vertex takes Google credentials); BaseURL, when set, replaces the regional
	// endpoint https://{region}-aiplatform.googleapis.com (a Private Service Connect endpoint or
	// a proxy).
	Config
	// Region is the Vertex AI location ("us-east5", "europe-west1", "global"); it must be set.
	Region string
	// ProjectID is the Google Cloud project; empty means the project of the credentials.
	ProjectID string
	// Credentials authenticate requests; nil means Application Default Credentials
	// ($GOOGLE_APPLICATION_CREDENTIALS, gcloud's credentials, the metadata server).
	Credentials *google.Credentials
	// Scopes are the OAuth2 scopes asked for when loading Application Default Credentials;
	// empty means https://www.googleapis.com/auth/cloud-platform.
	Scopes []string
}

// NewVertex returns a Model for Claude on Google Vertex AI. Requests carry an OAuth2 token of the
// Google credentials; ctx bounds the loading of the credentials.
func NewVertex(ctx context.Context, cfg VertexConfig) (m *Model, err error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.Model == "" {
		return nil, errors.New("anthropic: vertex: Model must be set to a Vertex model name such as claude-sonnet-4-5@20250929")
	}
	if cfg.APIKey != "" {
		return nil, errors.New("anthropic: vertex: APIKey is not used by Vertex AI, which takes Google credentials")
	}
	if cfg.Region == "" {
		return nil, errors.New("anthropic: vertex: Region must be set")
	}
	creds := cfg.Credentials
	if creds == nil {
		scopes := cfg.Scopes
		if len(scopes) == 0 {
			scopes = []string{"https://www.googleapis.com/auth/cloud-platform"}
		}
		if creds, err = google.FindDefaultCredentials(ctx, scopes...); err != nil {
			return nil, fmt.Errorf("anthropic: vertex: finding Google credentials: %w", err)
		}
	}
	if cfg.ProjectID == "" {
		cfg.ProjectID = creds.ProjectID
	}
	if cfg.ProjectID == "" {
		return nil, errors.New("anthropic: vertex: no project: set VertexConfig.ProjectID or use credentials that name one")
	}
	var opts []option.RequestOption
	// The vertex package wraps a client given before it with the credentials' token, which its
	// transport adds to every request, redirected ones too: each client keeps to its origin.
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(sameorigin.Client(cfg.HTTPClient)))
	}
	defer func() {
		// vertex.WithCredentials panics when it cannot build its HTTP client.
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("anthropic: vertex: %v", r)
		}
	}()
	opts = append(opts, vertex.WithCredentials(ctx, cfg.Region, cfg.ProjectID, creds))
	if cfg.HTTPClient == nil {
		// The client the vertex package builds for itself, given after it to replace it.
		hc, _, err := gtransport.NewClient(ctx, goption.WithTokenSource(creds.TokenSource))
		if err != nil {
			return nil, fmt.Errorf("anthropic: vertex: %w", err)
		}
		opts = append(opts, option.WithHTTPClient(sameorigin.Client(hc)))
	}
	return newModel(cfg.Config, PlatformVertex, opts), nil
}

// spliceFirst splices the prompt's large values into a request's body ([splice.Request]) ahead of
// the middleware after it.
func spliceFirst(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	r, err := splice.Request(r)
	if err != nil {
		return nil, err
	}
	return next(r)
}
