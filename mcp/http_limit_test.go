package mcp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
)

// TestHTTPSessionsPerClient: one client opening sessions until refused does not keep another
// client from opening one (before the per-client cap, the first took every place for the session
// timeout and the second was refused with 503).
func TestHTTPSessionsPerClient(t *testing.T) {
	s := mustServer(t, echoTool("echo"))
	principals := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token != "mallory" && token != "alice" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Minute)}, nil
	}
	ts := mcptest.NewServer(t, s, &mcp.HTTPOptions{MaxSessions: 8, MaxSessionsPerClient: 3, TokenVerifier: principals})
	as := func(who string) map[string]string { return map[string]string{"Authorization": "Bearer " + who} }
	opened := 0
	for range 8 {
		resp := mcptest.Post(t, ts.URL, initializeBody, as("mallory"))
		if resp.StatusCode == http.StatusOK {
			opened++
			continue
		}
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("mallory's session %d: %s (Retry-After %q), want 429 with Retry-After", opened+1, resp.Status, resp.Header.Get("Retry-After"))
		}
	}
	if opened != 3 {
		t.Fatalf("mallory opened %d sessions, want her share of 3", opened)
	}
	if resp := mcptest.Post(t, ts.URL, initializeBody, as("alice")); resp.StatusCode != http.StatusOK {
		t.Fatalf("alice was locked out by mallory: %s", resp.Status)
	}
	if n := sessionCount(s); n != 4 {
		t.Fatalf("%d sessions, want 4", n)
	}
}
