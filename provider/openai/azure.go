package openai

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"
)

// Azure configures a model on Azure OpenAI, set as [Config.Azure]. The model's name is the
// deployment's: [Azure.Deployment] by default, [chat.Options.Model] for one call.
//
// Two API shapes exist. With APIVersion empty the model uses the v1 API,
// {Endpoint}/openai/v1/chat/completions and /openai/v1/responses, without api-version, as
// Microsoft recommends since August 2025; with APIVersion set it uses the versioned deployment
// routes, {Endpoint}/openai/deployments/{deployment}/chat/completions?api-version=… (the
// Responses API at /openai/responses?api-version=…), through the official SDK's azure package.
type Azure struct {
	// Endpoint is the resource's endpoint, https://{resource}.openai.azure.com or
	// https://{resource}.services.ai.azure.com (or an API Management or proxy URL in front of
	// one); empty reads $AZURE_OPENAI_ENDPOINT.
	Endpoint string
	// Deployment names the deployment to call, the model name of the requests; it is the default
	// of [Config.Model], which may be set instead.
	Deployment string
	// APIVersion selects the versioned deployment routes (for example "2025-01-01-preview");
	// empty uses the v1 API.
	APIVersion string
	// APIKey authenticates with a key of the resource. Empty, without TokenCredential, reads
	// $AZURE_OPENAI_API_KEY.
	APIKey string
	// TokenCredential authenticates with Microsoft Entra ID: any azcore.TokenCredential, such as
	// the credentials of github.com/Azure/azure-sdk-for-go/sdk/azidentity
	// (azidentity.NewDefaultAzureCredential covers managed identities, workload identity, the
	// Azure CLI and environment variables). Tokens go over HTTPS only.
	TokenCredential azcore.TokenCredential
	// TokenScopes are the scopes tokens are requested for; nil means
	// https://cognitiveservices.azure.com/.default.
	TokenScopes []string
}

// defaultAzureScope is the scope of Azure OpenAI's Entra ID tokens.
const defaultAzureScope = "https://cognitiveservices.azure.com/.default"

// azureOptions returns the SDK options that reach Azure OpenAI, and the base URL requests go to.
func azureOptions(cfg *Config) ([]option.RequestOption, string, error) {
	az := *cfg.Azure
	if cfg.BaseURL != "" || cfg.APIKey != "" {
		return nil, "", errors.New("openai: with Config.Azure, set Azure.Endpoint and Azure.APIKey rather than BaseURL and APIKey")
	}
	if az.Endpoint == "" {
		az.Endpoint = os.Getenv("AZURE_OPENAI_ENDPOINT")
	}
	u, err := url.Parse(az.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", fmt.Errorf("openai: Azure endpoint %q is not an http(s) URL", az.Endpoint)
	}
	if az.APIKey != "" && az.TokenCredential != nil {
		return nil, "", errors.New("openai: Azure.APIKey and Azure.TokenCredential are both set; choose one")
	}
	if az.APIKey == "" && az.TokenCredential == nil {
		az.APIKey = os.Getenv("AZURE_OPENAI_API_KEY")
		if az.APIKey == "" {
			return nil, "", errors.New("openai: Azure needs an API key (Azure.APIKey or $AZURE_OPENAI_API_KEY) or a TokenCredential")
		}
	}
	if cfg.Model == "" {
		cfg.Model = az.Deployment
	} else if az.Deployment != "" && az.Deployment != cfg.Model {
		return nil, "", fmt.Errorf("openai: Config.Model %q and Azure.Deployment %q differ", cfg.Model, az.Deployment)
	}
	scopes := az.TokenScopes
	if scopes == nil {
		scopes = []string{defaultAzureScope}
	}
	endpoint := strings.TrimSuffix(az.Endpoint, "/")
	if az.APIVersion != "" {
		opts := []option.RequestOption{azure.WithEndpoint(endpoint, az.APIVersion)}
		if az.TokenCredential != nil {
			opts = append(opts, azure.WithTokenCredential(az.TokenCredential, azure.WithTokenCredentialScopes(scopes)))
		} else {
			opts = append(opts, azure.WithAPIKey(az.APIKey))
		}
		return opts, endpoint + "/openai", nil
	}
	// The v1 API is OpenAI's API under /openai/v1; the azure package routes only the versioned
	// one, so the client is an OpenAI client on that base URL, with nothing of OpenAI's
	// environment (key, organization, project) sent along.
	base := endpoint + "/openai/v1"
	opts := []option.RequestOption{
		option.WithBaseURL(base + "/"),
		option.WithAPIKey(""),
		option.WithHeaderDel("OpenAI-Organization"),
		option.WithHeaderDel("OpenAI-Project"),
	}
	if az.TokenCredential != nil {
		tokens := &azureTokens{cred: az.TokenCredential, scopes: scopes}
		opts = append(opts, option.WithMiddleware(tokens.authorize))
	} else {
		opts = append(opts, option.WithHeader("Api-Key", az.APIKey))
	}
	return opts, base, nil
}

// azureTokens gets Entra ID tokens for the v1 API, keeping each until shortly before it expires.
type azureTokens struct {
	cred   azcore.TokenCredential
	scopes []string
	mu     sync.Mutex
	token  azcore.AccessToken
}

// tokenMargin is how long before its expiry a token is replaced.
const tokenMargin = 5 * time.Minute

// authorize is SDK middleware setting the bearer token, which it sends over HTTPS only (or to
// the loopback address, for local tests).
func (a *azureTokens) authorize(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	if req.URL.Scheme != "https" && !isLoopback(req.URL.Hostname()) {
		return nil, fmt.Errorf("openai: Azure Entra ID tokens are sent over HTTPS only, not to %s", req.URL.Redacted())
	}
	tok, err := a.get(req)
	if err != nil {
		return nil, fmt.Errorf("openai: Azure token: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	return next(req)
}

func (a *azureTokens) get(req *http.Request) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	fresh := a.token.Token != "" && now.Add(tokenMargin).Before(a.token.ExpiresOn) &&
		(a.token.RefreshOn.IsZero() || now.Before(a.token.RefreshOn))
	if !fresh {
		tok, err := a.cred.GetToken(req.Context(), policy.TokenRequestOptions{Scopes: a.scopes})
		if err != nil {
			return "", err
		}
		a.token = tok
	}
	return a.token.Token, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
