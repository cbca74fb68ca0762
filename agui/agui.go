// Package agui serves a wield client's turns over AG-UI (https://docs.ag-ui.com), the event
// protocol between agent backends and front ends: a run of the client streamed as server-sent
// events, with text, reasoning, tool calls whose arguments stream as the model writes them, tool
// results, and approvals as AG-UI interrupts that the front end answers in the next run. An MCP
// server's question during a tool call is an interrupt too ([ReasonElicitation]); each model
// call's tokens and latency ([EventModelCall]) and each compaction ([EventCompaction]) are
// CUSTOM events, since the protocol has none for them.
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
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/httpguard"
)

// Defaults of [Config].
const (
	DefaultMaxRequestBytes = 1 << 20
	DefaultReadTimeout     = 30 * time.Second
	DefaultWriteTimeout    = 30 * time.Second
	DefaultRunTimeout      = 10 * time.Minute
	// Runs go on after their clients leave, so runs, not connections, are what a client holds.
	DefaultMaxRuns          = 256
	DefaultMaxRunsPerClient = 16
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
	// MaxRuns caps the runs going on at once, MaxRunsPerClient those of one client (its
	// Principal when set, else its remote IP address unless loopback), so that one client cannot
	// lock the others out: another run is refused with 503, or 429 for the client over its share,
	// and Retry-After. Zero means the defaults; negative means no cap.
	MaxRuns, MaxRunsPerClient int
	// Principal, when set, names the authenticated client of a request for MaxRunsPerClient.
	Principal func(*http.Request) string
	// MaxConns and MaxConnsPerClient cap the connections [Handler.Serve] holds open; a
	// connection over them is answered 503 and closed. Zero means httpguard's defaults (1024 and
	// 64); negative means no cap.
	MaxConns, MaxConnsPerClient int
	// Logger receives the errors of runs, which front ends see only as a short message; nil is
	// slog.Default().
	Logger *slog.Logger
}

// Handler is an http.Handler running a client's turns as AG-UI runs: POST a RunAgentInput,
// read the events as server-sent events.
type Handler struct {
	cfg     Config
	origins httpguard.Origins
	runs    *httpguard.Limiter
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
	if cfg.MaxRuns == 0 {
		cfg.MaxRuns = DefaultMaxRuns
	}
	if cfg.MaxRunsPerClient == 0 {
		cfg.MaxRunsPerClient = DefaultMaxRunsPerClient
	}
	origins, err := httpguard.ParseOrigins(cfg.AllowedOrigins)
	if err != nil {
		return nil, fmt.Errorf("agui: %w", err)
	}
	return &Handler{cfg: cfg, origins: origins, runs: httpguard.NewLimiter(cfg.MaxRuns, cfg.MaxRunsPerClient)}, nil
}

// Wait waits for the turns still running after their clients went away.
func (h *Handler) Wait() { h.wg.Wait() }

// Serve serves h on ln until ctx ends, then shuts down, waiting for running turns. A listener on
// an address other than loopback needs an Authorize hook (or AllowUnauthenticatedRemote).
func (h *Handler) Serve(ctx context.Context, ln net.Listener) error {
	if h.cfg.Authorize == nil && !h.cfg.AllowUnauthenticatedRemote && !httpguard.IsLoopback(ln.Addr()) {
		ln.Close()
		return fmt.Errorf("%w (%s)", ErrUnauthenticatedRemote, ln.Addr())
	}
	return httpguard.Serve(ctx, ln, h, httpguard.ServerOptions{
		Logger:  h.cfg.Logger,
		Conns:   &httpguard.ConnLimits{Total: h.cfg.MaxConns, PerClient: h.cfg.MaxConnsPerClient},
		Stopped: h.Wait,
	})
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
	if ok, _ := h.origins.Check(r); !ok {
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
	var principal string
	if h.cfg.Principal != nil {
		principal = h.cfg.Principal(r)
	}
	release, status := h.runs.Acquire(httpguard.ClientID(r, principal))
	if status != 0 {
		msg := "too many runs"
		if status == http.StatusTooManyRequests {
			msg = "too many runs for this client"
		}
		httpguard.Refuse(w, status, msg)
		return
	}
	spec, prior, err := h.spec(r.Context(), in)
	if err != nil {
		release()
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
		defer release()
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
	body, err := httpguard.ReadBody(w, r, h.cfg.MaxRequestBytes, h.cfg.ReadTimeout)
	if err != nil {
		var be *httpguard.BodyError
		errors.As(err, &be)
		if be.Status == http.StatusRequestEntityTooLarge {
			return nil, be.Status, fmt.Errorf("the run input is over %d bytes", h.cfg.MaxRequestBytes)
		}
		return nil, be.Status, errors.New("cannot read the run input")
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
