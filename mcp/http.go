package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/internal/httpguard"
)

// Defaults of [HTTPOptions].
const (
	DefaultSessionTimeout = 30 * time.Minute
	DefaultMaxSessions    = 100
	// A quarter of the default cap: four clients at their share leave room for others.
	DefaultMaxSessionsPerClient = 25
	DefaultMaxRequestBytes      = 4 << 20 // as the Go SDK's
	DefaultReadTimeout          = 30 * time.Second
	DefaultWriteTimeout         = 30 * time.Second
	DefaultIdleTimeout          = 2 * time.Minute
)

// ErrUnauthenticatedRemote is returned by [Server.Serve] for a listener on an address other than
// loopback when no token verifier is set and [HTTPOptions.AllowUnauthenticatedRemote] is not.
var ErrUnauthenticatedRemote = errors.New("mcp: refusing to serve a non-loopback address without authentication")

// HTTPOptions harden a [Server] served over streamable HTTP. The zero value is a safe default for
// a server on a loopback address: sessions expire and are capped, bodies are capped, slow clients
// are cut off, and browsers on other origins are refused.
type HTTPOptions struct {
	// SessionTimeout closes a session that has received no request for this long; its client must
	// start a new one (clients that want to stay idle longer send pings). Zero means
	// DefaultSessionTimeout; negative means never.
	SessionTimeout time.Duration
	// MaxSessions caps the sessions open at once: a request for another is refused with 503
	// Service Unavailable. Zero means DefaultMaxSessions; negative means no cap.
	MaxSessions int
	// MaxSessionsPerClient caps the sessions one client holds, so that one client cannot take
	// every place for the session timeout: another is refused with 429 Too Many Requests. A
	// client is its token's principal (auth.TokenInfo.UserID) when there is one, else its remote
	// IP address, unless loopback (every local program shares it). Zero means
	// DefaultMaxSessionsPerClient; negative means no cap.
	MaxSessionsPerClient int
	// MaxConns and MaxConnsPerClient cap the connections [Server.Serve] holds open, in all and
	// from one remote IP address; a connection over them is answered 503 and closed. Zero means
	// httpguard's defaults (1024 and 64); negative means no cap.
	MaxConns, MaxConnsPerClient int
	// MaxRequestBytes caps a request body: a larger one is refused with 413. Zero means
	// DefaultMaxRequestBytes; negative means no cap (do not use on a server others can reach).
	MaxRequestBytes int64
	// ReadTimeout bounds the reading of a request body, so that a client sending it slowly, or not
	// at all, does not hold a connection: it is answered 408 and the connection closed. Zero means
	// DefaultReadTimeout; negative means none.
	ReadTimeout time.Duration
	// WriteTimeout bounds each write of a response, so that a client that stops reading does not
	// hold a connection. It applies write by write, not to whole responses: an event stream may
	// stay open as long as its session. Zero means DefaultWriteTimeout; negative means none.
	WriteTimeout time.Duration
	// IdleTimeout closes a kept-alive connection idle for this long ([Server.Serve] only; set your
	// own http.Server's otherwise). Zero means DefaultIdleTimeout.
	IdleTimeout time.Duration

	// AllowedOrigins lists the origins ("https://app.example.com") from which browsers may reach
	// the server besides its own; a request carrying an Origin header that is neither the server's
	// own nor listed is refused with 403, as the MCP specification requires. Listed origins are
	// answered with the CORS headers browsers need. Requests without an Origin header (clients
	// that are not browsers) are not concerned. "*" allows every origin.
	AllowedOrigins []string

	// TokenVerifier, when set, requires every request to carry a bearer token it accepts
	// (Authorization: Bearer TOKEN), as the SDK's auth.RequireBearerToken does; [StaticToken]
	// makes one for a shared secret. BearerOptions are passed on to it (scopes, resource
	// metadata for OAuth clients).
	TokenVerifier auth.TokenVerifier
	BearerOptions *auth.RequireBearerTokenOptions
	// AllowUnauthenticatedRemote lets [Server.Serve] serve an address other than loopback without
	// a TokenVerifier. Anyone who can reach the address can then call every tool.
	AllowUnauthenticatedRemote bool

	// SessionServer, when set, gives each new session a server of its own, for tool lists that
	// differ between sessions (a search tool adding the tools it finds). It is called once per
	// new session, after the request has passed the checks of [Server.Handler] (origin, token,
	// body, session cap); the Server itself then answers only what precedes a session.
	SessionServer func(*http.Request) (*Server, error)

	// Options are passed to the Go SDK's handler (JSON responses, an event store for resumption,
	// stateless mode). The fields above take the place of its SessionTimeout,
	// MaxRequestBodyBytes and Logger.
	Options *sdk.StreamableHTTPOptions
}

func (o *HTTPOptions) withDefaults() HTTPOptions {
	var out HTTPOptions
	if o != nil {
		out = *o
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&out.SessionTimeout, DefaultSessionTimeout)
	def(&out.ReadTimeout, DefaultReadTimeout)
	def(&out.WriteTimeout, DefaultWriteTimeout)
	def(&out.IdleTimeout, DefaultIdleTimeout)
	if out.MaxSessions == 0 {
		out.MaxSessions = DefaultMaxSessions
	}
	if out.MaxSessionsPerClient == 0 {
		out.MaxSessionsPerClient = DefaultMaxSessionsPerClient
	}
	if out.MaxRequestBytes == 0 {
		out.MaxRequestBytes = DefaultMaxRequestBytes
	}
	return out
}

// StaticToken returns a token verifier accepting exactly token, compared in constant time; an
// empty token accepts nothing. Use it with [HTTPOptions.TokenVerifier] for a shared secret.
func StaticToken(token string) auth.TokenVerifier {
	want := sha256.Sum256([]byte(token))
	return func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		h := sha256.Sum256([]byte(got))
		if token == "" || subtle.ConstantTimeCompare(h[:], want[:]) != 1 {
			return nil, auth.ErrInvalidToken
		}
		// The secret does not expire; the middleware wants an expiry, so it is this request's.
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Minute)}, nil
	}
}

// Handler returns an http.Handler serving s over streamable HTTP (the MCP endpoint is whatever
// path it is mounted at), with the protections opts describe: in order, Origin validation,
// bearer-token authentication, a bounded and timed body read, and the session cap, before the
// SDK's handler and its own DNS rebinding protection (a server on a loopback address refuses Host
// headers naming another host). Requests of existing sessions go to the server that created
// them; no request builds a server or compiles a schema, except the first request of a new
// session when opts.SessionServer is set.
func (s *Server) Handler(opts *HTTPOptions) (http.Handler, error) {
	h, _, err := s.handler(opts)
	return h, err
}

// handler is Handler, also returning the sessions it makes, for Serve to close.
func (s *Server) handler(opts *HTTPOptions) (http.Handler, *sessionSet, error) {
	o := opts.withDefaults()
	origins, err := httpguard.ParseOrigins(o.AllowedOrigins)
	if err != nil {
		return nil, nil, fmt.Errorf("mcp: %w", err)
	}
	var so sdk.StreamableHTTPOptions
	if o.Options != nil {
		so = *o.Options
	}
	if o.SessionTimeout > 0 {
		so.SessionTimeout = o.SessionTimeout
	} else {
		so.SessionTimeout = 0
	}
	// The body is read, and capped, before the SDK sees it.
	so.MaxRequestBodyBytes = -1
	so.Logger = sdkLogger(s.logger)
	h := &httpHandler{
		srv:      s,
		opts:     o,
		origins:  origins,
		stateful: !so.Stateless,
		sessions: &sessionSet{max: o.MaxSessions, lim: httpguard.NewLimiter(o.MaxSessions, o.MaxSessionsPerClient), live: map[*sdk.ServerSession]func(){}},
	}
	h.sdk = sdk.NewStreamableHTTPHandler(h.server, &so)
	var next http.Handler = http.HandlerFunc(h.serveMCP)
	if o.TokenVerifier != nil {
		next = auth.RequireBearerToken(o.TokenVerifier, o.BearerOptions)(next)
	}
	return h.checkOrigin(next), h.sessions, nil
}

// Serve serves s over streamable HTTP on ln until ctx ends, then shuts down gracefully, waiting
// a few seconds for requests in flight. Besides [Server.Handler]'s protections, its http.Server
// bounds the reading of request headers and closes idle connections. A listener on an address
// other than loopback needs opts.TokenVerifier (or opts.AllowUnauthenticatedRemote); without it
// Serve closes ln and returns [ErrUnauthenticatedRemote].
func (s *Server) Serve(ctx context.Context, ln net.Listener, opts *HTTPOptions) error {
	o := opts.withDefaults()
	if o.TokenVerifier == nil && !o.AllowUnauthenticatedRemote && !httpguard.IsLoopback(ln.Addr()) {
		ln.Close()
		return fmt.Errorf("%w (%s)", ErrUnauthenticatedRemote, ln.Addr())
	}
	handler, sessions, err := s.handler(&o)
	if err != nil {
		ln.Close()
		return err
	}
	return httpguard.Serve(ctx, ln, handler, httpguard.ServerOptions{
		ReadHeaderTimeout: readHeaderTimeout(o.ReadTimeout),
		IdleTimeout:       o.IdleTimeout,
		Logger:            s.logger,
		Conns:             &httpguard.ConnLimits{Total: o.MaxConns, PerClient: o.MaxConnsPerClient},
		Stopped:           sessions.closeAll,
	})
}

// readHeaderTimeout is the header's share of a request's read timeout.
func readHeaderTimeout(read time.Duration) time.Duration {
	if read > 0 && read < 10*time.Second {
		return read
	}
	return 10 * time.Second
}

type httpHandler struct {
	srv      *Server
	opts     HTTPOptions
	origins  httpguard.Origins
	stateful bool
	sessions *sessionSet
	sdk      *sdk.StreamableHTTPHandler
}

const sessionIDHeader = "Mcp-Session-Id"

// newSessionKey marks a request that may create a session; its value memoises the session's
// server, since the SDK asks for the server more than once per request.
type newSessionKey struct{}

type newSession struct {
	srv *Server
	err error
}

// server is the SDK handler's getServer. It is called for every request (the SDK reads the
// protocol versions the server supports from it), so it must be cheap: the shared server,
// or the new session's server built once.
func (h *httpHandler) server(r *http.Request) *sdk.Server {
	ns, _ := r.Context().Value(newSessionKey{}).(*newSession)
	if ns == nil || h.opts.SessionServer == nil {
		return h.srv.sdk
	}
	if ns.srv == nil && ns.err == nil {
		ns.srv, ns.err = h.opts.SessionServer(r)
		if ns.err == nil && ns.srv == nil {
			ns.err = errors.New("SessionServer returned no server")
		}
		if ns.err != nil {
			h.srv.logger.ErrorContext(r.Context(), "mcp: cannot make a server for a new session", "error", ns.err)
		}
	}
	if ns.err != nil {
		return nil // the SDK answers 400
	}
	return ns.srv.sdk
}

func (h *httpHandler) serveMCP(w http.ResponseWriter, r *http.Request) {
	if h.opts.WriteTimeout > 0 {
		w = &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: h.opts.WriteTimeout}
	}
	if r.Method == http.MethodPost {
		if !h.readBody(w, r) {
			return
		}
	}
	if r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" || !h.stateful {
		h.sdk.ServeHTTP(w, r)
		return
	}
	// A request without a session id: the SDK makes a session for it.
	var principal string
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		principal = ti.UserID
	}
	client := httpguard.ClientID(r, principal)
	release, status := h.sessions.lim.Acquire(client)
	if status != 0 {
		msg := "too many sessions"
		if status == http.StatusTooManyRequests {
			msg = "too many sessions for this client"
		}
		httpguard.Refuse(w, status, msg)
		h.srv.logger.WarnContext(r.Context(), "mcp: refused a session: "+msg, "max", h.sessions.max, "client", client)
		return
	}
	ns := &newSession{}
	r = r.WithContext(context.WithValue(r.Context(), newSessionKey{}, ns))
	h.sdk.ServeHTTP(w, r)
	// Keep the place while the session lives; the SDK closes sessions that failed to
	// initialize, and those that idled out, which ends Wait.
	srv := h.srv
	if ns.srv != nil {
		srv = ns.srv
	}
	ss := findSession(srv, w.Header().Get(sessionIDHeader))
	h.sessions.made(ss, release)
}

func findSession(s *Server, id string) *sdk.ServerSession {
	if id == "" {
		return nil
	}
	for ss := range s.sdk.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}

// readBody reads the whole body, within the size cap and the read timeout, and puts it back for
// the SDK. It answers the request itself and returns false when the body is refused.
func (h *httpHandler) readBody(w http.ResponseWriter, r *http.Request) bool {
	data, err := httpguard.ReadBody(w, r, h.opts.MaxRequestBytes, h.opts.ReadTimeout)
	if err != nil {
		var be *httpguard.BodyError
		errors.As(err, &be)
		if be.Status != http.StatusRequestEntityTooLarge {
			w.Header().Set("Connection", "close")
		}
		http.Error(w, be.Error(), be.Status)
		h.srv.logger.WarnContext(r.Context(), "mcp: refused a request body", "remote", r.RemoteAddr, "error", err)
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	r.ContentLength = int64(len(data))
	return true
}

// sessionSet keeps the sessions a handler made, each holding a place in lim (a reservation while
// it is being made) until it ends.
type sessionSet struct {
	max  int
	lim  *httpguard.Limiter
	mu   sync.Mutex
	live map[*sdk.ServerSession]func()
}

// made turns a reservation into ss, a live session (nil: none was made, the place is given
// back), kept until it ends.
func (l *sessionSet) made(ss *sdk.ServerSession, release func()) {
	if ss == nil {
		release()
		return
	}
	l.mu.Lock()
	l.live[ss] = release
	l.mu.Unlock()
	go func() {
		ss.Wait()
		l.mu.Lock()
		delete(l.live, ss)
		l.mu.Unlock()
		release()
	}()
}

// closeAll closes the live sessions.
func (l *sessionSet) closeAll() {
	l.mu.Lock()
	live := make([]*sdk.ServerSession, 0, len(l.live))
	for ss := range l.live {
		live = append(live, ss)
	}
	l.mu.Unlock()
	for _, ss := range live {
		ss.Close()
	}
}

// deadlineWriter gives each write of a response its own deadline, so a client that stops
// reading is cut off while a stream that writes now and then lives on.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (w *deadlineWriter) arm() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout)) }

func (w *deadlineWriter) WriteHeader(code int) {
	w.arm()
	w.ResponseWriter.WriteHeader(code)
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.arm()
	return w.ResponseWriter.Write(p)
}

func (w *deadlineWriter) Flush() {
	w.arm()
	_ = w.rc.Flush()
}

func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// checkOrigin refuses requests whose Origin is neither the server's own nor allowed, and answers
// CORS for the allowed ones.
func (h *httpHandler) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		allowed, sameOrigin := h.origins.Check(r)
		if !allowed {
			h.srv.logger.WarnContext(r.Context(), "mcp: refused a request from another origin", "origin", origin, "remote", r.RemoteAddr)
			http.Error(w, "Forbidden: origin not allowed", http.StatusForbidden)
			return
		}
		if !sameOrigin {
			hd := w.Header()
			hd.Set("Access-Control-Allow-Origin", origin)
			hd.Add("Vary", "Origin")
			hd.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				hd.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
				hd.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Last-Event-ID, Mcp-Session-Id, Mcp-Protocol-Version")
				hd.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
