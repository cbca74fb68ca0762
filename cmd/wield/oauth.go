package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/spf13/cobra"
	"golang.org/x/oauth2"

	"github.com/wield-ai/wield/mcp"
)

// oauthConfig is an mcpServers entry's "oauth": how wield authorizes itself with a remote MCP
// server through the OAuth authorization-code flow, its redirect on loopback. `"oauth": true`
// takes every default: dynamic client registration, the scopes the server asks for.
type oauthConfig struct {
	// ClientID is a client registered with the authorization server beforehand; without it wield
	// registers itself (dynamic client registration), or names ClientMetadataURL.
	ClientID string `json:"clientId,omitempty"`
	// ClientSecretEnv names the environment variable holding the pre-registered client's secret;
	// the file never holds secrets.
	ClientSecretEnv string `json:"clientSecretEnv,omitempty"`
	// ClientMetadataURL is an HTTPS URL of a client ID metadata document describing wield, tried
	// before the other ways of registering.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// Scopes are asked for on the first authorization instead of those the server names; a
	// server that later asks for more (step-up) gets them added.
	Scopes []string `json:"scopes,omitempty"`
	// RedirectURL is where the authorization server sends the browser back: http on a loopback
	// address. Empty means http://127.0.0.1:PORT/callback on a free port.
	RedirectURL string `json:"redirectUrl,omitempty"`
}

// UnmarshalJSON takes an object or true.
func (o *oauthConfig) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "true" {
		*o = oauthConfig{}
		return nil
	}
	type plain oauthConfig
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf(`"oauth" must be true or an object with clientId, clientSecretEnv, clientMetadataUrl, scopes and redirectUrl: %w`, err)
	}
	*o = oauthConfig(p)
	return nil
}

// check refuses what could never work, naming the server.
func (o *oauthConfig) check(name string) error {
	if o.ClientSecretEnv != "" && (o.ClientID == "" || strings.ContainsAny(o.ClientSecretEnv, "$={} ")) {
		if o.ClientID == "" {
			return fmt.Errorf("mcpServers.%s.oauth: clientSecretEnv needs a clientId", name)
		}
		return fmt.Errorf("mcpServers.%s.oauth.clientSecretEnv is %q: give the name of an environment variable", name, o.ClientSecretEnv)
	}
	if o.RedirectURL != "" {
		u, err := url.Parse(o.RedirectURL)
		if err != nil || u.Scheme != "http" || !loopbackHost(u.Hostname()) || u.Port() == "" {
			return fmt.Errorf("mcpServers.%s.oauth.redirectUrl %q: give http://127.0.0.1:PORT/PATH (http on a loopback address, with a port)", name, o.RedirectURL)
		}
	}
	if o.ClientMetadataURL != "" {
		if u, err := url.Parse(o.ClientMetadataURL); err != nil || u.Scheme != "https" || strings.Trim(u.Path, "/") == "" {
			return fmt.Errorf("mcpServers.%s.oauth.clientMetadataUrl %q: give an https URL with a path", name, o.ClientMetadataURL)
		}
	}
	return nil
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// parseOAuth reads the "oauth" of each entry of an mcpServers file (or of the top-level
// "mcpServers" value when wrapped is false), checked against the servers as parsed.
func parseOAuth(data []byte, servers []mcp.ServerConfig) (map[string]*oauthConfig, error) {
	var f struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	entries := f.MCPServers
	if entries == nil {
		entries = f.Servers
	}
	out := map[string]*oauthConfig{}
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		var e struct {
			OAuth *oauthConfig `json:"oauth"`
		}
		if err := json.Unmarshal(entries[name], &e); err != nil {
			return nil, fmt.Errorf("mcpServers.%s: %w", name, err)
		}
		if e.OAuth == nil {
			continue
		}
		i := slices.IndexFunc(servers, func(s mcp.ServerConfig) bool { return s.Name == name })
		if i < 0 {
			continue // disabled
		}
		s := servers[i]
		switch {
		case s.URL == "" || s.Type == mcp.TypeSSE:
			return nil, fmt.Errorf("mcpServers.%s: \"oauth\" needs a server reached by streamable HTTP (a url, type http)", name)
		case hasHeader(s.Headers, "Authorization"):
			return nil, fmt.Errorf("mcpServers.%s: \"oauth\" and an Authorization header: give one", name)
		}
		if err := e.OAuth.check(name); err != nil {
			return nil, err
		}
		out[name] = e.OAuth
	}
	return out, nil
}

func hasHeader(h map[string]string, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// oauthWait bounds how long wield waits for the browser to come back to the loopback redirect.
const oauthWait = 5 * time.Minute

// tokenFile is what wield keeps of a server's authorization, in the state directory with mode
// 0600: the token and what refreshing it takes. Server ties it to the server's URL, so that a
// configuration pointing the name elsewhere never sends the token there.
type tokenFile struct {
	Server       string        `json:"server"`
	ClientID     string        `json:"clientId"`
	ClientSecret string        `json:"clientSecret,omitempty"` // a dynamically registered client's only
	AuthURL      string        `json:"authUrl"`
	TokenURL     string        `json:"tokenUrl"`
	AuthStyle    int           `json:"authStyle"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

// tokenPath is where the tokens of the server named name at serverURL are kept.
func (a *app) tokenPath(name, serverURL string) (string, error) {
	dir, err := a.stateDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(name + "\x00" + serverURL))
	return filepath.Join(dir, "mcp-oauth", hex.EncodeToString(sum[:12])+".json"), nil
}

// errLooseTokenFile is a token file others may read: it is refused rather than used.
var errLooseTokenFile = errors.New("others may read it; run chmod 600 on it, or remove it and run wield mcp login again")

// readTokenFile reads a token file; a missing one is nil and no error.
func readTokenFile(path string) (*tokenFile, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("token file %s (mode %04o): %w", path, fi.Mode().Perm(), errLooseTokenFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tf tokenFile
	if err := json.Unmarshal(data, &tf); err != nil || tf.Token == nil {
		return nil, fmt.Errorf("token file %s is damaged; run wield mcp login again", path)
	}
	return &tf, nil
}

// writeTokenFile replaces the file at path whole (a rename, so a reader never sees half), with
// mode 0600 in a directory of mode 0700.
func writeTokenFile(path string, tf *tokenFile) error {
	data, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".token-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// savingSource writes each new token its source gives (a refresh) to the token file.
type savingSource struct {
	src  oauth2.TokenSource
	path string
	base tokenFile // the rest of the file
	warn func(error)

	mu   sync.Mutex
	last string // the access token last written
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	tok, err := s.src.Token()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok.AccessToken != s.last {
		tf := s.base
		tf.Token = tok
		if err := writeTokenFile(s.path, &tf); err != nil {
			s.warn(err) // the token still works for this run
		} else {
			s.last = tok.AccessToken
		}
	}
	return tok, nil
}

// oauthMode says how a command that meets a server needing authorization goes on.
type oauthMode int

const (
	// oauthIfAttended runs the flow when someone can follow the URL (a terminal, or $BROWSER),
	// else fails asking for wield mcp login.
	oauthIfAttended oauthMode = iota
	// oauthLogin always runs the flow, ignoring kept tokens: wield mcp login.
	oauthLogin
)

// withOAuth gives each server that has an "oauth" entry its authorization handler, kept tokens
// loaded from the state directory.
func (a *app) withOAuth(servers []mcp.ServerConfig, entries map[string]*oauthConfig, mode oauthMode) error {
	for i := range servers {
		o := entries[servers[i].Name]
		if o == nil {
			continue
		}
		h, err := a.oauthHandler(servers[i], o, mode)
		if err != nil {
			return fmt.Errorf("MCP server %s: %w", safeLine(servers[i].Name), err)
		}
		servers[i].OAuth = h
		servers[i].Type = mcp.TypeHTTP // OAuth has no SSE fallback
	}
	return nil
}

// oauthHandler builds the Go SDK's authorization-code handler for a server, keeping its tokens.
func (a *app) oauthHandler(s mcp.ServerConfig, o *oauthConfig, mode oauthMode) (auth.OAuthHandler, error) {
	path, err := a.tokenPath(s.Name, s.URL)
	if err != nil {
		return nil, err
	}
	var secret string
	if o.ClientSecretEnv != "" {
		if secret = a.getenv(o.ClientSecretEnv); secret == "" {
			return nil, fmt.Errorf("oauth.clientSecretEnv names %s, which is not set", o.ClientSecretEnv)
		}
	}
	redirect := o.RedirectURL
	var held *net.TCPListener
	if redirect == "" {
		// A port of its own, held for the command's life so that no one takes it between flows;
		// it answers only while a flow runs. Authorization servers let loopback redirects take
		// any port (RFC 8252, section 7.3).
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("no loopback port for the OAuth redirect: %w", err)
		}
		held = ln.(*net.TCPListener)
		redirect = "http://" + ln.Addr().String() + "/callback"
	}
	warn := func(err error) { a.warnf("MCP server %s: keeping its refreshed token: %v", safeLine(s.Name), err) }
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: a.codeFetcher(s.Name, redirect, held, mode),
		RequestRefreshToken:      true,
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			base := tokenFile{Server: s.URL, ClientID: c.ClientID, AuthURL: c.Endpoint.AuthURL, TokenURL: c.Endpoint.TokenURL,
				AuthStyle: int(c.Endpoint.AuthStyle), Scopes: c.Scopes}
			if o.ClientSecretEnv == "" {
				base.ClientSecret = c.ClientSecret // a registered client's; an environment's stays there
			}
			src := &savingSource{src: c.TokenSource(ctx, tok), path: path, base: base, warn: warn}
			if _, err := src.Token(); err != nil { // written now, not on first use
				return nil, err
			}
			return src, nil
		},
	}
	if o.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientMetadataURL}
	}
	if o.ClientID != "" {
		pc := &oauthex.ClientCredentials{ClientID: o.ClientID}
		if secret != "" {
			pc.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: secret}
		}
		cfg.PreregisteredClient = pc
	} else {
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName:   "wield",
			RedirectURIs: []string{redirect},
			GrantTypes:   []string{"authorization_code", "refresh_token"},
		}}
	}
	if len(o.Scopes) > 0 {
		var asked atomic.Bool
		cfg.ScopeFilter = func(discovered []string) []string {
			if !asked.Swap(true) {
				return slices.Clone(o.Scopes)
			}
			// A server asking for more later (step-up) gets what it asks for too.
			out := slices.Clone(o.Scopes)
			for _, sc := range discovered {
				if !slices.Contains(out, sc) {
					out = append(out, sc)
				}
			}
			return out
		}
	}
	if mode != oauthLogin {
		tf, err := readTokenFile(path)
		if err != nil {
			return nil, err
		}
		if tf != nil && tf.Server == s.URL && (o.ClientID == "" || tf.ClientID == o.ClientID) {
			c := &oauth2.Config{ClientID: tf.ClientID, ClientSecret: tf.ClientSecret, Scopes: tf.Scopes,
				Endpoint: oauth2.Endpoint{AuthURL: tf.AuthURL, TokenURL: tf.TokenURL, AuthStyle: oauth2.AuthStyle(tf.AuthStyle)}}
			if o.ClientSecretEnv != "" {
				c.ClientSecret = secret
			}
			base := *tf
			base.Token = nil
			// The refreshes outlive any one request, as the SDK's own token source's do.
			src := &savingSource{src: c.TokenSource(context.Background(), tf.Token), path: path, base: base, warn: warn, last: tf.Token.AccessToken}
			cfg.InitialTokenSource = src
		}
	}
	return auth.NewAuthorizationCodeHandler(cfg)
}

// codeFetcher runs the user's part of the authorization: it listens on the loopback redirect
// (on held when given, else on the redirect's address), prints the authorization URL (and opens
// it with $BROWSER when set), and waits for the browser to come back with the code.
func (a *app) codeFetcher(name, redirect string, held *net.TCPListener, mode oauthMode) auth.AuthorizationCodeFetcher {
	var flows sync.Mutex // one flow at a time on the one redirect
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		browser := a.getenv("BROWSER")
		if mode != oauthLogin && !a.stderrTTY && browser == "" {
			return nil, fmt.Errorf("MCP server %s needs authorization: run wield mcp login %s", safeLine(name), shellQuote(name))
		}
		ru, err := url.Parse(redirect)
		if err != nil {
			return nil, err
		}
		flows.Lock()
		defer flows.Unlock()
		var ln net.Listener = keptListener{held}
		if held == nil {
			if ln, err = net.Listen("tcp", ru.Host); err != nil {
				return nil, fmt.Errorf("listening for the OAuth redirect on %s: %w", ru.Host, err)
			}
		}
		got := make(chan url.Values, 1)
		srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if r.URL.Path != ru.Path || (q.Get("code") == "" && q.Get("error") == "") {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			if q.Get("error") != "" {
				fmt.Fprintf(w, "<p>wield was not authorized: %s. You may close this page.</p>", html.EscapeString(q.Get("error")))
			} else {
				fmt.Fprint(w, "<p>wield is authorized. You may close this page.</p>")
			}
			select {
			case got <- q:
			default:
			}
		})}
		served := make(chan struct{})
		go func() { srv.Serve(ln); close(served) }()
		defer func() {
			if held != nil { // wake the Accept on the held listener, which Shutdown waits for
				held.SetDeadline(time.Now())
			}
			// The answer reaches this flow from inside the handler, before the browser has its
			// page: let that page be written before the connections close.
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			srv.Shutdown(sctx)
			cancel()
			srv.Close()
			<-served
			if held != nil {
				held.SetDeadline(time.Time{})
			}
		}()

		a.errMu.Lock()
		fmt.Fprintf(a.stderr, "wield: to authorize wield with MCP server %s, open this address in a browser:\n  %s\n", safeLine(name), safeLine(args.URL))
		a.errMu.Unlock()
		if browser != "" {
			cmd := exec.CommandContext(ctx, browser, args.URL)
			if err := cmd.Start(); err != nil {
				a.warnf("$BROWSER: %v", err)
			} else {
				go cmd.Wait()
			}
		}
		wait := time.NewTimer(oauthWait)
		defer wait.Stop()
		select {
		case q := <-got:
			if e := q.Get("error"); e != "" {
				msg := e
				if d := q.Get("error_description"); d != "" {
					msg += ": " + d
				}
				return nil, fmt.Errorf("the authorization server refused: %s", safeLine(oneLine(msg, 300)))
			}
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		case <-wait.C:
			return nil, fmt.Errorf("no answer at %s within %v", redirect, oauthWait)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// shellQuote writes s as a shell word.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(safeLine(s), "'", `'\''`) + "'"
}

func (a *app) mcpLoginCommand() *cobra.Command {
	var f toolFlags
	cmd := &cobra.Command{
		Use:   "login SERVER",
		Short: "Authorize wield with an MCP server that names \"oauth\" in its configuration",
		Long: `login runs the OAuth authorization-code flow with the MCP server SERVER, whose mcpServers entry
names "oauth": it prints an address to open in a browser (on any machine whose browser can reach
back to this one's loopback redirect; $BROWSER, when set, is run with it), waits for the
authorization server to redirect back with the code, and keeps the tokens in the state directory
(mode 0600). Later commands use them, refreshing the access token when it expires.

An entry's "oauth" is true, or an object:
  "clientId"          a client registered beforehand (else wield registers itself)
  "clientSecretEnv"   the environment variable holding that client's secret
  "clientMetadataUrl" an https URL of a client ID metadata document for wield
  "scopes"            the scopes to ask for instead of those the server names
  "redirectUrl"       the loopback redirect (default http://127.0.0.1:PORT/callback, a free port)`,
		Example: `  # {"mcpServers": {"remote": {"url": "https://mcp.example.com/mcp", "oauth": {"scopes": ["read"]}}}}
  wield mcp login remote`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.mcpLogin(cmd.Context(), f, args[0])
		},
	}
	cmd.Flags().StringVar(&f.mcpConfig, "mcp-config", "", "the MCP servers of `FILE` instead of the configuration file's")
	return cmd
}

func (a *app) mcpLogin(ctx context.Context, f toolFlags, name string) error {
	servers, from, err := a.mcpServersFor(f, oauthLogin)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(servers, func(s mcp.ServerConfig) bool { return s.Name == name })
	if i < 0 {
		return usagef("no MCP server %q in %s", safeLine(name), from)
	}
	s := servers[i]
	if s.OAuth == nil {
		return usagef("MCP server %s has no \"oauth\" in %s", safeLine(name), from)
	}
	path, err := a.tokenPath(s.Name, s.URL)
	if err != nil {
		return err
	}
	var before time.Time
	if fi, err := os.Stat(path); err == nil {
		before = fi.ModTime()
	}
	s.Logger = a.logger()
	s.ConnectTimeout = oauthWait + time.Minute
	c, err := mcp.Connect(ctx, s)
	if err != nil {
		return err
	}
	defer c.Close()
	if fi, err := os.Stat(path); err != nil || !fi.ModTime().After(before) {
		fmt.Fprintf(a.stderr, "wield: MCP server %s answered without asking for authorization; nothing kept\n", safeLine(name))
		return nil
	}
	fmt.Fprintf(a.stderr, "wield: authorized with MCP server %s; its tokens are in %s\n", safeLine(name), path)
	return nil
}

// keptListener serves a flow on the held listener without closing it when the flow ends.
type keptListener struct{ *net.TCPListener }

func (keptListener) Close() error { return nil }
