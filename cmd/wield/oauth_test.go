package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"

	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/tool"
)

// playBrowser is the user's browser for the OAuth tests: it opens the authorization URL
// (os.Args[1]) and follows the authorization server's redirects back to wield's loopback
// callback.
func playBrowser() {
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "browser:", err)
		os.Exit(1)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// conformanceClient is the client the conformance suite runs (with the server's URL as its
// argument): it writes the wield configuration file an OAuth-protected server needs, runs
// wield mcp login, then calls the server's tool with wield tools call, both with a browser
// that follows the authorization URL.
func conformanceClient(wieldBin string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "conformance client:", err)
		os.Exit(1)
	}
	var extra map[string]any
	if s := os.Getenv("MCP_CONFORMANCE_CONTEXT"); s != "" {
		if err := json.Unmarshal([]byte(s), &extra); err != nil {
			fail(err)
		}
	}
	dir, err := os.MkdirTemp("", "wield-conformance")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	oauth := map[string]any{"clientMetadataUrl": "https://conformance-test.local/client-metadata.json"}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"WIELD_CONFIG=" + filepath.Join(dir, "config.json"), "BROWSER=" + os.Args[0], "WIELD_TEST_BROWSER=1"}
	if id, _ := extra["client_id"].(string); id != "" {
		oauth["clientId"] = id
		if secret, _ := extra["client_secret"].(string); secret != "" {
			oauth["clientSecretEnv"] = "CONFORMANCE_SECRET"
			env = append(env, "CONFORMANCE_SECRET="+secret)
		}
	}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"conformance": map[string]any{"url": os.Args[1], "oauth": oauth}}})
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o600); err != nil {
		fail(err)
	}
	for _, args := range [][]string{{"mcp", "login", "conformance"}, {"tools", "call", "--builtin=false", "test-tool"}} {
		cmd := exec.Command(wieldBin, args...)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fail(fmt.Errorf("wield %s: %w", strings.Join(args, " "), err))
		}
	}
}

// The conformance suite's authorization scenarios pass with wield's command as the client,
// driven from its configuration file: wield mcp login, then a tool call with the kept token.
// The suite "auth" holds the current ones; the protocol 2025-03-26 and draft ones run by name.
// auth/2025-03-26-oauth-metadata-backcompat is left out: its authorization server's metadata
// names an issuer other than its URL, which the Go SDK refuses (the library's own conformance
// client fails it the same way).
func TestOAuthConformance(t *testing.T) {
	t.Parallel()
	total := 0
	for _, args := range [][]string{
		{"--suite", "auth"},
		{"--scenario", "auth/2025-03-26-oauth-endpoint-fallback"},
		{"--scenario", "auth/offline-access-scope"},
		{"--scenario", "auth/offline-access-not-supported"},
		{"--scenario", "auth/resource-mismatch"},
	} {
		n, passed := authConformance(t, args...)
		total += passed
		if args[0] == "--suite" && n < 14 {
			t.Errorf("the auth suite ran %d scenarios, want 14", n)
		}
	}
	t.Logf("%d checks passed in all", total)
}

// authConformance runs the suite's client side with args and fails t on any failed check.
func authConformance(t *testing.T, args ...string) (scenarios, passed int) {
	out := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := testenv.Command(t, "conformance", append([]string{"client", "--command", self, "--output-dir", out}, args...)...)
	cmd.Env = append(cmd.Env, "WIELD_TEST_CONFORMANCE_CLIENT="+wieldBin)
	cmd.Dir = t.TempDir()
	output, runErr := cmd.CombinedOutput()
	var names []string
	checks := map[string][]struct{ ID, Status, ErrorMessage string }{}
	filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "checks.json" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		name := filepath.Base(filepath.Dir(path))
		var cs []struct{ ID, Status, ErrorMessage string }
		if err := json.Unmarshal(data, &cs); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		checks[name] = cs
		names = append(names, name)
		return nil
	})
	sort.Strings(names)
	failed := 0
	for _, name := range names {
		for _, c := range checks[name] {
			switch c.Status {
			case "SUCCESS":
				passed++
			case "FAILURE":
				failed++
				t.Errorf("%s: check %s failed: %s", name, c.ID, c.ErrorMessage)
			}
		}
	}
	t.Logf("conformance client %s from the configuration file: %d scenarios, %d checks passed, %d failed", strings.Join(args, " "), len(names), passed, failed)
	if runErr != nil || len(names) == 0 || passed == 0 {
		t.Errorf("conformance %s: %v, %d scenarios\n%s", strings.Join(args, " "), runErr, len(names), tail(output, 4000))
	}
	return len(names), passed
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// oauthServer is an MCP server that takes only the access token fresh, beside a token endpoint
// that hands it out for the refresh token old-refresh.
type oauthServer struct {
	url, tokenURL string
	refreshes     atomic.Int32
	refused       atomic.Int32
}

func newOAuthServer(t *testing.T) *oauthServer {
	t.Helper()
	o := &oauthServer{}
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		if r.Form.Get("grant_type") != "refresh_token" || r.Form.Get("refresh_token") != "old-refresh" || r.Form.Get("client_id") != "wield-test" && !strings.HasPrefix(r.Header.Get("Authorization"), "Basic ") {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		o.refreshes.Add(1)
		io.WriteString(w, `{"access_token":"fresh","token_type":"Bearer","expires_in":3600,"refresh_token":"new-refresh"}`)
	}))
	t.Cleanup(tokens.Close)
	o.tokenURL = tokens.URL + "/token"
	echo := tool.Must(tool.Func("echo", "Echoes its text.", func(_ context.Context, in struct{ Text string }) (string, error) { return in.Text, nil }))
	srv, err := mcp.NewServer(nil, nil, echo)
	if err != nil {
		t.Fatal(err)
	}
	h, err := srv.Handler(&mcp.HTTPOptions{TokenVerifier: func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		if token != "fresh" {
			o.refused.Add(1)
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	o.url = "http://" + ln.Addr().String() + "/mcp"
	return o
}

// oauthEnv writes a configuration naming the server with "oauth" and returns the environment
// to run wield in and where the server's tokens are kept.
func oauthEnv(t *testing.T, serverURL string) (env []string, tokenPath string) {
	t.Helper()
	env = cleanEnv(t)
	dir := t.TempDir()
	cfg := fmt.Sprintf(`{"mcpServers": {"remote": {"url": %q, "oauth": {"clientId": "wield-test"}}}}`, serverURL)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600)
	env = append(env, "WIELD_CONFIG="+filepath.Join(dir, "config.json"), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	a := newApp(nil, io.Discard, io.Discard, func(k string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	})
	p, err := a.tokenPath("remote", serverURL)
	if err != nil {
		t.Fatal(err)
	}
	return env, p
}

// An expired access token is refreshed with the kept refresh token before the first request,
// the new tokens replace the old in the file (still 0600), and the server sees only the fresh
// one. A refresh the authorization server refuses ends in a message asking for wield mcp login.
func TestOAuthRefresh(t *testing.T) {
	t.Parallel()
	srv := newOAuthServer(t)
	env, path := oauthEnv(t, srv.url)
	tf := &tokenFile{Server: srv.url, ClientID: "wield-test", TokenURL: srv.tokenURL, AuthURL: srv.tokenURL + "/authorize",
		AuthStyle: int(oauth2.AuthStyleInParams),
		Token:     &oauth2.Token{AccessToken: "stale", TokenType: "Bearer", RefreshToken: "old-refresh", Expiry: time.Now().Add(-time.Hour)}}
	if err := writeTokenFile(path, tf); err != nil {
		t.Fatal(err)
	}
	tools, _ := listTools(t, env, "--builtin=false")
	if len(tools) != 1 || tools[0].Name != "echo" {
		t.Fatalf("tools = %+v, want echo", tools)
	}
	r := wield(t, env, "", "tools", "call", "--builtin=false", "echo", `{"Text":"hello"}`)
	if r.code != 0 || !strings.Contains(r.stdout, "hello") {
		t.Fatalf("tools call: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := srv.refreshes.Load(); n != 1 {
		t.Errorf("%d refreshes, want 1 (the second run uses the kept fresh token)", n)
	}
	if n := srv.refused.Load(); n != 0 {
		t.Errorf("the server refused %d requests; the stale token was sent", n)
	}
	got, err := readTokenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Token.AccessToken != "fresh" || got.Token.RefreshToken != "new-refresh" || got.Server != srv.url {
		t.Errorf("kept %+v, want the refreshed tokens", got.Token)
	}
	checkPrivate(t, path)

	// The refresh token is now old-refresh no more: a stale file with a refused refresh.
	tf.Token.RefreshToken = "revoked"
	writeTokenFile(path, tf)
	r = wield(t, env, "", "tools", "call", "--builtin=false", "echo", `{"Text":"hello"}`)
	if r.code == 0 || !strings.Contains(r.stderr, "wield mcp login remote") {
		t.Errorf("a refused refresh: exit %d, want a message naming wield mcp login remote\n%s", r.code, r.stderr)
	}
}

func checkPrivate(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %04o, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("token directory mode %04o, want 0700", di.Mode().Perm())
	}
}

// A token file others may read is refused, not used, with a message saying what to do; one
// that names another server's URL is not sent to this one.
func TestOAuthTokenFilePermissions(t *testing.T) {
	t.Parallel()
	srv := newOAuthServer(t)
	env, path := oauthEnv(t, srv.url)
	tf := &tokenFile{Server: srv.url, ClientID: "wield-test", TokenURL: srv.tokenURL,
		Token: &oauth2.Token{AccessToken: "fresh", TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)}}
	if err := writeTokenFile(path, tf); err != nil {
		t.Fatal(err)
	}
	checkPrivate(t, path)
	os.Chmod(path, 0o644)
	r := wield(t, env, "", "tools", "list", "--builtin=false")
	if r.code == 0 || !strings.Contains(r.stderr, "others may read it") || !strings.Contains(r.stderr, "chmod 600") {
		t.Errorf("a 0644 token file: exit %d, want a refusal saying chmod 600\n%s", r.code, r.stderr)
	}
	if n := srv.refused.Load(); n != 0 {
		t.Errorf("the loose file's token was sent %d times", n)
	}
	os.Chmod(path, 0o600)
	listTools(t, env, "--builtin=false")

	tf.Server = "http://127.0.0.1:1/elsewhere"
	writeTokenFile(path, tf)
	r = wield(t, env, "", "tools", "list", "--builtin=false")
	if !strings.Contains(r.stderr, "wield mcp login remote") {
		t.Errorf("a token kept for another URL: want wield mcp login asked for\n%s", r.stderr)
	}
}

// Entries that cannot work are refused when the file is read.
func TestOAuthConfigRefused(t *testing.T) {
	t.Parallel()
	for entry, want := range map[string]string{
		`{"command": "x", "oauth": true}`:                                                         "streamable HTTP",
		`{"type": "sse", "url": "http://127.0.0.1:1/sse", "oauth": true}`:                         "streamable HTTP",
		`{"url": "http://127.0.0.1:1/", "oauth": {"redirectUrl": "http://example.com:80/cb"}}`:    "loopback",
		`{"url": "http://127.0.0.1:1/", "oauth": {"clientSecretEnv": "S"}}`:                       "needs a clientId",
		`{"url": "http://127.0.0.1:1/", "oauth": {"secret": "x"}}`:                                "unknown field",
		`{"url": "http://127.0.0.1:1/", "oauth": 7}`:                                              `"oauth" must be true or an object`,
		`{"url": "http://127.0.0.1:1/", "headers": {"authorization": "Bearer x"}, "oauth": true}`: "Authorization header",
		`{"url": "http://127.0.0.1:1/", "oauth": {"clientMetadataUrl": "http://x/y"}}`:            "https URL",
	} {
		env := cleanEnv(t)
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"mcpServers": {"s": `+entry+`}}`), 0o600)
		env = append(env, "WIELD_CONFIG="+filepath.Join(dir, "c.json"))
		r := wield(t, env, "", "tools", "list")
		if r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, want an error saying %q\n%s", entry, r.code, want, r.stderr)
		}
	}
}

// The loopback redirect takes only its own path with a code or an error: an authorization server
// that refuses is the flow's error, with its description (control characters escaped); other
// paths are not found; a flow whose context ends stops waiting, and the next flow is served on
// the same held port.
func TestOAuthCallback(t *testing.T) {
	t.Parallel()
	var stderr testenv.Buffer
	a := newApp(nil, io.Discard, &stderr, func(string) string { return "" })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	redirect := "http://" + ln.Addr().String() + "/callback"
	fetch := a.codeFetcher("remote", redirect, ln.(*net.TCPListener), oauthLogin)
	get := func(path string) int {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(strings.TrimSuffix(redirect, "/callback") + path)
			if err == nil {
				resp.Body.Close()
				return resp.StatusCode
			}
			if time.Now().After(deadline) {
				t.Errorf("GET %s: %v", path, err)
				return 0
			}
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := fetch(t.Context(), &auth.AuthorizationArgs{URL: "https://as.example/authorize?x=1"})
		done <- err
	}()
	if code := get("/elsewhere?code=1"); code != http.StatusNotFound {
		t.Errorf("another path: %d", code)
	}
	if code := get("/callback"); code != http.StatusNotFound {
		t.Errorf("the callback without a code: %d", code)
	}
	get("/callback?error=access_denied&error_description=no%1b[31m")
	// A flow that missed its answer would wait oauthWait: fail within a bound instead.
	err = testenv.Within(t, 30*time.Second, "the flow after its answer", func() error { return <-done })
	if err == nil || !strings.Contains(err.Error(), "refused: access_denied: no") || strings.Contains(err.Error(), "\x1b") {
		t.Errorf("a refusal: %v", err)
	}
	if !strings.Contains(stderr.String(), "https://as.example/authorize?x=1") {
		t.Errorf("the URL was not printed: %q", stderr.String())
	}

	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		_, err := fetch(ctx, &auth.AuthorizationArgs{URL: "https://as.example/authorize"})
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a cancelled flow succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Error("a cancelled flow went on waiting")
	}
	results := make(chan *auth.AuthorizationResult, 1)
	go func() {
		r, err := fetch(t.Context(), &auth.AuthorizationArgs{URL: "https://as.example/authorize"})
		if err != nil {
			t.Error(err)
		}
		results <- r
	}()
	if code := get("/callback?code=c0de&state=s1"); code != http.StatusOK {
		t.Errorf("the callback with a code: %d", code)
	}
	var r *auth.AuthorizationResult
	select {
	case r = <-results:
	case <-time.After(30 * time.Second):
		t.Fatal("the third flow did not end after its answer")
	}
	if r == nil || r.Code != "c0de" || r.State != "s1" {
		t.Errorf("the third flow got %+v", r)
	}
}
