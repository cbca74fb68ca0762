package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/tool"
)

// Transport types of [ServerConfig.Type].
const (
	// TypeStdio runs ServerConfig.Command and speaks MCP over its stdin and stdout.
	TypeStdio = "stdio"
	// TypeHTTP is the streamable HTTP transport at ServerConfig.URL.
	TypeHTTP = "http"
	// TypeSSE is the legacy HTTP+SSE transport (protocol version 2024-11-05) at ServerConfig.URL.
	TypeSSE = "sse"
)

// ErrClosed is returned by a [Client] used after Close.
var ErrClosed = errors.New("mcp: client closed")

// DefaultTimeout is the default of [ServerConfig.Timeout]: the longest a request to an MCP
// server waits without word from it, as the TypeScript SDK's default request timeout.
const DefaultTimeout = time.Minute

// DefaultMaxCallTime is the default of [ServerConfig.MaxCallTime]: long enough for a long tool
// that reports its progress, short of holding a turn for good.
const DefaultMaxCallTime = time.Hour

// errCallTooLong is the cancellation cause of a call that ran past MaxCallTime.
var errCallTooLong = errors.New("mcp: the call ran past its MaxCallTime")

// errNoAnswer is the cancellation cause of a request the server left without word too long.
var errNoAnswer = errors.New("no answer from the server")

// ServerConfig says how to reach one MCP server and how to present its tools. Set either Command
// (a local server over stdio) or URL (a remote server over HTTP), or Transport for anything else.
type ServerConfig struct {
	// Name identifies the server in errors and logs; the configuration loader sets it to the
	// server's key in the file. Empty means the command's base name or the URL's host.
	Name string

	// Type is the transport: TypeStdio, TypeHTTP or TypeSSE. Empty means TypeStdio when Command is
	// set; with URL it means streamable HTTP, falling back to SSE when the server does not speak it
	// (the backwards-compatibility procedure of the MCP specification).
	Type string

	// Command is the program of a stdio server, with Args its arguments, Env variables added to
	// the current environment, and Dir its working directory (empty: the current one).
	Command string
	Args    []string
	Env     map[string]string
	Dir     string
	// Stderr receives the stdio server's standard error; nil discards it. Either way its last
	// lines are kept for the error reporting a server that fails to start ([StartError]) and the
	// warning logged when it exits.
	Stderr io.Writer

	// URL is the endpoint of an HTTP server; Headers are sent with every request (for example
	// Authorization), and HTTPClient makes them (nil: http.DefaultClient).
	URL        string
	Headers    map[string]string
	HTTPClient *http.Client
	// OAuth, when set, authorizes the requests to a streamable HTTP server (for example with
	// auth.NewAuthorizationCodeHandler of the Go SDK). The legacy SSE transport does not support it.
	OAuth auth.OAuthHandler
	// MaxRetries is how many times a streamable HTTP connection tries to resume a broken event
	// stream before the calls waiting on it fail: 0 means 2 (a few seconds), negative means none.
	MaxRetries int

	// Transport, when set, makes the transport of each connection instead of Command or URL: an
	// in-memory transport in tests, a streamable transport with an OAuth handler. It is called again
	// for every reconnection, so it must return a fresh transport each time.
	Transport func() (sdk.Transport, error)

	// Prefix is put before every tool name of this server, to keep apart servers whose tools share
	// names (a "github_" and a "gitlab_" server both offering create_issue).
	Prefix string
	// Include keeps only the tools whose names match one of these patterns (path.Match syntax,
	// such as "read_*"); empty keeps every tool. Exclude then drops the tools matching any of its
	// patterns. Patterns match the server's own tool names, before Prefix.
	Include []string
	Exclude []string
	// ConnectTimeout bounds each connection: starting the server and the initialize handshake,
	// so that a command that never answers cannot hang its caller. Zero means one minute (npx may
	// download a server on its first run).
	ConnectTimeout time.Duration
	// Timeout is how long a request (a tool call, listing the tools) may go without word from the
	// server: each progress notification the server sends for a call starts the wait afresh, so a
	// long tool that reports its progress is not cut off, while a hung server is. A call that runs
	// out of time is cancelled on the server and fails with an error the model sees. Zero means
	// DefaultTimeout; negative means no limit but the caller's context.
	Timeout time.Duration
	// MaxCallTime bounds a tool call as a whole, however often the server reports progress: a
	// server that reports progress forever would otherwise hold its caller until the caller's
	// context ends. A call that runs out of it is cancelled on the server and fails with an error
	// the model sees. Zero means DefaultMaxCallTime; negative means no bound.
	MaxCallTime time.Duration

	// Logger receives warnings: a tool whose name had to be changed or that was left out, a stdio
	// server that exited, with the last lines of its standard error. Nil means slog.Default().
	Logger *slog.Logger

	// Implementation is what the client calls itself when connecting; nil means wield and its
	// module version.
	Implementation *sdk.Implementation
	// InterruptOnElicitation makes a server's elicitation request during a tool call stop the
	// turn like a tool's interrupt ([toolcall.InterruptError], its Data an [Elicitation]); the
	// application answers with an [ElicitationAnswer] as the call's resumption data, and the call
	// is made again, the answer going to the server when it asks the same again. Elicitations
	// that belong to no call are declined. Off, and with no ElicitationHandler in Options, the
	// client does not offer elicitation, so servers do not ask.
	InterruptOnElicitation bool
	// Options are passed to the MCP client for features beyond tools: sampling, elicitation,
	// roots, logging. Its ToolListChangedHandler and ProgressNotificationHandler are called after
	// wield's own handling.
	Options *sdk.ClientOptions
}

// Client is a connection to one MCP server that connects on first use and reconnects after the
// server goes away. It is a [tool.Provider] of the server's tools and is safe for concurrent use.
//
// A server's tool list is fetched once and kept until the server announces a change
// (notifications/tools/list_changed) or the connection is lost. Cancelling a call's context
// cancels the call on the server; a progress receiver in it ([tool.WithProgress]) gets the
// server's notifications/progress (best effort: a notification arriving together with the result
// may be dropped).
type Client struct {
	cfg    ServerConfig
	client *sdk.Client

	// connecting serialises (re)connection; a buffered channel so waiting honours contexts.
	connecting chan struct{}

	mu      sync.Mutex
	session *sdk.ClientSession
	tools   []tool.Tool // cached list of the current session; nil when stale
	version uint64      // bumped whenever the cached list becomes stale
	closed  bool

	elicitable map[*elicitCall]bool       // tool calls in flight an elicitation may stop; under mu
	subs       map[*Subscription]struct{} // live resource subscriptions; under mu

	progress  sync.Map // progress token (string) -> func(tool.Progress)
	nextToken atomic.Uint64

	stderr atomic.Pointer[tailBuffer] // the standard error of the latest stdio server process
	logger *slog.Logger
}

// ConnectOption configures [Connect] and [ConnectAll].
type ConnectOption func(*connectOptions)

type connectOptions struct {
	deferred   bool
	requireAll bool
	onStatus   func(Status)
}

func connectOpts(opts []ConnectOption) connectOptions {
	var o connectOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// Deferred makes [Connect] and [ConnectAll] check the configurations and return without
// connecting: the first call that needs a server connects, and an unreachable server is that
// call's error.
func Deferred() ConnectOption { return func(o *connectOptions) { o.deferred = true } }

// RequireAll makes [ConnectAll] fail, closing the others, when any server fails to start.
// Without it, ConnectAll goes on without the servers that fail ([Toolset.Failed]).
func RequireAll() ConnectOption { return func(o *connectOptions) { o.requireAll = true } }

// OnStatus makes [ConnectAll] (and [Connect]) call f as each server starts, becomes ready or
// fails: Starting, then Ready or Failed. Calls for different servers come from different
// goroutines and may overlap; the calls for one server come in order.
func OnStatus(f func(Status)) ConnectOption { return func(o *connectOptions) { o.onStatus = f } }

// Connect returns a client for cfg, connected: an unreachable server is an error here rather than
// on first use, a [*StartError] carrying the end of a stdio server's standard error. With
// [Deferred] it connects on first use instead. A configuration that cannot work is an error either
// way.
func Connect(ctx context.Context, cfg ServerConfig, opts ...ConnectOption) (*Client, error) {
	o := connectOpts(opts)
	if o.deferred {
		return newClient(cfg)
	}
	if o.onStatus == nil {
		c, err := newClient(cfg)
		if err != nil {
			return nil, err
		}
		if _, err := c.Session(ctx); err != nil {
			se := &StartError{Server: c.Name(), Err: err, Stderr: c.stderrTail()}
			c.Close()
			return nil, se
		}
		return c, nil
	}
	c, se := start(ctx, cfg, o.onStatus)
	if se != nil {
		return nil, se
	}
	return c, nil
}

// NewClient checks cfg and returns a client for it that connects on first use.
//
// Deprecated: use Connect(ctx, cfg, Deferred()).
func NewClient(cfg ServerConfig) (*Client, error) { return newClient(cfg) }

func newClient(cfg ServerConfig) (*Client, error) {
	if cfg.Name == "" {
		cfg.Name = cfg.defaultName()
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.Args = slices.Clone(cfg.Args)
	cfg.Env = maps.Clone(cfg.Env)
	cfg.Headers = maps.Clone(cfg.Headers)
	cfg.Include = slices.Clone(cfg.Include)
	cfg.Exclude = slices.Clone(cfg.Exclude)
	c := &Client{cfg: cfg, connecting: make(chan struct{}, 1), logger: cfg.Logger}
	if c.logger == nil {
		c.logger = slog.Default()
	}

	var opts sdk.ClientOptions
	if cfg.Options != nil {
		opts = *cfg.Options
	}
	userToolsChanged, userProgress, userUpdated := opts.ToolListChangedHandler, opts.ProgressNotificationHandler, opts.ResourceUpdatedHandler
	opts.ResourceUpdatedHandler = func(ctx context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
		c.resourceUpdated(req)
		if userUpdated != nil {
			userUpdated(ctx, req)
		}
	}
	opts.ToolListChangedHandler = func(ctx context.Context, req *sdk.ToolListChangedRequest) {
		c.invalidate(req.Session)
		if userToolsChanged != nil {
			userToolsChanged(ctx, req)
		}
	}
	opts.ProgressNotificationHandler = func(ctx context.Context, req *sdk.ProgressNotificationClientRequest) {
		c.forwardProgress(req.Params)
		if userProgress != nil {
			userProgress(ctx, req)
		}
	}
	if cfg.InterruptOnElicitation && opts.ElicitationHandler == nil {
		opts.ElicitationHandler = c.elicit
		caps := &sdk.ClientCapabilities{}
		if opts.Capabilities != nil {
			cp := *opts.Capabilities
			caps = &cp
		}
		caps.Elicitation = &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}
		opts.Capabilities = caps
	}
	impl := cfg.Implementation
	if impl == nil {
		impl = &sdk.Implementation{Name: "wield", Version: moduleVersion()}
	}
	c.client = sdk.NewClient(impl, &opts)
	return c, nil
}

// Name returns the server's name from its configuration.
func (c *Client) Name() string { return c.cfg.Name }

// Session returns the live MCP session, connecting first if there is none. Use it for what this
// package does not wrap (resources, prompts); do not close it, close the Client.
func (c *Client) Session(ctx context.Context) (*sdk.ClientSession, error) {
	if s, err := c.current(); s != nil || err != nil {
		return s, err
	}
	select {
	case c.connecting <- struct{}{}:
	case <-ctx.Done():
		return nil, c.errorf("connecting: %w", ctx.Err())
	}
	defer func() { <-c.connecting }()
	// Someone else may have connected while we waited.
	if s, err := c.current(); s != nil || err != nil {
		return s, err
	}

	timeout := c.cfg.ConnectTimeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	connectCtx, cancel := context.WithTimeout(ctx, timeout)
	s, cmd, err := c.connect(connectCtx)
	cancel()
	if err != nil {
		if ctx.Err() == nil && errors.Is(connectCtx.Err(), context.DeadlineExceeded) {
			return nil, c.errorf("connecting: no answer within %v", timeout)
		}
		if cmd != nil && cmd.ProcessState != nil {
			return nil, c.errorf("connecting: the server exited (%v) before it answered: %w", cmd.ProcessState, err)
		}
		return nil, c.errorf("connecting: %w", err)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		s.Close()
		return nil, ErrClosed
	}
	c.session = s
	c.tools = nil
	c.version++
	c.mu.Unlock()
	// A server that exits or drops the connection ends Wait; the next use reconnects.
	tail := c.stderr.Load() // this process's; a reconnection replaces it
	go func() {
		err := s.Wait()
		c.drop(s)
		if c.cfg.URL != "" && c.resubscribe(s) {
			return
		}
		if err == nil || errors.Is(err, sdk.ErrConnectionClosed) {
			c.endSubscriptions(s, ErrSubscriptionEnded)
		} else {
			c.endSubscriptions(s, fmt.Errorf("%w: %w", ErrSubscriptionEnded, err))
		}
		if cmd != nil {
			c.logExit(cmd, tail)
		}
	}()
	return s, nil
}

// logExit warns that a stdio server's process ended other than by Close (it exited, or was
// stopped after its connection broke), with the last lines of its standard error.
func (c *Client) logExit(cmd *exec.Cmd, stderr *tailBuffer) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return
	}
	// The session is closed, so the process has been waited for and its standard error copied.
	state := "the connection closed"
	if cmd.ProcessState != nil {
		state = cmd.ProcessState.String()
	}
	attrs := []any{"server", c.cfg.Name, "state", state}
	if tail := stderr.lines(); tail != "" {
		attrs = append(attrs, "stderr", tail)
	}
	c.logger.Warn("mcp: server process ended; the next call starts it again", attrs...)
}

// stderrTail returns the last lines the latest stdio server process wrote on standard error.
func (c *Client) stderrTail() string { return c.stderr.Load().lines() }

func (c *Client) current() (*sdk.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	return c.session, nil
}

// connect opens a session; for a stdio server it also returns the server's process.
func (c *Client) connect(ctx context.Context) (*sdk.ClientSession, *exec.Cmd, error) {
	if c.cfg.Transport != nil {
		t, err := c.cfg.Transport()
		if err != nil {
			return nil, nil, err
		}
		s, err := c.client.Connect(ctx, t, nil)
		return s, nil, err
	}
	switch c.cfg.transportType() {
	case TypeStdio:
		cmd := exec.Command(c.cfg.Command, c.cfg.Args...)
		cmd.Dir = c.cfg.Dir
		tail := &tailBuffer{}
		c.stderr.Store(tail)
		cmd.Stderr = tail
		if c.cfg.Stderr != nil {
			cmd.Stderr = io.MultiWriter(tail, c.cfg.Stderr)
		}
		// A server's children may hold its standard error open after it exits; do not wait for
		// them longer than this to finish reading it.
		cmd.WaitDelay = 2 * time.Second
		if len(c.cfg.Env) > 0 {
			cmd.Env = os.Environ()
			for _, k := range slices.Sorted(maps.Keys(c.cfg.Env)) {
				cmd.Env = append(cmd.Env, k+"="+c.cfg.Env[k])
			}
		}
		s, err := c.client.Connect(ctx, &commandTransport{cmd: cmd, terminate: 2 * time.Second, server: c.cfg.Name, logger: c.logger}, nil)
		return s, cmd, err
	case TypeHTTP:
		s, err := c.client.Connect(ctx, c.streamable(), nil)
		return s, nil, err
	case TypeSSE:
		s, err := c.client.Connect(ctx, c.sse(), nil)
		return s, nil, err
	default: // a URL without a type: streamable HTTP, else the legacy SSE transport
		s, err := c.client.Connect(ctx, c.streamable(), nil)
		if err == nil || ctx.Err() != nil || c.cfg.OAuth != nil {
			return s, nil, err
		}
		s, sseErr := c.client.Connect(ctx, c.sse(), nil)
		if sseErr != nil {
			return nil, nil, fmt.Errorf("streamable HTTP: %w; SSE: %w", err, sseErr)
		}
		return s, nil, nil
	}
}

func (c *Client) streamable() *sdk.StreamableClientTransport {
	retries := c.cfg.MaxRetries
	if retries == 0 {
		retries = 2
	}
	return &sdk.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: c.httpClient(), MaxRetries: retries, OAuthHandler: c.cfg.OAuth}
}

func (c *Client) sse() sdk.Transport {
	return detachedTransport{&sdk.SSEClientTransport{Endpoint: c.cfg.URL, HTTPClient: c.httpClient()}}
}

// detachedTransport keeps a connection alive past the context it was opened with. The SSE client
// ties its event stream to that context, which is the context of whichever call happened to
// connect (a tool call with a timeout, say); the stream must outlive it. The context still bounds
// the connecting itself.
type detachedTransport struct{ sdk.Transport }

func (t detachedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	connCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.Transport.Connect(connCtx)
	if !stop() && err == nil { // ctx ended while connecting
		conn.Close()
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return &cancelOnClose{Connection: conn, cancel: cancel}, nil
}

type cancelOnClose struct {
	sdk.Connection
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	defer c.cancel()
	return c.Connection.Close()
}

func (c *Client) httpClient() *http.Client {
	base := c.cfg.HTTPClient
	if base == nil {
		base = http.DefaultClient
	}
	hc := *base
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = headerTransport{headers: c.cfg.Headers, next: next}
	return &hc
}

// MaxResponseBytes is the largest response body other than an event stream that a client takes
// from an HTTP server: the Go SDK's limit for a message over stdio and for an event, which it
// does not apply to application/json responses.
const MaxResponseBytes = sdk.DefaultMaxEventSize

// headerTransport adds the configured headers to every request and caps the bodies of responses
// that are not event streams (whose events the SDK caps itself).
type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: MaxResponseBytes}
	}
	return resp, nil
}

// errResponseTooLarge is the read error of a response body over MaxResponseBytes.
var errResponseTooLarge = fmt.Errorf("the server's response is over the limit of %d MB", MaxResponseBytes>>20)

// cappedBody fails a read that would go past its limit.
type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// Over the limit unless the body ends here.
		var one [1]byte
		if n, err := b.ReadCloser.Read(one[:]); n == 0 && err != nil {
			return 0, err
		}
		return 0, errResponseTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// drop forgets s if it is the current session, so the next use reconnects, and reports whether
// it was.
func (c *Client) drop(s *sdk.ClientSession) bool {
	c.mu.Lock()
	current := c.session == s
	if current {
		c.session = nil
		c.tools = nil
		c.version++
	}
	c.mu.Unlock()
	s.Close()
	return current
}

// invalidate marks the tool list of s stale.
func (c *Client) invalidate(s *sdk.ClientSession) {
	c.mu.Lock()
	if s == nil || c.session == s {
		c.tools = nil
		c.version++
	}
	c.mu.Unlock()
}

// Close ends the session (stopping a stdio server) and makes the client unusable.
func (c *Client) Close() error {
	c.mu.Lock()
	s := c.session
	c.session, c.tools, c.closed = nil, nil, true
	c.mu.Unlock()
	c.endSubscriptions(nil, ErrClosed)
	if s == nil {
		return nil
	}
	if err := s.Close(); err != nil && !errors.Is(err, sdk.ErrConnectionClosed) && !isExitError(err) {
		return c.errorf("closing: %w", err)
	}
	return nil
}

// isExitError reports a stdio server that exited with a signal or failure status when its stdin
// closed; that is how many servers stop, not a failure of Close.
func isExitError(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee)
}

// Tools lists the server's tools as [tool.Tool] values, filtered and prefixed as configured.
func (c *Client) Tools(ctx context.Context) ([]tool.Tool, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	if c.tools != nil {
		tools := c.tools
		c.mu.Unlock()
		return slices.Clone(tools), nil
	}
	c.mu.Unlock()

	s, err := c.Session(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	version := c.version
	c.mu.Unlock()

	parent := ctx
	if timeout := c.cfg.timeout(); timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, errNoAnswer)
		defer cancel()
	}
	var tools []tool.Tool
	size := 0                    // of the tools kept
	names := map[string]string{} // the names given -> the server's names
	for t, err := range listTools(ctx, s) {
		if err != nil {
			if errors.Is(err, errEndless) {
				return nil, c.errorf("listing tools: %w", err)
			}
			if parent.Err() == nil && errors.Is(context.Cause(ctx), errNoAnswer) {
				c.drop(s)
				return nil, c.errorf("listing tools: no answer for %v (the server's timeout)", c.cfg.timeout())
			}
			if !isProtocolError(err) && ctx.Err() == nil {
				c.drop(s)
			}
			return nil, c.errorf("listing tools: %w", err)
		}
		if !c.cfg.keep(t.Name) {
			continue
		}
		name, ok := c.toolName(t.Name, names)
		if !ok {
			continue
		}
		rt, err := newRemoteTool(c, t, name)
		if err != nil {
			return nil, c.errorf("%w", err)
		}
		if size += rt.size(); size > maxListBytes {
			return nil, c.errorf("listing tools: %w: more than %d MB of names, descriptions and schemas", errEndless, maxListBytes>>20)
		}
		tools = append(tools, rt)
	}
	if tools == nil {
		tools = []tool.Tool{}
	}
	c.mu.Lock()
	// A change announced while listing makes this list stale already; keep it uncached.
	if c.version == version && c.session == s {
		c.tools = tools
	}
	c.mu.Unlock()
	return slices.Clone(tools), nil
}

// Bounds of a server's tool list, so that a server whose list never ends (its cursors cycle, or
// it hands out new ones forever) cannot hold a listing, or fill memory, until the timeout.
const (
	maxListPages = 1000
	maxListTools = 100_000
	maxListBytes = 32 << 20 // the names, descriptions and schemas of the tools kept
)

// errEndless is the error of a tool list over the bounds.
var errEndless = errors.New("the server's tool list looks endless")

// listTools yields the tools of the server's tools/list, page after page, within the bounds; a
// cursor that comes back, or a list over a bound, ends it with an error matching errEndless.
func listTools(ctx context.Context, s *sdk.ClientSession) iter.Seq2[*sdk.Tool, error] {
	return func(yield func(*sdk.Tool, error) bool) {
		params := &sdk.ListToolsParams{}
		seen := map[string]bool{}
		count := 0
		for page := 1; ; page++ {
			res, err := s.ListTools(ctx, params)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, t := range res.Tools {
				if t == nil {
					continue
				}
				if count++; count > maxListTools {
					yield(nil, fmt.Errorf("%w: more than %d tools", errEndless, maxListTools))
					return
				}
				if !yield(t, nil) {
					return
				}
			}
			next := res.NextCursor
			switch {
			case next == "":
				return
			case seen[next]:
				yield(nil, fmt.Errorf("%w: its cursor %s came back after %d pages", errEndless, quoteName(next), page))
				return
			case page >= maxListPages:
				yield(nil, fmt.Errorf("%w: more than %d pages", errEndless, maxListPages))
				return
			}
			seen[next] = true
			params.Cursor = next
		}
	}
}

// toolName returns the name a tool of the server is offered under: the configured prefix and the
// server's name, changed to follow the MCP naming rules if need be. A name that cannot be made
// valid, or that becomes the name of another tool of the server, is refused (false). Both are
// logged as warnings. taken maps the names given so far to the server's names.
func (c *Client) toolName(server string, taken map[string]string) (string, bool) {
	if server == "" {
		c.logger.Warn("mcp: left out a tool without a name", "server", c.cfg.Name)
		return "", false
	}
	name := c.cfg.Prefix + server
	if !ValidToolName(name) {
		fixed := sanitizeToolName(name)
		c.logger.Warn("mcp: renamed a tool whose name is outside the MCP naming rules",
			"server", c.cfg.Name, "name", logName(server), "renamed", fixed)
		name = fixed
	}
	if other, dup := taken[name]; dup {
		c.logger.Warn("mcp: left out a tool whose name, made valid, is that of another tool of the server",
			"server", c.cfg.Name, "name", logName(server), "other", logName(other))
		return "", false
	}
	taken[name] = server
	return name, true
}

// callTool calls the server's tool name, reconnecting first if the connection was lost. A call is
// retried once only when the server reports that it no longer knows the session (it restarted), as
// the tool did not run then; a call cut off in flight is never repeated. A call that hears nothing
// from the server for the configured timeout (progress notifications count) is cancelled.
func (c *Client) callTool(ctx context.Context, name string, args any) (*sdk.CallToolResult, error) {
	parent := ctx
	timeout := c.cfg.timeout()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if limit := c.cfg.maxCallTime(); limit > 0 {
		total := time.AfterFunc(limit, func() { cancel(errCallTooLong) })
		defer total.Stop()
	}
	var timer *time.Timer // armed once connected: connecting has its own timeout
	if timeout > 0 {
		timer = time.AfterFunc(time.Hour, func() { cancel(errNoAnswer) })
		timer.Stop()
		defer timer.Stop()
	}
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	// Progress is asked for whenever someone listens or a timer is to be restarted by it.
	if fn := tool.ProgressFrom(ctx); fn != nil || timer != nil {
		token := "wield-" + strconv.FormatUint(c.nextToken.Add(1), 10)
		c.progress.Store(token, func(p tool.Progress) {
			if timer != nil && ctx.Err() == nil {
				timer.Reset(timeout)
			}
			if fn != nil {
				fn(p)
			}
		})
		defer c.progress.Delete(token)
		params.SetProgressToken(token)
	}
	var elicited *elicitCall
	if c.cfg.InterruptOnElicitation {
		var end func()
		var err error
		if ctx, elicited, end, err = c.startElicitable(ctx, cancel); err != nil {
			return nil, err
		}
		defer end()
	}
	what := fmt.Sprintf("tool %q", name)
	res, err := onSession(ctx, c, "calling "+what, func(s *sdk.ClientSession) (*sdk.CallToolResult, error) {
		if timer != nil {
			timer.Reset(timeout)
		}
		return s.CallTool(ctx, params)
	})
	// The server asked something: the call is abandoned (its context cancelled, so not retried)
	// and the turn stops to ask it; it is made again on resume.
	if in := elicited.interrupted(); in != nil && parent.Err() == nil {
		return nil, in
	}
	if err != nil {
		return nil, c.failed(parent, ctx, what, err)
	}
	return res, nil
}

// codeRejected is the JSON-RPC code the SDK gives a request its transport could not deliver.
const codeRejected = -32005

// answered reports whether err holds an error the server sent: a JSON-RPC error other than the
// SDK's own for requests that never reached the server.
func answered(err error) bool {
	switch e := err.(type) {
	case nil:
		return false
	case *jsonrpc.Error:
		if e.Code != codeRejected {
			return true
		}
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return answered(u.Unwrap())
	case interface{ Unwrap() []error }:
		return slices.ContainsFunc(u.Unwrap(), answered)
	}
	return false
}

// unavailableError is a call that could not reach its server or hear its answer. Its text has
// the details (the command that could not start, the connection's error) for whoever runs the
// client; it matches [ErrInternal], so a wield server proxying the tool tells its own clients no
// more than that the tool failed.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string        { return e.err.Error() }
func (e *unavailableError) Unwrap() error        { return e.err }
func (e *unavailableError) Is(target error) bool { return target == ErrInternal }

// maxCallTime is the effective MaxCallTime.
func (cfg *ServerConfig) maxCallTime() time.Duration {
	return effective(cfg.MaxCallTime, DefaultMaxCallTime)
}

// timeout is the effective Timeout.
func (cfg *ServerConfig) timeout() time.Duration { return effective(cfg.Timeout, DefaultTimeout) }

// effective applies the rule of the configuration's durations: the default for zero, none (0)
// for negative.
func effective(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

func (c *Client) forwardProgress(p *sdk.ProgressNotificationParams) {
	if p == nil {
		return
	}
	token, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	if fn, ok := c.progress.Load(token); ok {
		fn.(func(tool.Progress))(tool.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message})
	}
}

func (c *Client) errorf(format string, args ...any) error {
	return fmt.Errorf("mcp server %q: "+format, append([]any{c.cfg.Name}, args...)...)
}

// isProtocolError reports an error the server sent in answer to a request: the connection is fine.
func isProtocolError(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we)
}

func (cfg *ServerConfig) transportType() string {
	if cfg.Type != "" {
		return cfg.Type
	}
	if cfg.Command != "" {
		return TypeStdio
	}
	return ""
}

func (cfg *ServerConfig) defaultName() string {
	if cfg.Command != "" {
		return filepath.Base(cfg.Command)
	}
	if u, err := url.Parse(cfg.URL); err == nil && u.Host != "" {
		return u.Host
	}
	return "mcp"
}

func (cfg *ServerConfig) validate() error {
	name := cfg.Name
	if cfg.Transport == nil {
		switch cfg.Type {
		case "", TypeStdio, TypeHTTP, TypeSSE:
		default:
			return fmt.Errorf("mcp server %q: unknown transport type %q (want %q, %q or %q)", name, cfg.Type, TypeStdio, TypeHTTP, TypeSSE)
		}
		switch {
		case cfg.Command != "" && cfg.URL != "":
			return fmt.Errorf("mcp server %q: both command and url are set", name)
		case cfg.Command == "" && cfg.URL == "":
			return fmt.Errorf("mcp server %q: neither command nor url is set", name)
		case cfg.Command != "" && cfg.Type != "" && cfg.Type != TypeStdio:
			return fmt.Errorf("mcp server %q: transport %q needs a url, not a command", name, cfg.Type)
		case cfg.URL != "" && cfg.Type == TypeStdio:
			return fmt.Errorf("mcp server %q: transport %q needs a command, not a url", name, cfg.Type)
		case cfg.OAuth != nil && (cfg.Type == TypeSSE || cfg.Command != ""):
			return fmt.Errorf("mcp server %q: OAuth needs the streamable HTTP transport", name)
		}
	}
	for _, p := range append(slices.Clone(cfg.Include), cfg.Exclude...) {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("mcp server %q: tool filter %q: %w", name, p, err)
		}
	}
	if cfg.Prefix != "" && sanitizeToolName(cfg.Prefix) != cfg.Prefix {
		return fmt.Errorf("mcp server %q: prefix %s is outside the MCP naming rules for tool names (letters, digits, '_', '-' and '.')", name, quoteName(cfg.Prefix))
	}
	return nil
}

// keep applies Include and Exclude to a tool name of the server.
func (cfg *ServerConfig) keep(name string) bool {
	match := func(patterns []string) bool {
		for _, p := range patterns {
			if ok, _ := path.Match(p, name); ok {
				return true
			}
		}
		return false
	}
	if len(cfg.Include) > 0 && !match(cfg.Include) {
		return false
	}
	return !match(cfg.Exclude)
}

// moduleVersion is wield's version as built into the program, for the client and server info.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path == "github.com/wield-ai/wield" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			return bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == "github.com/wield-ai/wield" {
				return d.Version
			}
		}
	}
	return "devel"
}
