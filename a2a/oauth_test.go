package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/a2aproject/a2a-go/a2a"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
)

// tokenEndpoint is an OAuth 2 token endpoint on 127.0.0.1 issuing tokens for the client
// credentials flow; the agent it guards accepts only the newest token it issued.
type tokenEndpoint struct {
	*httptest.Server
	mu        sync.Mutex
	issued    int
	newest    string
	expiresIn int
	scopes    []string
	refusals  int  // requests the agent refused
	refuseAll bool // the agent refuses every token
}

func newTokenEndpoint(t *testing.T, expiresIn int) *tokenEndpoint {
	te := &tokenEndpoint{expiresIn: expiresIn}
	te.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
		}
		if r.PostFormValue("grant_type") != "client_credentials" || id != "wield" || secret != "client-s3cret" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		te.mu.Lock()
		te.issued++
		te.newest = fmt.Sprintf("token-%d", te.issued)
		te.scopes = strings.Fields(r.PostFormValue("scope"))
		body, _ := json.Marshal(map[string]any{"access_token": te.newest, "token_type": "bearer", "expires_in": te.expiresIn})
		te.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(te.Close)
	return te
}

func (te *tokenEndpoint) authorize(r *http.Request) (string, error) {
	te.mu.Lock()
	defer te.mu.Unlock()
	if te.refuseAll || te.newest == "" || r.Header.Get("Authorization") != "Bearer "+te.newest {
		te.refusals++
		return "", errors.New("not the newest token")
	}
	return "wield", nil
}

// revoke makes the agent refuse the token issued last, long before its expiry.
func (te *tokenEndpoint) revoke() {
	te.mu.Lock()
	defer te.mu.Unlock()
	te.newest = ""
}

func (te *tokenEndpoint) refused() int {
	te.mu.Lock()
	defer te.mu.Unlock()
	return te.refusals
}

func (te *tokenEndpoint) count() int {
	te.mu.Lock()
	defer te.mu.Unlock()
	return te.issued
}

// oauthAgent serves an agent whose card declares an OAuth 2 client-credentials flow at te.
// oauthRemote returns a remote agent tool of an agent guarded by te, with creds.
func oauthRemote(t *testing.T, te *tokenEndpoint, creds *Auth) tool.Tool {
	t.Helper()
	s := oauthAgent(t, te, te.URL)
	tl, err := RemoteAgent(context.Background(), Config{CardURL: s.http.URL, Auth: creds})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// revokedRemote is an OAuth remote agent whose first call went through on a token the agent has
// since revoked.
func revokedRemote(t *testing.T, creds *Auth) (*tokenEndpoint, tool.Tool) {
	t.Helper()
	te := newTokenEndpoint(t, 3600)
	tl := oauthRemote(t, te, creds)
	if out, err := tl.Call(context.Background(), `{"input":"hi"}`); err != nil || out != "guarded answer" {
		t.Fatalf("first call: %q %v", out, err)
	}
	te.revoke()
	return te, tl
}

func oauthAgent(t *testing.T, te *tokenEndpoint, tokenURL string) *served {
	m := chattest.New(chattest.Text("guarded answer")).Repeat()
	return serve(t, clienttest.New(t, m), ServerConfig{
		Authorize: te.authorize,
		SecuritySchemes: sdk.NamedSecuritySchemes{"oauth": sdk.OAuth2SecurityScheme{Flows: sdk.OAuthFlows{
			ClientCredentials: &sdk.ClientCredentialsOAuthFlow{TokenURL: tokenURL, Scopes: map[string]string{"agents:call": "call the agent"}},
		}}},
		Security: []sdk.SecurityRequirements{{"oauth": {"agents:call"}}},
	})
}

// A card's client-credentials flow: the tool fetches a token with the client's credentials and
// the requirement's scopes, keeps it while it is valid, and fetches a new one when it expires.
func TestRemoteAgentOAuthClientCredentials(t *testing.T) {
	ctx := context.Background()
	creds := &Auth{ClientID: "wield", ClientSecret: "client-s3cret"}
	// A token that expires within the source's early margin (10 s) is fetched again at each
	// call; the agent takes only the newest.
	for _, c := range []struct {
		name      string
		expiresIn int
		fetches   int
	}{{"cached", 3600, 1}, {"refreshed", 5, 3}} {
		t.Run(c.name, func(t *testing.T) {
			te := newTokenEndpoint(t, c.expiresIn)
			tl := oauthRemote(t, te, creds)
			for i := range 3 {
				if out, err := tl.Call(ctx, `{"input":"hi"}`); err != nil || out != "guarded answer" {
					t.Fatalf("call %d: %q %v", i, out, err)
				}
			}
			if n := te.count(); n != c.fetches {
				t.Fatalf("%d tokens fetched for 3 calls, want %d", n, c.fetches)
			}
			if strings.Join(te.scopes, " ") != "agents:call" {
				t.Fatalf("scopes asked %v", te.scopes)
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		te := newTokenEndpoint(t, 3600)
		s := oauthAgent(t, te, te.URL)
		tl, err := RemoteAgent(ctx, Config{CardURL: s.http.URL, Auth: &Auth{ClientID: "wield", ClientSecret: "wrong"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tl.Call(ctx, `{"input":"hi"}`); err == nil || !strings.Contains(err.Error(), "OAuth 2 token from "+te.URL) || !strings.Contains(err.Error(), "invalid_client") {
			t.Fatalf("a refused client: %v", err)
		}
		if _, err := RemoteAgent(ctx, Config{CardURL: s.http.URL}); err == nil || !strings.Contains(err.Error(), "client credentials") {
			t.Fatalf("no credentials: %v", err)
		}
	})
	t.Run("cleartext", func(t *testing.T) {
		te := newTokenEndpoint(t, 3600)
		s := oauthAgent(t, te, "http://tokens.example.com/token")
		if _, err := RemoteAgent(ctx, Config{CardURL: s.http.URL, Auth: creds}); err == nil || !strings.Contains(err.Error(), "not https") {
			t.Fatalf("a token URL in the clear: %v", err)
		}
	})
}

// A token the agent refuses before its expiry (revoked, rotated) is fetched again once and the
// request sent again once: the call goes through on the new token, and requests refused the same
// token share one fetch. An agent that refuses the new token too fails the call after that one
// retry, without a loop.
func TestRemoteAgentOAuthRefusedToken(t *testing.T) {
	ctx := context.Background()
	creds := &Auth{ClientID: "wield", ClientSecret: "client-s3cret"}
	t.Run("revoked", func(t *testing.T) {
		te, tl := revokedRemote(t, creds)
		if out, err := tl.Call(ctx, `{"input":"hi"}`); err != nil || out != "guarded answer" {
			t.Fatalf("call with a revoked token: %q %v", out, err)
		}
		if n, r := te.count(), te.refused(); n != 2 || r != 1 {
			t.Fatalf("%d tokens fetched and %d requests refused, want 2 and 1", n, r)
		}
		if out, err := tl.Call(ctx, `{"input":"hi"}`); err != nil || out != "guarded answer" || te.count() != 2 {
			t.Fatalf("the next call: %q %v, %d tokens fetched", out, err, te.count())
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		te, tl := revokedRemote(t, creds)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				if out, err := tl.Call(ctx, `{"input":"hi"}`); err != nil || out != "guarded answer" {
					errs <- fmt.Errorf("%q %v", out, err)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if n := te.count(); n != 2 {
			t.Fatalf("%d tokens fetched for 8 calls refused one revoked token, want 2", n)
		}
	})
	t.Run("refused again", func(t *testing.T) {
		te := newTokenEndpoint(t, 3600)
		tl := oauthRemote(t, te, creds)
		te.mu.Lock()
		te.refuseAll = true
		te.mu.Unlock()
		_, err := tl.Call(ctx, `{"input":"hi"}`)
		if err == nil || !strings.Contains(err.Error(), "401") {
			t.Fatalf("an agent refusing every token: %v", err)
		}
		if n, r := te.count(), te.refused(); n != 2 || r != 2 {
			t.Fatalf("%d tokens fetched and %d requests refused, want 2 and 2 (one refetch, one retry)", n, r)
		}
	})
	t.Run("refetch fails", func(t *testing.T) {
		te, tl := revokedRemote(t, creds)
		te.Close() // the token endpoint is gone
		_, err := tl.Call(ctx, `{"input":"hi"}`)
		if err == nil || !strings.Contains(err.Error(), "refused the OAuth 2 token (401)") || !strings.Contains(err.Error(), te.URL) {
			t.Fatalf("a refused token with no endpoint to renew it: %v", err)
		}
	})
}
