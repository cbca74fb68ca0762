package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// configFile is the configuration file format Claude Desktop, Claude Code and Cursor write
// ("mcpServers") and VS Code writes ("servers").
type configFile struct {
	MCPServers map[string]json.RawMessage `json:"mcpServers"`
	Servers    map[string]json.RawMessage `json:"servers"`
}

type configServer struct {
	Type     string            `json:"type"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	Cwd      string            `json:"cwd"`
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers"`
	Disabled bool              `json:"disabled"`
}

// ParseConfig reads a configuration file in the common format, as Claude Desktop, Claude Code,
// Cursor and VS Code write it, and returns its servers sorted by name:
//
//	{"mcpServers": {
//	    "files":  {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
//	               "env": {"DEBUG": "1"}},
//	    "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}},
//	    "legacy": {"type": "sse", "url": "https://example.com/sse"}
//	}}
//
// The top-level key may also be "servers" (VS Code). "type" is optional: "stdio", "http" (also
// spelled "streamable-http" or "streamableHttp") or "sse"; without it a command means stdio and a
// url means streamable HTTP with a fallback to SSE. Servers with "disabled": true are left out.
// In strings, ${env:NAME} and ${NAME} are replaced by environment variables, and ${NAME:-default}
// by the variable or the default; a variable that is not set is an error. Other keys are ignored.
func ParseConfig(data []byte) ([]ServerConfig, error) {
	var f configFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("mcp: configuration: %w", err)
	}
	entries := f.MCPServers
	if entries == nil {
		entries = f.Servers
	}
	if entries == nil {
		return nil, errors.New(`mcp: configuration has neither "mcpServers" nor "servers"`)
	}
	var out []ServerConfig
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		var s configServer
		if err := json.Unmarshal(entries[name], &s); err != nil {
			return nil, fmt.Errorf("mcp: configuration of server %q: %w", name, err)
		}
		if s.Disabled {
			continue
		}
		cfg, err := s.serverConfig(name)
		if err != nil {
			return nil, err
		}
		out = append(out, cfg)
	}
	return out, nil
}

// LoadConfig reads the configuration file at path; see [ParseConfig].
func LoadConfig(path string) ([]ServerConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	cfgs, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return cfgs, nil
}

// Open loads the configuration file at path and connects to all its servers: a [Toolset] over
// every server's tools, to be closed when done. To set prefixes, filters or timeouts, use
// [LoadConfig], adjust the configurations, and call [ConnectAll].
func Open(ctx context.Context, path string) (*Toolset, error) {
	cfgs, err := LoadConfig(path)
	if err != nil {
		return nil, err
	}
	return ConnectAll(ctx, cfgs...)
}

// ConnectAll connects to every server concurrently and returns a [Toolset] over them. If any
// server cannot be reached, the others are closed and the error names each failed server.
func ConnectAll(ctx context.Context, cfgs ...ServerConfig) (*Toolset, error) {
	clients := make([]*Client, len(cfgs))
	errs := make([]error, len(cfgs))
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		wg.Go(func() { clients[i], errs[i] = Connect(ctx, cfg) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, c := range clients {
			if c != nil {
				c.Close()
			}
		}
		return nil, err
	}
	return Tools(clients...), nil
}

func (s *configServer) serverConfig(name string) (ServerConfig, error) {
	cfg := ServerConfig{Name: name}
	switch s.Type {
	case "", TypeStdio, TypeSSE:
		cfg.Type = s.Type
	case TypeHTTP, "streamable-http", "streamableHttp", "streamable_http":
		cfg.Type = TypeHTTP
	default:
		return cfg, fmt.Errorf("mcp: configuration of server %q: unknown type %q", name, s.Type)
	}
	var err error
	expand := func(v string) string {
		if err != nil {
			return v
		}
		var out string
		out, err = expandVars(v)
		if err != nil {
			err = fmt.Errorf("mcp: configuration of server %q: %w", name, err)
		}
		return out
	}
	cfg.Command = expand(s.Command)
	for _, a := range s.Args {
		cfg.Args = append(cfg.Args, expand(a))
	}
	if len(s.Env) > 0 {
		cfg.Env = make(map[string]string, len(s.Env))
		for k, v := range s.Env {
			cfg.Env[k] = expand(v)
		}
	}
	cfg.Dir = expand(s.Cwd)
	cfg.URL = expand(s.URL)
	if len(s.Headers) > 0 {
		cfg.Headers = make(map[string]string, len(s.Headers))
		for k, v := range s.Headers {
			cfg.Headers[k] = expand(v)
		}
	}
	if err != nil {
		return cfg, err
	}
	return cfg, cfg.validate()
}

var varRef = regexp.MustCompile(`\$\{([^}]*)\}`)

// expandVars replaces ${env:NAME}, ${NAME} and ${NAME:-default} in v.
func expandVars(v string) (string, error) {
	var err error
	out := varRef.ReplaceAllStringFunc(v, func(ref string) string {
		body := ref[2 : len(ref)-1]
		name, def, hasDef := strings.Cut(body, ":-")
		if rest, ok := strings.CutPrefix(name, "env:"); ok {
			name = rest
		} else if strings.HasPrefix(name, "input:") {
			if err == nil {
				err = fmt.Errorf("%s: input variables are not supported; use an environment variable", ref)
			}
			return ref
		}
		if val, ok := os.LookupEnv(name); ok && (val != "" || !hasDef) {
			return val
		}
		if hasDef {
			return def
		}
		if err == nil {
			err = fmt.Errorf("%s: environment variable %s is not set", ref, name)
		}
		return ref
	})
	return out, err
}
