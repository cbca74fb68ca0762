package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/wield-ai/wield/mcp"
)

// mcpServers are the MCP servers a command offers the tools of: --mcp-config's, else the
// configuration file's. from names where they came from, for messages. A server with "oauth"
// carries its authorization handler, with the tokens kept from wield mcp login.
func (a *app) mcpServers(f toolFlags) (servers []mcp.ServerConfig, from string, err error) {
	return a.mcpServersFor(f, oauthIfAttended)
}

func (a *app) mcpServersFor(f toolFlags, mode oauthMode) (servers []mcp.ServerConfig, from string, err error) {
	var entries map[string]*oauthConfig
	if f.mcpConfig != "" {
		data, err := readJSONFile(f.mcpConfig)
		if err != nil {
			return nil, "", fmt.Errorf("--mcp-config: %w", err)
		}
		servers, err = mcp.ParseConfig(data)
		if err == nil {
			entries, err = parseOAuth(data, servers)
		}
		if err != nil {
			return nil, "", fmt.Errorf("--mcp-config: %w (in %s)", err, f.mcpConfig)
		}
		from = "--mcp-config " + f.mcpConfig
	} else {
		cfg, err := a.loadConfig()
		if err != nil {
			return nil, "", err
		}
		servers, entries, from = slices.Clone(cfg.mcp), cfg.oauth, "the configuration file"
	}
	if err := a.withOAuth(servers, entries, mode); err != nil {
		return nil, "", fmt.Errorf("%s: %w", from, err)
	}
	return servers, from, nil
}

// startMCP starts the servers side by side with mcp.ConnectAll, the command's one MCP loader, and
// adds their tools to c. On a terminal a status line tells which are still starting. A server
// that fails is reported, with the last lines it wrote to standard error, and the others go on.
func (a *app) startMCP(ctx context.Context, c *catalog, servers []mcp.ServerConfig, from string) error {
	for i := range servers {
		servers[i].Logger = a.logger()
	}
	status := a.newStatusLine(len(servers))
	set, err := mcp.ConnectAll(ctx, servers, mcp.OnStatus(func(s mcp.Status) {
		switch s.State {
		case mcp.Starting:
			status.starting(s.Server)
		case mcp.Ready, mcp.Failed:
			status.done(s.Server)
		}
	}))
	status.clear()
	if err != nil {
		return err
	}
	c.closers = append(c.closers, set.Close)
	for _, f := range set.Failed() {
		a.warnf("MCP server %s (%s) failed to start; going on without it: %s", safeLine(f.Server), from, safeLine(oneLine(f.Err.Error(), 300)))
		for _, line := range strings.Split(f.Stderr, "\n") {
			if strings.TrimSpace(line) != "" {
				a.warnf("  %s | %s", safeLine(f.Server), safeLine(line))
			}
		}
	}
	for _, cl := range set.Clients() {
		if c.mcp == nil {
			c.mcp = map[string]*mcp.Client{}
		}
		c.mcp[cl.Name()] = cl
		tools, err := cl.Tools(ctx)
		if err != nil {
			return fmt.Errorf("%s: MCP server %s: %w", from, safeLine(cl.Name()), err)
		}
		if err := c.add("mcp:"+cl.Name(), tools); err != nil {
			return err
		}
	}
	return nil
}

// warnf prints a warning on stderr, whatever the display.
func (a *app) warnf(format string, args ...any) {
	a.errMu.Lock()
	defer a.errMu.Unlock()
	fmt.Fprintf(a.stderr, "wield: "+format+"\n", args...)
}

// statusLine shows, on a terminal, which MCP servers are still starting.
type statusLine struct {
	a        *app
	mu       sync.Mutex
	on       bool
	total    int
	pending  []string
	finished int
}

func (a *app) newStatusLine(total int) *statusLine {
	return &statusLine{a: a, on: a.stderrTTY, total: total}
}

func (s *statusLine) starting(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(s.pending, name)
	s.draw()
}

func (s *statusLine) done(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, n := range s.pending {
		if n == name {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			break
		}
	}
	s.finished++
	s.draw()
}

func (s *statusLine) draw() {
	if !s.on || len(s.pending) == 0 {
		return
	}
	names := make([]string, len(s.pending))
	for i, n := range s.pending {
		names[i] = safeLine(n)
	}
	line := fmt.Sprintf("starting MCP servers (%d of %d ready): %s…", s.finished, s.total, strings.Join(names, ", "))
	s.a.errMu.Lock()
	fmt.Fprint(s.a.stderr, clearLine+s.a.paint(ansiDim, oneLine(line, 100)))
	s.a.errMu.Unlock()
}

func (s *statusLine) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on && s.total > 0 {
		s.a.errMu.Lock()
		fmt.Fprint(s.a.stderr, clearLine)
		s.a.errMu.Unlock()
	}
}
