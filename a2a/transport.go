package a2a

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/wield-ai/wield/internal/httpretry"
	"github.com/wield-ai/wield/internal/httptimeout"
)

type sendingKey struct{}

// sending marks a context whose requests send a message: they start work on the agent, so they
// are tried again only when the agent cannot have taken them.
func sending(ctx context.Context) context.Context { return context.WithValue(ctx, sendingKey{}, true) }

// retrier tries a request again after a transient failure, with backoff and the server's
// Retry-After (up to 10 s).
type retrier struct {
	base    http.RoundTripper
	retries int
}

func (t *retrier) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	send, _ := ctx.Value(sendingKey{}).(bool)
	wait := 200 * time.Millisecond
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 {
			if req.GetBody == nil {
				return nil, errors.New("a2a: cannot send the request again")
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r = req.Clone(ctx)
			r.Body = body
		}
		resp, err := t.base.RoundTrip(r)
		if attempt >= t.retries || ctx.Err() != nil || !transient(resp, err, send) {
			return resp, err
		}
		d := wait
		if resp != nil {
			if ra, ok := httpretry.RetryAfter(resp.Header, time.Now()); ok {
				if ra > 10*time.Second {
					return resp, nil
				}
				d = ra
			}
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(d):
		}
		wait *= 2
	}
}

// transient reports whether a failed attempt is worth another: for a message, only when the
// agent cannot have taken it.
func transient(resp *http.Response, err error, send bool) bool {
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return true
		}
		if send {
			return false
		}
		var silent *httptimeout.Error
		if errors.As(err, &silent) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return true
		}
		var ne net.Error
		return errors.As(err, &ne) && ne.Timeout()
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	case http.StatusRequestTimeout, http.StatusBadGateway, http.StatusGatewayTimeout, http.StatusInternalServerError:
		return !send
	}
	return false
}

// urlParse parses an agent's URL, which must be http(s).
func urlParse(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, errors.New("not an http(s) URL")
	}
	return u, nil
}

// authInterceptor puts the credentials in each request's headers: a fixed value, or a token of
// an OAuth 2 token source.
type authInterceptor struct {
	a2aclient.PassthroughInterceptor
	header, value string
	tokens        *tokenCache
	tokenURL      string
}

func (a *authInterceptor) Before(ctx context.Context, req *a2aclient.Request) (context.Context, error) {
	if a.tokens != nil {
		tok, err := a.tokens.Token()
		if err != nil {
			return ctx, fmt.Errorf("a2a: OAuth 2 token from %s: %w", a.tokenURL, err)
		}
		req.Meta["Authorization"] = []string{tok.Type() + " " + tok.AccessToken}
		return ctx, nil
	}
	req.Meta[a.header] = []string{a.value}
	return ctx, nil
}

// tokenTimeout bounds one request to an OAuth 2 token endpoint.
const tokenTimeout = 30 * time.Second

// clientCredentials returns the interceptor that authenticates with a token of the client
// credentials flow, fetched from tokenURL with the client's transport. The URL must be https,
// but on loopback: the client's secret goes there.
func clientCredentials(a Auth, tokenURL string, scopes []string, hc *http.Client) (*authInterceptor, error) {
	u, err := urlParse(tokenURL)
	if err != nil {
		return nil, fmt.Errorf("token URL %q: %w", tokenURL, err)
	}
	if u.Scheme != "https" && !loopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("token URL %q is not https: the client secret would travel in the clear", tokenURL)
	}
	if a.Scopes != nil {
		scopes = a.Scopes
	}
	cfg := &clientcredentials.Config{ClientID: a.ClientID, ClientSecret: a.ClientSecret, TokenURL: tokenURL, Scopes: scopes}
	th := &http.Client{Timeout: tokenTimeout}
	if hc != nil {
		th.Transport = hc.Transport
	}
	// The token cache outlives any one call: its requests are bounded by th's timeout.
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, th)
	return &authInterceptor{tokens: &tokenCache{cfg: cfg, ctx: ctx}, tokenURL: tokenURL}, nil
}

// tokenCache keeps the client-credentials token, fetching a new one shortly before it expires
// (oauth2.Token.Valid's margin) and when the agent refuses the one it has: a token can be revoked
// before its expiry, which oauth2's own cache cannot be told.
type tokenCache struct {
	cfg *clientcredentials.Config
	ctx context.Context
	mu  sync.Mutex
	tok *oauth2.Token
}

func (c *tokenCache) Token() (*oauth2.Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok.Valid() {
		return c.tok, nil
	}
	return c.fetch()
}

// refused returns a token to try instead of the refused one: the cached token when another
// request has already replaced the refused one, else one fetched now.
func (c *tokenCache) refused(access string) (*oauth2.Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok.Valid() && c.tok.AccessToken != access {
		return c.tok, nil
	}
	return c.fetch()
}

func (c *tokenCache) fetch() (*oauth2.Token, error) {
	tok, err := c.cfg.Token(c.ctx)
	if err != nil {
		c.tok = nil
		return nil, err
	}
	c.tok = tok
	return tok, nil
}

// reauth answers an agent's 401 to a request that carried a token of tokens: once per request,
// it takes a new token (one fetch, shared by the requests refused the same token) and sends the
// request again. A 401 means the agent took nothing, so even a message may go again.
type reauth struct {
	base     http.RoundTripper
	tokens   *tokenCache
	tokenURL string
}

func (t *reauth) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || req.GetBody == nil {
		return resp, err
	}
	_, access, ok := strings.Cut(req.Header.Get("Authorization"), " ")
	if !ok || access == "" {
		return resp, nil
	}
	tok, ferr := t.tokens.refused(access)
	if ferr != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("a2a: the agent refused the OAuth 2 token (401), and a new one from %s failed: %w", t.tokenURL, ferr)
	}
	body, err := req.GetBody()
	if err != nil {
		return resp, nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	again := req.Clone(req.Context())
	again.Body = body
	again.Header.Set("Authorization", tok.Type()+" "+tok.AccessToken)
	return t.base.RoundTrip(again)
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// newAuth decides where the credentials go: the first of the card's security requirements they
// meet, or, for a card that declares none, the bearer token or the API key.
func newAuth(card *sdk.AgentCard, auth *Auth, hc *http.Client) (*authInterceptor, error) {
	var a Auth
	if auth != nil {
		a = *auth
	}
	if len(card.Security) == 0 {
		switch {
		case a.BearerToken != "":
			return &authInterceptor{header: "Authorization", value: "Bearer " + a.BearerToken}, nil
		case a.APIKey != "":
			h := a.APIKeyHeader
			if h == "" {
				h = "X-API-Key"
			}
			return &authInterceptor{header: h, value: a.APIKey}, nil
		}
		return nil, nil
	}
	var wanted []string
	for _, req := range card.Security {
		if len(req) == 0 {
			return nil, nil // an empty requirement: no authentication needed
		}
		names := make([]string, 0, len(req))
		for name := range req {
			names = append(names, string(name))
		}
		slices.Sort(names)
		for _, name := range names {
			scheme, ok := card.SecuritySchemes[sdk.SecuritySchemeName(name)]
			if !ok {
				continue
			}
			switch v := scheme.(type) {
			case sdk.HTTPAuthSecurityScheme:
				wanted = append(wanted, name+" (http "+v.Scheme+")")
				if a.BearerToken != "" && (v.Scheme == "bearer" || v.Scheme == "Bearer") {
					return &authInterceptor{header: "Authorization", value: "Bearer " + a.BearerToken}, nil
				}
			case sdk.OAuth2SecurityScheme:
				if f := v.Flows.ClientCredentials; f != nil {
					wanted = append(wanted, name+" (a bearer token, or OAuth 2 client credentials)")
					if a.BearerToken == "" && a.ClientID != "" {
						ai, err := clientCredentials(a, f.TokenURL, req[sdk.SecuritySchemeName(name)], hc)
						if err != nil {
							return nil, fmt.Errorf("a2a: agent %q: scheme %s: %w", card.Name, name, err)
						}
						return ai, nil
					}
				} else {
					wanted = append(wanted, name+" (a bearer token)")
				}
				if a.BearerToken != "" {
					return &authInterceptor{header: "Authorization", value: "Bearer " + a.BearerToken}, nil
				}
			case sdk.OpenIDConnectSecurityScheme:
				wanted = append(wanted, name+" (a bearer token)")
				if a.BearerToken != "" {
					return &authInterceptor{header: "Authorization", value: "Bearer " + a.BearerToken}, nil
				}
			case sdk.APIKeySecurityScheme:
				wanted = append(wanted, fmt.Sprintf("%s (an API key in %s %q)", name, v.In, v.Name))
				if a.APIKey != "" && v.In == sdk.APIKeySecuritySchemeInHeader && v.Name != "" {
					return &authInterceptor{header: v.Name, value: a.APIKey}, nil
				}
			default:
				wanted = append(wanted, name)
			}
		}
	}
	return nil, fmt.Errorf("a2a: agent %q requires one of %v; Config.Auth gives none of them", card.Name, wanted)
}
