// Package agui serves a wield client's turns over AG-UI (https://docs.ag-ui.com), the event
// protocol between agent backends and front ends: a run of the client streamed as server-sent
// events, with text, reasoning, tool calls whose arguments stream as the model writes them, tool
// results, and approvals as AG-UI interrupts that the front end answers in the next run.
//
// Mount the [Handler] in any net/http server. Give the client a memory advisor: a run's threadId
// is the conversation ([client.ParamConversationID]), so the history comes from the memory store
// and each run sends only its new user message.
package agui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/wield-ai/wield/client"
)

// Defaults of [Config].
const (
	DefaultMaxRequestBytes = 1 << 20
	DefaultReadTimeout     = 30 * time.Second
	DefaultWriteTimeout    = 30 * time.Second
	DefaultRunTimeout      = 10 * time.Minute
)

// ErrUnauthenticatedRemote is returned by [Handler.Serve] for a listener on an address other than
// loopback when no Authorize hook is set and [Config.AllowUnauthenticatedRemote] is not.
var ErrUnauthenticatedRemote = errors.New("agui: refusing to serve a non-loopback address without authentication")

// Config configures a [Handler]. Only Client is required.
type Config struct {
	// Client runs the turns. Give it a memory advisor, so that a thread's history is kept, and,
	// for approvals that survive a restart, a turn store ([client.WithTurnStore]).
	Client *client.Client
	// Turns is the client's turn store, where a stopped run's turn is found when the next run
	// answers its interrupts. Nil keeps stopped turns in this process only.
	Turns client.TurnStore
	// Authorize, when set, is asked for every request before anything is read; an error refuses
	// the request with 401 (its text is not sent).
	Authorize func(*http.Request) error
	// AllowedOrigins lists the origins ("https://app.example.com") from which browsers may call
	// the handler besides its own host; a request whose Origin header is neither is refused with
	// 403. "*" allows every origin. Requests without an Origin (not from a browser) pass.
	AllowedOrigins []string
	// AllowUnauthenticatedRemote lets [Handler.Serve] serve an address other than loopback
	// without an Authorize hook. Anyone who can reach the address can then run the client.
	AllowUnauthenticatedRemote bool
	// MaxRequestBytes caps a run's input; a larger one is refused with 413. Zero means
	// DefaultMaxRequestBytes.
	MaxRequestBytes int64
	// ReadTimeout bounds reading a run's input; WriteTimeout each write of its events, so that a
	// client that stops reading does not hold the turn. Zero means the defaults.
	ReadTimeout, WriteTimeout time.Duration
	// RunTimeout bounds a turn. A turn does not end when its client goes away (a closed tab): it
	// finishes, or stops for approval, so that nothing it did is lost. Zero means
	// DefaultRunTimeout.
	RunTimeout time.Duration
	// Logger receives the errors of runs, which front ends see only as a short message; nil is
	// slog.Default().
	Logger *slog.Logger
}

// Handler is an http.Handler running a client's turns as AG-UI runs: POST a RunAgentInput,
// read the events as server-sent events.
type Handler struct {
	cfg     Config
	origins map[string]bool
	anyOrig bool
	pending sync.Map // threadId → *client.TurnState, when cfg.Turns is nil
	wg      sync.WaitGroup
}

// New returns a handler for cfg.
func New(cfg Config) (*Handler, error) {
	if cfg.Client == nil {
		return nil, errors.New("agui: Config.Client is required")
	}
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.RunTimeout <= 0 {
		cfg.RunTimeout = DefaultRunTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	h := &Handler{cfg: cfg, origins: map[string]bool{}}
	for _, o := range cfg.AllowedOrigins {
		if o == "*" {
			h.anyOrig = true
			continue
		}
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return nil, fmt.Errorf("agui: allowed origin %q is not scheme://host[:port]", o)
		}
		h.origins[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	return h, nil
}

// Wait waits for the turns still running after their clients went away.
func (h *Handler) Wait() { h.wg.Wait() }

// Serve serves h on ln until ctx ends, then shuts down, waiting for running turns. A listener on
// an address other than loopback needs an Authorize hook (or AllowUnauthenticatedRemote).
func (h *Handler) Serve(ctx context.Context, ln net.Listener) error {
	if h.cfg.Authorize == nil && !h.cfg.AllowUnauthenticatedRemote && !isLoopback(ln.Addr()) {
		ln.Close()
		return fmt.Errorf("%w (%s)", ErrUnauthenticatedRemote, ln.Addr())
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(h.cfg.Logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(shutdown); err != nil {
			hs.Close()
		}
		<-done
		h.Wait()
		return nil
	}
}

func isLoopback(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originAllowed reports whether a browser on the request's Origin may call the handler: its own
// host, a listed origin, or no Origin at all.
func (h *Handler) originAllowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	if h.anyOrig {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	return h.origins[strings.ToLower(u.Scheme+"://"+u.Host)]
}

func (h *Handler) cors(w http.ResponseWriter, r *http.Request) {
	o := r.Header.Get("Origin")
	if o == "" {
		return
	}
	w.Header().Set("Access-Control-Allow-Origin", o)
	w.Header().Set("Vary", "Origin")
	w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Authorization, Accept")
	w.Header().Set("Access-Control-Allow-Methods", "POST, OPTIONS")
}

// ServeHTTP runs one AG-UI run.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.originAllowed(r) {
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	h.cors(w, r)
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if h.cfg.Authorize != nil {
		if err := h.cfg.Authorize(r); err != nil {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST, OPTIONS")
		http.Error(w, "POST a RunAgentInput", http.StatusMethodNotAllowed)
		return
	}
	in, status, err := h.readInput(w, r)
	if err != nil {
		http.Error(w, err.Error(), status)
		return
	}
	spec, prior, err := h.spec(r.Context(), in)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}

	out := newSSE(w, h.cfg.WriteTimeout)
	// The turn runs on its own: a client going away stops the events, not the turn, which
	// finishes (or stops for approval) with everything it did stored.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), h.cfg.RunTimeout)
	h.wg.Add(1)
	done := make(chan struct{})
	go func() {
		defer h.wg.Done()
		defer close(done)
		defer cancel()
		t := &translator{out: out, threadID: in.ThreadID, runID: in.RunID, open: map[string]bool{}, started: map[string]bool{}}
		t.run(ctx, h, spec, prior)
	}()
	select {
	case <-done:
	case <-r.Context().Done():
		out.kill() // the turn goes on; its events go nowhere
	}
}

// runInput is the part of AG-UI's RunAgentInput the handler reads.
type runInput struct {
	ThreadID string          `json:"threadId"`
	RunID    string          `json:"runId"`
	Messages []inputMessage  `json:"messages"`
	Resume   []resumeEntry   `json:"resume"`
	State    json.RawMessage `json:"state"`
}

type inputMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type resumeEntry struct {
	InterruptID string          `json:"interruptId"`
	Status      string          `json:"status"`
	Payload     json.RawMessage `json:"payload"`
}

const maxIDLength = 256

func (h *Handler) readInput(w http.ResponseWriter, r *http.Request) (*runInput, int, error) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.cfg.ReadTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.cfg.MaxRequestBytes))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("the run input is over %d bytes", h.cfg.MaxRequestBytes)
		}
		return nil, http.StatusRequestTimeout, errors.New("cannot read the run input")
	}
	var in runInput
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, http.StatusBadRequest, errors.New("the run input is not a RunAgentInput JSON object")
	}
	for name, v := range map[string]string{"threadId": in.ThreadID, "runId": in.RunID} {
		if v == "" || len(v) > maxIDLength {
			return nil, http.StatusBadRequest, fmt.Errorf("the run input needs a %s of 1 to %d bytes", name, maxIDLength)
		}
	}
	return &in, 0, nil
}

// newID returns a random id for messages.
func newID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
