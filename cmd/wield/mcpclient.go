package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/tool"
)

// mcpServers are the MCP servers a command offers the tools of: --mcp-config's, else the
// configuration file's. from names where they came from, for messages.
func (a *app) mcpServers(f toolFlags) (servers []mcp.ServerConfig, from string, err error) {
	if f.mcpConfig != "" {
		servers, err := mcp.LoadConfig(f.mcpConfig)
		if err != nil {
			return nil, "", fmt.Errorf("--mcp-config: %w", err)
		}
		return servers, "--mcp-config " + f.mcpConfig, nil
	}
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, "", err
	}
	return cfg.mcp, "the configuration file", nil
}

// stderrTailLines is how much of a failed server's standard error is shown.
const stderrTailLines = 8

// connectMCP starts the servers side by side and adds their tools to c. On a terminal a status
// line tells which are still starting. A server that fails is reported, with the last lines it
// wrote to standard error, and the others go on.
func (a *app) connectMCP(ctx context.Context, c *catalog, servers []mcp.ServerConfig, from string) error {
	type started struct {
		client *mcp.Client
		tools  []tool.Tool
		err    error
		stderr *tailBuffer
	}
	results := make([]started, len(servers))
	status := a.newStatusLine(len(servers))
	var wg sync.WaitGroup
	for i, cfg := range servers {
		tail := &tailBuffer{max: 16 << 10}
		if cfg.Stderr == nil && cfg.Command != "" {
			cfg.Stderr = tail
		}
		results[i].stderr = tail
		status.starting(cfg.Name)
		wg.Go(func() {
			defer status.done(cfg.Name)
			cl, err := mcp.Connect(ctx, cfg)
			if err != nil {
				results[i].err = err
				return
			}
			tools, err := cl.Tools(ctx)
			if err != nil {
				cl.Close()
				results[i].err = err
				return
			}
			results[i].client, results[i].tools = cl, tools
		})
	}
	wg.Wait()
	status.clear()
	if err := ctx.Err(); err != nil {
		for _, r := range results {
			if r.client != nil {
				r.client.Close()
			}
		}
		return err
	}
	for i, r := range results {
		name := safeLine(servers[i].Name)
		if r.err != nil {
			a.warnf("the MCP server %s (%s) failed to start: %s", name, from, safeLine(oneLine(r.err.Error(), 300)))
			for _, line := range r.stderr.lines(stderrTailLines) {
				a.warnf("  %s | %s", name, safeLine(line))
			}
			continue
		}
		c.closers = append(c.closers, r.client.Close)
		if err := c.add("mcp:"+servers[i].Name, r.tools); err != nil {
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

// tailBuffer keeps the last bytes written to it: a server's standard error, for when it fails.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// lines returns the last n non-empty lines written.
func (t *tailBuffer) lines(n int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, l := range bytes.Split(t.buf, []byte("\n")) {
		if s := strings.TrimRight(string(l), "\r"); strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}
