package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/wield-ai/wield/internal/version"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
)

func (a *app) mcpCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve tools over the Model Context Protocol, and log in to MCP servers",
		Example: `  wield mcp serve
  wield mcp login remote
  wield mcp serve --http 127.0.0.1:8080 --mcp-config mcp.json --tool-search`,
	}
	cmd.AddCommand(a.mcpServeCommand(), a.mcpLoginCommand())
	return groupCommand(cmd)
}

// serveFlags are the flags of wield mcp serve.
type serveFlags struct {
	tools           toolFlags
	toolSearch      bool
	addr            string
	sessionTimeout  time.Duration
	maxSessions     int
	maxCalls        int
	maxRequestBytes int64
	allowOrigins    []string
	authToken       string
	allowNoAuth     bool
}

// tokenEnv is the environment variable holding the bearer token of wield mcp serve --http.
const tokenEnv = "WIELD_MCP_TOKEN"

func (a *app) mcpServeCommand() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the built-in tools and those of --mcp-config servers as an MCP server",
		Long: `serve makes wield an MCP server offering the built-in tools (unless --builtin=false) and the
tools of the MCP servers in --mcp-config, so any MCP client (Claude Desktop, Claude Code, Cursor,
an agent) can use them. It speaks stdio by default, or streamable HTTP with --http ADDRESS (the
endpoint is the server's root path).

With --tool-search it lists a single tool, toolSearchTool: each search adds the tools it finds to
the session's tool list and tells the client so (notifications/tools/list_changed).

Over HTTP, sessions idle for --session-timeout are closed and at most --max-sessions are open at
once; request bodies are capped at --max-request-bytes, and a client too slow to send or receive
is cut off. Over either transport, at most --max-calls tool calls run at once; a call beyond them
is refused with a result saying the server is busy. Browsers may call only from the server's own origin and those --allow-origin lists.
With --auth-token TOKEN (or $` + tokenEnv + `) every request must carry "Authorization: Bearer
TOKEN". An address other than loopback (such as 0.0.0.0:8080) needs a token, unless
--allow-unauthenticated says that anyone who can reach it may call every tool.`,
		Example: `  # in an MCP client's configuration: {"command": "wield", "args": ["mcp", "serve"]}
  wield mcp serve
  wield mcp serve --http 127.0.0.1:8080
  ` + tokenEnv + `=s3cret wield mcp serve --http 0.0.0.0:8080 --allow-origin https://app.example.com
  wield mcp serve --mcp-config mcp.json --tool-search`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if f.authToken == "" {
				f.authToken = a.getenv(tokenEnv)
			}
			opts, err := f.httpOptions()
			if err != nil {
				return err
			}
			if f.maxCalls < 0 {
				return usagef("--max-calls must not be negative")
			}
			c, err := a.loadCatalog(ctx, f.tools, a.serverAlarm)
			if err != nil {
				return err
			}
			defer c.Close()
			if len(c.tools) == 0 {
				return usagef("no tools to serve: --builtin=false and no --mcp-config")
			}
			srv, err := a.mcpServer(ctx, c, f.toolSearch, f.maxCalls, opts)
			if err != nil {
				return err
			}
			if f.addr == "" {
				t := &mcp.StdioTransport{Reader: a.stdin, Writer: a.stdout, Logger: a.logger()}
				if err := srv.Run(ctx, t); err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
					return err
				}
				return nil
			}
			return a.serveHTTP(ctx, f.addr, srv, opts)
		},
	}
	f.tools.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "http", "", "serve streamable HTTP on `ADDRESS` (such as 127.0.0.1:8080) instead of stdio")
	fl.BoolVar(&f.toolSearch, "tool-search", false, "list only a search tool; the tools each search finds are added to the session")
	fl.DurationVar(&f.sessionTimeout, "session-timeout", mcp.DefaultSessionTimeout, "with --http, close a session idle for `DURATION` (0: never)")
	fl.IntVar(&f.maxSessions, "max-sessions", mcp.DefaultMaxSessions, "with --http, refuse new sessions while `N` are open (0: no limit)")
	fl.IntVar(&f.maxCalls, "max-calls", mcp.DefaultMaxConcurrentCalls, "run at most `N` tool calls at once, refusing more as busy (0: no limit)")
	fl.Int64Var(&f.maxRequestBytes, "max-request-bytes", mcp.DefaultMaxRequestBytes, "with --http, refuse request bodies larger than `N` bytes")
	fl.StringSliceVar(&f.allowOrigins, "allow-origin", nil, "with --http, let browsers on `ORIGIN` (https://host[:port]) call the server; repeatable")
	fl.StringVar(&f.authToken, "auth-token", "", "with --http, require \"Authorization: Bearer `TOKEN`\" on every request (default $"+tokenEnv+")")
	fl.BoolVar(&f.allowNoAuth, "allow-unauthenticated", false, "with --http, serve an address other than loopback without --auth-token")
	return cmd
}

// httpOptions turns the flags into the library's HTTP options.
func (f *serveFlags) httpOptions() (*mcp.HTTPOptions, error) {
	if f.maxRequestBytes <= 0 {
		return nil, usagef("--max-request-bytes must be positive")
	}
	if f.maxSessions < 0 {
		return nil, usagef("--max-sessions must not be negative")
	}
	opts := &mcp.HTTPOptions{
		SessionTimeout:             f.sessionTimeout,
		MaxSessions:                f.maxSessions,
		MaxRequestBytes:            f.maxRequestBytes,
		AllowedOrigins:             f.allowOrigins,
		AllowUnauthenticatedRemote: f.allowNoAuth,
	}
	if f.sessionTimeout == 0 {
		opts.SessionTimeout = -1 // the flag's 0 means never
	}
	if f.maxSessions == 0 {
		opts.MaxSessions = -1
	}
	if f.authToken != "" {
		opts.TokenVerifier = mcp.StaticToken(f.authToken)
	}
	return opts, nil
}

// implementation names wield to MCP clients, with the version wield version shows (the commit
// too for a build from a working tree: devel+abc123).
func implementation() *sdk.Implementation {
	return &sdk.Implementation{Name: "wield", Version: version.Get().Short()}
}

// mcpServer returns the server: the catalog's tools, or the search tool. Its schemas are
// compiled once, here; with --tool-search over HTTP, each session gets a server of its own (its
// tool list grows with its searches), sharing the search index, which is built once. maxCalls
// caps the calls a server runs at once (0: no cap).
func (a *app) mcpServer(ctx context.Context, c *catalog, toolSearch bool, maxCalls int, opts *mcp.HTTPOptions) (*mcp.Server, error) {
	so := mcp.ServerOptions{Implementation: implementation(), Logger: a.logger(), MaxConcurrentCalls: maxCalls}
	if maxCalls == 0 {
		so.MaxConcurrentCalls = -1 // the flag's 0 means no cap
	}
	if !toolSearch {
		return mcp.Start(so, c.tools...)
	}
	ix, err := newSearchIndex(ctx, c)
	if err != nil {
		return nil, err
	}
	newServer := func() (*mcp.Server, error) {
		srv, err := mcp.Start(so)
		if err != nil {
			return nil, err
		}
		search, err := ix.tool(srv.AddTools)
		if err != nil {
			return nil, err
		}
		if err := srv.AddTools(search); err != nil {
			return nil, err
		}
		return srv, nil
	}
	if opts != nil {
		opts.SessionServer = func(*http.Request) (*mcp.Server, error) { return newServer() }
	}
	return newServer()
}

// searchIndex is the catalog's keyword index, shared by every session's search tool.
type searchIndex struct {
	c  *catalog
	ix *toolsearch.KeywordIndex
}

// searchSession is the index's session name: the catalog is the same for every MCP session.
const searchSession = "mcp"

func newSearchIndex(ctx context.Context, c *catalog) (*searchIndex, error) {
	ix := toolsearch.NewKeywordIndex(nil)
	if err := ix.IndexTools(ctx, searchSession, c.definitions()); err != nil {
		return nil, err
	}
	return &searchIndex{c: c, ix: ix}, nil
}

// searchInput is what toolSearchTool takes.
type searchInput struct {
	Query      string `json:"query"`
	MaxResults int    `json:"maxResults,omitempty"`
}

// tool returns toolSearchTool for one session: it searches the index and hands the tools found,
// once each, to add.
func (sx *searchIndex) tool(add func(...tool.Tool) error) (tool.Tool, error) {
	c, ix, session := sx.c, sx.ix, searchSession
	var (
		mu    sync.Mutex
		added = map[string]bool{}
	)
	def := toolsearch.SearchToolDefinition("")
	return tool.Func(def.Name, "Search the catalog of tools you can use. Describe the capability you need in a few "+
		"keywords (for example \"weather forecast city\"); the tools found are added to your tool list. Search again "+
		"with other words if none fits.",
		func(ctx context.Context, in searchInput) (string, error) {
			hits, err := ix.Search(ctx, toolsearch.SearchRequest{Session: session, Query: in.Query, MaxResults: in.MaxResults})
			if err != nil {
				return "", err
			}
			if len(hits) == 0 {
				return "No tool matches " + fmt.Sprintf("%q", in.Query) + "; search again with other words.", nil
			}
			mu.Lock()
			defer mu.Unlock()
			var fresh []tool.Tool
			var b strings.Builder
			b.WriteString("Tools found, now in your tool list:\n")
			for _, h := range hits {
				t, err := c.lookup(h.Name)
				if err != nil {
					return "", err
				}
				if !added[h.Name] {
					fresh = append(fresh, t)
				}
				fmt.Fprintf(&b, "- %s: %s\n", h.Name, firstLine(t.Definition().Description))
			}
			if err := add(fresh...); err != nil {
				return "", err
			}
			for _, t := range fresh {
				added[t.Definition().Name] = true
			}
			return b.String(), nil
		}, tool.WithInputSchema(def.InputSchema), tool.ReadOnly(), tool.OpenWorld(false))
}

// serveHTTP serves streamable HTTP on addr until ctx ends.
func (a *app) serveHTTP(ctx context.Context, addr string, srv *mcp.Server, opts *mcp.HTTPOptions) error {
	if _, err := srv.Handler(opts); err != nil { // the options' own mistakes, before listening
		return usageError{err}
	}
	// Checked before listening, so that nothing is exposed even for a moment; Serve checks the
	// address listened on again.
	if opts.TokenVerifier == nil && !opts.AllowUnauthenticatedRemote && !loopbackAddress(ctx, addr) {
		return usagef("--http %s is reachable from other machines: set --auth-token (or $%s), or pass --allow-unauthenticated to let anyone who can reach it call every tool", addr, tokenEnv)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usagef("--http %s: %v", addr, err)
	}
	fmt.Fprintf(a.stderr, "wield: serving MCP on http://%s/\n", ln.Addr())
	if opts.TokenVerifier != nil {
		fmt.Fprintf(a.stderr, "wield: clients must send \"Authorization: Bearer TOKEN\" with the token given\n")
	}
	err = srv.Serve(ctx, ln, opts)
	if errors.Is(err, mcp.ErrUnauthenticatedRemote) {
		return usagef("--http %s: %v; set --auth-token (or $%s), or pass --allow-unauthenticated", addr, err, tokenEnv)
	}
	return err
}

// loopbackAddress reports whether a listening address (host:port) names only loopback
// addresses: a loopback IP, or a host name all of whose addresses are loopback ("localhost").
// An empty host means every interface.
func loopbackAddress(ctx context.Context, addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil || len(ips) == 0 {
		return false
	}
	for _, ip := range ips {
		if !ip.IP.IsLoopback() {
			return false
		}
	}
	return true
}

// logger is where the library's warnings go: stderr, as text.
func (a *app) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
