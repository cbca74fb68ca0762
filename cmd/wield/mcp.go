package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/wield-ai/wield/cmd/wield/internal/builtin"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
)

func (a *app) mcpCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve tools over the Model Context Protocol",
		Example: `  wield mcp serve
  wield mcp serve --http 127.0.0.1:8080 --mcp-config mcp.json --tool-search`,
	}
	cmd.AddCommand(a.mcpServeCommand())
	return groupCommand(cmd)
}

func (a *app) mcpServeCommand() *cobra.Command {
	var (
		flags      toolFlags
		addr       string
		toolSearch bool
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the built-in tools and those of --mcp-config servers as an MCP server",
		Long: `serve makes wield an MCP server offering the built-in tools (unless --builtin=false) and the
tools of the MCP servers in --mcp-config, so any MCP client (Claude Desktop, Claude Code, Cursor,
an agent) can use them. It speaks stdio by default, or streamable HTTP with --http ADDRESS (the
endpoint is the server's root path).

With --tool-search it lists a single tool, toolSearchTool: each search adds the tools it finds to
the session's tool list and tells the client so (notifications/tools/list_changed).`,
		Example: `  # in an MCP client's configuration: {"command": "wield", "args": ["mcp", "serve"]}
  wield mcp serve
  wield mcp serve --http 127.0.0.1:8080
  wield mcp serve --mcp-config mcp.json --tool-search`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			// The server runs on, so its alarms ring: on standard error, for whoever runs it.
			c, err := a.loadCatalog(ctx, flags, func(al builtin.Alarm) {
				fmt.Fprintf(a.stderr, "wield: alarm %q rings (%s)\n", al.Label, al.At.Format(time.RFC3339))
			})
			if err != nil {
				return err
			}
			defer c.Close()
			if len(c.tools) == 0 {
				return usagef("no tools to serve: --builtin=false and no --mcp-config")
			}
			newServer := func() (*sdk.Server, error) { return a.mcpServer(ctx, c, toolSearch) }
			if addr == "" {
				srv, err := newServer()
				if err != nil {
					return err
				}
				t := &sdk.IOTransport{Reader: io.NopCloser(a.stdin), Writer: nopWriteCloser{a.stdout}}
				if err := srv.Run(ctx, t); err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
					return err
				}
				return nil
			}
			return a.serveHTTP(ctx, addr, newServer)
		},
	}
	flags.register(cmd)
	cmd.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on `ADDRESS` (such as 127.0.0.1:8080) instead of stdio")
	cmd.Flags().BoolVar(&toolSearch, "tool-search", false, "list only a search tool; the tools each search finds are added to the session")
	return cmd
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// implementation names wield to MCP clients.
func implementation() *sdk.Implementation {
	version := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	return &sdk.Implementation{Name: "wield", Version: version}
}

// mcpServer returns a server for one session: the catalog's tools, or the search tool.
func (a *app) mcpServer(ctx context.Context, c *catalog, toolSearch bool) (*sdk.Server, error) {
	if !toolSearch {
		return mcp.NewServer(implementation(), nil, c.tools...)
	}
	srv, err := mcp.NewServer(implementation(), nil)
	if err != nil {
		return nil, err
	}
	search, err := newSearchTool(ctx, c, func(found []tool.Tool) error { return mcp.AddTools(srv, found...) })
	if err != nil {
		return nil, err
	}
	if err := mcp.AddTools(srv, search); err != nil {
		return nil, err
	}
	return srv, nil
}

// searchInput is what toolSearchTool takes.
type searchInput struct {
	Query      string `json:"query"`
	MaxResults int    `json:"maxResults,omitempty"`
}

// newSearchTool returns toolSearchTool over the catalog: it searches the keyword index and hands
// the tools found, once each, to add.
func newSearchTool(ctx context.Context, c *catalog, add func([]tool.Tool) error) (tool.Tool, error) {
	ix := toolsearch.NewKeywordIndex(nil)
	const session = "mcp"
	if err := ix.IndexTools(ctx, session, c.definitions()); err != nil {
		return nil, err
	}
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
			if err := add(fresh); err != nil {
				return "", err
			}
			for _, t := range fresh {
				added[t.Definition().Name] = true
			}
			return b.String(), nil
		}, tool.WithInputSchema(def.InputSchema))
}

// serveHTTP serves streamable HTTP on addr until ctx ends.
func (a *app) serveHTTP(ctx context.Context, addr string, newServer func() (*sdk.Server, error)) error {
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server {
		srv, err := newServer()
		if err != nil {
			fmt.Fprintf(a.stderr, "wield: %v\n", err)
			return nil // the client gets 400 Bad Request
		}
		return srv
	}, nil)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usagef("--http %s: %v", addr, err)
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(a.stderr, "wield: serving MCP on http://%s/\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		hs.Shutdown(shutdown)
		return nil
	}
}
