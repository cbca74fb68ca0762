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
	"time"

	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/orderedjson"
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

	Prefix       string       `json:"prefix"`
	Include      []string     `json:"include"`
	Exclude      []string     `json:"exclude"`
	IncludeTools []string     `json:"includeTools"` // Gemini CLI's spelling
	ExcludeTools []string     `json:"excludeTools"`
	Timeout      *fileTimeout `json:"timeout"`
	MaxCallTime  *fileMaxTime `json:"maxCallTime"`
}

// fileTimeout and fileMaxTime are durations in a configuration file: a number of milliseconds,
// as Gemini CLI writes them, or a Go duration string such as "90s" or "2m".
type (
	fileTimeout time.Duration
	fileMaxTime time.Duration
)

func (d *fileTimeout) UnmarshalJSON(data []byte) error {
	v, err := fileDuration(data, "timeout")
	*d = fileTimeout(v)
	return err
}

func (d *fileMaxTime) UnmarshalJSON(data []byte) error {
	v, err := fileDuration(data, "maxCallTime")
	*d = fileMaxTime(v)
	return err
}

// fileDuration reads the duration of key.
func fileDuration(data []byte, key string) (time.Duration, error) {
	var ms float64
	if err := json.Unmarshal(data, &ms); err == nil {
		return time.Duration(ms * float64(time.Millisecond)), nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return 0, fmt.Errorf(`%q must be a number of milliseconds or a duration such as "90s"`, key)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf(`%q: %w`, key, err)
	}
	return v, nil
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
//
// Keys of wield's own set how a server's tools are offered (see [ServerConfig]):
//
//	"prefix":  "gh_"                   put before each tool name, to keep two servers' tools apart
//	"include": ["read_*", "list_*"]    offer only the tools matching a pattern (also "includeTools")
//	"exclude": ["delete_*"]            never offer these (also "excludeTools")
//	"timeout": 120000                  how long a call may go without word from the server, in
//	                                   milliseconds or as a duration ("2m"); default 1m, 0 for
//	                                   none (see [DefaultTimeout])
//	"maxCallTime": "2h"                how long a call may run however often the server reports
//	                                   progress, likewise; default 1h, 0 for none (see
//	                                   [DefaultMaxCallTime])
//
// In strings, ${env:NAME} and ${NAME} are replaced by environment variables, and ${NAME:-default}
// by the variable or the default; a variable that is not set is an error. Other keys are ignored;
// a key given twice, and strings, lists or nesting far past any real file's, are refused.
func ParseConfig(data []byte) ([]ServerConfig, error) {
	if err := orderedjson.Check(data, orderedjson.ConfigBounds); err != nil {
		return nil, fmt.Errorf("mcp: configuration: %w", err)
	}
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

// maxConfigBytes bounds a configuration file LoadConfig reads: a path like /dev/zero must not
// grow until memory runs out.
const maxConfigBytes = 1 << 20

// LoadConfig reads the configuration file at path (a regular file or a pipe, at most 1 MiB);
// see [ParseConfig], which refuses a member given twice.
func LoadConfig(path string) ([]ServerConfig, error) {
	data, err := content.ReadBytes(path, maxConfigBytes)
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
// every server's tools, to be closed when done. Any server failing to start fails Open.
//
// Deprecated: use [LoadConfig] and [ConnectAll], which goes on without a server that fails and
// reports it in [Toolset.Failed] ([RequireAll] gives this all-or-nothing contract).
func Open(ctx context.Context, path string) (*Toolset, error) {
	cfgs, err := LoadConfig(path)
	if err != nil {
		return nil, err
	}
	return ConnectAll(ctx, cfgs, RequireAll())
}

// State is where a server stands while [ConnectAll] starts it.
type State int

// The states of a server reported by [ConnectAll], in the order a server goes through them.
const (
	// Starting: the server is being started (a stdio command) or reached (a URL).
	Starting State = iota + 1
	// Ready: the server answered and listed its tools.
	Ready
	// Failed: the server did not start, or did not list its tools; Status.Err says why.
	Failed
)

// String names the state.
func (s State) String() string {
	switch s {
	case Starting:
		return "starting"
	case Ready:
		return "ready"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Status is a change in a server's state while [ConnectAll] starts it.
type Status struct {
	// Server is the server's name.
	Server string
	// State is its new state.
	State State
	// Tools is, when Ready, how many tools it offers (after Include, Exclude and renaming).
	Tools int
	// Err is, when Failed, why.
	Err *StartError
	// Elapsed is the time since the server began starting.
	Elapsed time.Duration
}

// StartError reports a server that did not start: it could not be run or reached, did not
// complete the MCP handshake in time, or failed to list its tools.
type StartError struct {
	// Server is the server's name.
	Server string
	// Err is the cause; its text names the server.
	Err error
	// Stderr is, for a stdio server, the last lines it wrote on standard error (at most a few
	// kilobytes), with control characters escaped so that it is safe to print.
	Stderr string
}

// Error returns the cause, followed by the server's last lines of standard error if any.
func (e *StartError) Error() string {
	if e.Stderr == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + "; its standard error ended with:\n    " + strings.ReplaceAll(e.Stderr, "\n", "\n    ")
}

// Unwrap returns the cause.
func (e *StartError) Unwrap() error { return e.Err }

// ConnectAll connects to the servers concurrently and lists their tools, and returns a [Toolset]
// over those that started. A server that fails does not stop the others: the Toolset's Failed
// method returns its [*StartError], with the end of its standard error for a stdio server, and
// [OnStatus], if given, hears of it at once. With [RequireAll], any failure closes the others and
// is the error, joining a *StartError per failed server; with [Deferred], nothing is connected
// until used and no server fails here. Otherwise the error is non-nil only when ctx ends first;
// every server is then closed.
func ConnectAll(ctx context.Context, cfgs []ServerConfig, opts ...ConnectOption) (*Toolset, error) {
	o := connectOpts(opts)
	clients := make([]*Client, len(cfgs))
	errs := make([]*StartError, len(cfgs))
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		if o.deferred {
			c, err := newClient(cfg)
			if err != nil {
				for _, c := range clients[:i] {
					c.Close()
				}
				return nil, err
			}
			clients[i] = c
			continue
		}
		wg.Go(func() { clients[i], errs[i] = start(ctx, cfg, o.onStatus) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil && !o.deferred {
		for _, c := range clients {
			if c != nil {
				c.Close()
			}
		}
		return nil, fmt.Errorf("mcp: starting servers: %w", err)
	}
	set := &Toolset{}
	for i, c := range clients {
		if c != nil {
			set.clients = append(set.clients, c)
		} else {
			set.failed = append(set.failed, errs[i])
		}
	}
	if failed := set.Failed(); o.requireAll && len(failed) > 0 {
		set.Close()
		errs := make([]error, len(failed))
		for i, f := range failed {
			errs[i] = f
		}
		return nil, errors.Join(errs...)
	}
	return set, nil
}

// start connects to one server and lists its tools, reporting each step to onStatus.
func start(ctx context.Context, cfg ServerConfig, onStatus func(Status)) (*Client, *StartError) {
	began := time.Now()
	report := func(s Status) {
		if onStatus != nil {
			s.Elapsed = time.Since(began)
			onStatus(s)
		}
	}
	c, err := newClient(cfg)
	if err != nil {
		name := cfg.Name
		if name == "" {
			name = cfg.defaultName()
		}
		se := &StartError{Server: name, Err: err}
		report(Status{Server: name, State: Failed, Err: se})
		return nil, se
	}
	report(Status{Server: c.Name(), State: Starting})
	tools, err := c.Tools(ctx)
	if err != nil {
		se := &StartError{Server: c.Name(), Err: err, Stderr: c.stderrTail()}
		c.Close()
		report(Status{Server: c.Name(), State: Failed, Err: se})
		return nil, se
	}
	report(Status{Server: c.Name(), State: Ready, Tools: len(tools)})
	return c, nil
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
	cfg.Prefix = s.Prefix
	cfg.Include = append(slices.Clone(s.Include), s.IncludeTools...)
	cfg.Exclude = append(slices.Clone(s.Exclude), s.ExcludeTools...)
	if s.Timeout != nil {
		cfg.Timeout = time.Duration(*s.Timeout)
		if cfg.Timeout == 0 { // written as 0: none, rather than the default
			cfg.Timeout = -1
		}
	}
	if s.MaxCallTime != nil {
		cfg.MaxCallTime = time.Duration(*s.MaxCallTime)
		if cfg.MaxCallTime == 0 {
			cfg.MaxCallTime = -1
		}
	}
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
