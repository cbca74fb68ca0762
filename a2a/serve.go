package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/httpguard"
	"github.com/wield-ai/wield/memory"
)

// Defaults of [ServerConfig].
const (
	DefaultMaxRequestBytes = 1 << 20
	DefaultReadTimeout     = 30 * time.Second
	DefaultWriteTimeout    = 30 * time.Second
	DefaultRunTimeout      = 10 * time.Minute
	DefaultKeepWaiting     = 24 * time.Hour
	DefaultKeepFinished    = time.Hour
	DefaultMaxOpenTasks    = 100
	DefaultTaskLease       = 30 * time.Second
	DefaultSweepInterval   = time.Minute
)

// CardPath is where a server serves its agent card, as A2A 0.3 clients look for it.
const CardPath = "/.well-known/agent-card.json"

// ErrUnauthenticatedRemote is returned by [Server.Serve] for a listener on an address other than
// loopback when no Authorize hook is set and [ServerConfig.AllowUnauthenticatedRemote] is not.
var ErrUnauthenticatedRemote = errors.New("a2a: refusing to serve a non-loopback address without authentication")

// ServerConfig configures a [Server]. Only Client is required.
type ServerConfig struct {
	// Client runs the tasks: each task is one of its turns, in the conversation named by the
	// task's context id. Give it a memory advisor so that a context's history is kept, and a
	// turn store ([client.WithTurnStore]) so that a turn resumed in another replica runs once.
	// The card's skills are its tools unless Skills are given.
	Client *client.Client
	// Runner, when set, runs the tasks' turns instead of Client (see [Runner]); Client, if
	// given too, only describes the agent's skills.
	Runner Runner
	// Tasks keeps the tasks, with the turns they wait on; nil keeps them in this process
	// (memory.InMemory). Give the repository of the client's memory (SQLite, PostgreSQL) and a
	// task that waits for input survives a restart.
	Tasks memory.TurnRepository

	// Name and Description describe the agent on its card; "wield" and a sentence listing its
	// skills when empty.
	Name, Description string
	// Version is the agent's version on its card; "1.0.0" when empty.
	Version string
	// URL is the agent's JSON-RPC endpoint on its card; when empty, the card names the host it
	// was asked from.
	URL string
	// Skills are the card's skills; nil describes one skill per tool of the client.
	Skills []sdk.AgentSkill
	// SecuritySchemes and Security declare on the card what Authorize checks.
	SecuritySchemes sdk.NamedSecuritySchemes
	Security        []sdk.SecurityRequirements

	// Authorize, when set, is asked for every request but the card's before anything is read:
	// an error refuses it with 401 (its text is not sent); the principal it returns owns the
	// tasks the request creates, and no other principal can see, continue or cancel them.
	Authorize func(*http.Request) (principal string, err error)
	// AllowedOrigins lists the origins ("https://app.example.com") whose browsers may call the
	// server; a request with another Origin header is refused with 403. Requests without one
	// (not from a browser) pass.
	AllowedOrigins []string
	// AllowUnauthenticatedRemote lets [Server.Serve] serve an address other than loopback without
	// an Authorize hook.
	AllowUnauthenticatedRemote bool
	// MaxRequestBytes caps a request's body (413 over it); DefaultMaxRequestBytes when zero.
	MaxRequestBytes int64
	// ReadTimeout bounds reading a request; WriteTimeout each write of a stream, so that a client
	// that stops reading does not hold the server. Zero means the defaults.
	ReadTimeout, WriteTimeout time.Duration
	// RunTimeout bounds one turn of a task. A turn does not end when its client goes away: it
	// finishes, or stops for input, with everything it did stored. DefaultRunTimeout when zero.
	RunTimeout time.Duration
	// KeepWaiting is how long a task waiting for its caller (input-required, auth-required) is
	// kept, from its last change, and KeepFinished a task that is over; then it is removed, with
	// the stopped turn it holds, and the protocol's task-not-found answers for it (a principal's
	// finished tasks past MaxFinishedTasks go sooner, oldest first). DefaultKeepWaiting and
	// DefaultKeepFinished when zero.
	KeepWaiting, KeepFinished time.Duration
	// MaxOpenTasks bounds the tasks of one principal that are not over (working or waiting): a
	// new one past it is refused. DefaultMaxOpenTasks when zero, no bound when negative. Without
	// an Authorize hook every caller is the same principal, and the bound is each caller's by its
	// address (loopback callers count as one), within ten times it for all of them together.
	MaxOpenTasks int
	// TaskLease is how long a working task's process vouches for it before it renews the
	// vouching (every third of it); a working task whose lease passed belongs to a process that
	// ended, and the next look at it (a get, a sweep) settles it (see TurnStore).
	// DefaultTaskLease when zero.
	TaskLease time.Duration
	// TurnStore is the client's turn store ([client.WithTurnStore]), when it has one. A task
	// whose process ended mid-turn is then continued from the turn's last saved state: it waits
	// for a decision on the calls that were running, or for a reply to go on after its last
	// completed round. Without it such a task fails.
	TurnStore client.TurnStore
	// SweepInterval is how often [Server.Serve] removes expired tasks and settles abandoned ones
	// ([Server.Sweep]); DefaultSweepInterval when zero.
	SweepInterval time.Duration
	// Push, when set, turns on push notifications (the card says so).
	Push *PushConfig
	// Logger receives what clients see only as a short message; nil is slog.Default().
	Logger *slog.Logger
}

// Server serves a client as an A2A agent (JSON-RPC transport, protocol 0.3): its card at
// [CardPath], and message/send, message/stream, tasks/get, tasks/cancel and tasks/resubscribe at
// "/". Each task is a turn of the client; a turn that stops for approval or an interrupt is a
// task in input-required, described by the pending calls, and the next message on the task
// decides them and resumes the turn.
type Server struct {
	cfg     ServerConfig
	runner  Runner
	tasks   *taskStore
	rpc     http.Handler
	card    sdk.AgentCard
	origins httpguard.Origins
}

// NewServer returns a server for cfg.
func NewServer(ctx context.Context, cfg ServerConfig) (*Server, error) {
	if cfg.Client == nil && cfg.Runner == nil {
		return nil, errors.New("a2a: ServerConfig.Client or Runner is required")
	}
	if cfg.Tasks == nil {
		cfg.Tasks = memory.NewInMemory()
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
	if cfg.KeepWaiting <= 0 {
		cfg.KeepWaiting = DefaultKeepWaiting
	}
	if cfg.KeepFinished <= 0 {
		cfg.KeepFinished = DefaultKeepFinished
	}
	if cfg.MaxOpenTasks == 0 {
		cfg.MaxOpenTasks = DefaultMaxOpenTasks
	}
	if cfg.TaskLease <= 0 {
		cfg.TaskLease = DefaultTaskLease
	}
	if cfg.SweepInterval <= 0 {
		cfg.SweepInterval = DefaultSweepInterval
	}
	origins, err := httpguard.ParseOrigins(cfg.AllowedOrigins)
	if err != nil {
		return nil, fmt.Errorf("a2a: %w", err)
	}
	s := &Server{cfg: cfg, origins: origins, runner: cfg.Runner}
	if s.runner == nil {
		s.runner = ClientRunner(cfg.Client)
	}
	s.tasks = newTaskStore(cfg.Tasks, life{
		now:          time.Now,
		keepWaiting:  cfg.KeepWaiting,
		keepFinished: cfg.KeepFinished,
		lease:        cfg.TaskLease,
		maxOpen:      cfg.MaxOpenTasks,
		maxFinished:  MaxFinishedTasks,
		turns:        cfg.TurnStore,
	})
	if tc, ok := s.runner.(TurnCanceler); ok {
		s.tasks.endTurn = func(ctx context.Context, id sdk.TaskID) {
			if err := tc.CancelTurn(ctx, string(id)); err != nil {
				cfg.Logger.ErrorContext(ctx, "a2a: cancelling the turn of a task whose process ended", "task", id, "error", err)
			}
		}
	}
	if tf, ok := s.runner.(TurnFollower); ok {
		s.tasks.follow = func(ctx context.Context, id sdk.TaskID) (TurnStatus, error) {
			ts, err := tf.TurnStatus(ctx, string(id))
			if err == nil && ts.Failed != nil {
				cfg.Logger.ErrorContext(ctx, "a2a: the turn of a task whose process ended failed", "task", id, "error", ts.Failed)
			}
			return ts, err
		}
	}
	card, err := s.makeCard(ctx)
	if err != nil {
		return nil, err
	}
	s.card = card
	opts := []a2asrv.RequestHandlerOption{a2asrv.WithTaskStore(s.tasks), a2asrv.WithLogger(cfg.Logger)}
	po, err := s.pushOption()
	if err != nil {
		return nil, err
	}
	if po != nil {
		opts = append(opts, po)
		s.card.Capabilities.PushNotifications = true
	}
	inner := a2asrv.NewHandler(&executor{s: s}, opts...)
	s.rpc = a2asrv.NewJSONRPCHandler(&guarded{RequestHandler: inner, s: s})
	return s, nil
}

// makeCard describes the agent: skills from the client's tools unless given.
func (s *Server) makeCard(ctx context.Context) (sdk.AgentCard, error) {
	cfg := s.cfg
	skills := cfg.Skills
	if skills == nil && cfg.Client == nil {
		skills = []sdk.AgentSkill{}
	}
	if skills == nil {
		req, err := cfg.Client.Prompt().Request(ctx)
		if err != nil {
			return sdk.AgentCard{}, fmt.Errorf("a2a: listing the client's tools: %w", err)
		}
		skills = []sdk.AgentSkill{}
		if req.Prompt.Options != nil {
			for _, t := range req.Prompt.Options.Tools {
				d := t.Definition()
				skills = append(skills, sdk.AgentSkill{ID: d.Name, Name: d.Name, Description: d.Description, Tags: []string{"tool"}})
			}
		}
	}
	name := cfg.Name
	if name == "" {
		name = "wield"
	}
	desc := cfg.Description
	if desc == "" {
		names := make([]string, len(skills))
		for i, sk := range skills {
			names[i] = sk.Name
		}
		desc = "An agent"
		if len(names) > 0 {
			desc += " that can use: " + strings.Join(names, ", ")
		}
		desc += "."
	}
	version := cfg.Version
	if version == "" {
		version = "1.0.0"
	}
	return sdk.AgentCard{
		Name:               name,
		Description:        desc,
		Version:            version,
		URL:                cfg.URL,
		ProtocolVersion:    "0.3.0",
		PreferredTransport: sdk.TransportProtocolJSONRPC,
		Capabilities:       sdk.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills:             skills,
		SecuritySchemes:    cfg.SecuritySchemes,
		Security:           cfg.Security,
	}, nil
}

// Card returns the agent's card; its URL is empty when [ServerConfig.URL] is.
func (s *Server) Card() *sdk.AgentCard {
	c := s.card
	return &c
}

// ServeHTTP serves the card (GET [CardPath]) and the JSON-RPC endpoint (POST /).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ok, _ := s.origins.Check(r); !ok {
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	if r.URL.Path == CardPath {
		s.serveCard(w, r)
		return
	}
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	if o := r.Header.Get("Origin"); o != "" {
		w.Header().Set("Access-Control-Allow-Origin", o)
		w.Header().Set("Vary", "Origin")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Authorization, Accept")
		w.Header().Set("Access-Control-Allow-Methods", "POST, OPTIONS")
	}
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	var who string
	if s.cfg.Authorize != nil {
		p, err := s.cfg.Authorize(r)
		if err != nil {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		who = p
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST, OPTIONS")
		http.Error(w, "POST a JSON-RPC request", http.StatusMethodNotAllowed)
		return
	}
	body, err := httpguard.ReadBody(w, r, s.cfg.MaxRequestBytes, s.cfg.ReadTimeout)
	if err != nil {
		var be *httpguard.BodyError
		errors.As(err, &be)
		if be.Status == http.StatusRequestEntityTooLarge {
			http.Error(w, fmt.Sprintf("the request is over %d bytes", s.cfg.MaxRequestBytes), be.Status)
			return
		}
		http.Error(w, "cannot read the request", be.Status)
		return
	}
	ctx := context.WithValue(r.Context(), principalKey{}, who)
	if who == "" {
		ctx = context.WithValue(ctx, clientKey{}, httpguard.ClientID(r, ""))
	}
	r = r.WithContext(ctx)
	r.Body = io.NopCloser(bytes.NewReader(body))
	w.Header().Set("Content-Type", "application/json")
	s.rpc.ServeHTTP(&deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: s.cfg.WriteTimeout}, r)
}

func (s *Server) serveCard(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET")
		http.Error(w, "GET the agent card", http.StatusMethodNotAllowed)
		return
	}
	card := s.card
	if card.URL == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		card.URL = scheme + "://" + r.Host + "/"
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Access-Control-Allow-Origin", "*") // the card is public
	_ = json.NewEncoder(w).Encode(card)
}

// Serve serves s on ln until ctx ends, then shuts down. A listener on an address other than
// loopback needs an Authorize hook (or AllowUnauthenticatedRemote).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.cfg.Authorize == nil && !s.cfg.AllowUnauthenticatedRemote && !httpguard.IsLoopback(ln.Addr()) {
		ln.Close()
		return fmt.Errorf("%w (%s)", ErrUnauthenticatedRemote, ln.Addr())
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	go s.sweepEvery(sctx)
	return httpguard.Serve(ctx, ln, s, httpguard.ServerOptions{Logger: s.cfg.Logger})
}

// Sweep removes the tasks whose time passed ([ServerConfig.KeepWaiting], KeepFinished) and
// settles working tasks whose process ended ([ServerConfig.TaskLease]). [Server.Serve] sweeps
// when it starts and then every SweepInterval; a server mounted otherwise may call it. Tasks are
// also brought up to date whenever a caller asks for one.
func (s *Server) Sweep(ctx context.Context) error { return s.tasks.sweep(ctx) }

func (s *Server) sweepEvery(ctx context.Context) {
	t := time.NewTicker(s.cfg.SweepInterval)
	defer t.Stop()
	for {
		if err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
			s.cfg.Logger.ErrorContext(ctx, "a2a: sweeping tasks", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// deadlineWriter sets a write deadline before each write, so that a stream's reader that stops
// reading frees the server; the SDK's stream writer needs Flush.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout))
	return d.ResponseWriter.Write(p)
}

func (d *deadlineWriter) Flush() { _ = d.rc.Flush() }

func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

type principalKey struct{}

// principal is the caller the Authorize hook named for the request ctx belongs to.
func principal(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}

// clientKey holds, in a request's context, the address of an anonymous caller ("" on loopback).
type clientKey struct{}

func clientOf(ctx context.Context) string {
	c, _ := ctx.Value(clientKey{}).(string)
	return c
}

// guarded refuses what concerns a task the caller does not own, as if the task did not exist.
type guarded struct {
	a2asrv.RequestHandler
	s *Server
}

func (g *guarded) own(ctx context.Context, id sdk.TaskID) error {
	if err := g.s.tasks.check(ctx, id); err != nil {
		g.s.cfg.Logger.ErrorContext(ctx, "a2a: settling a task", "task", id, "error", err)
		return sdk.ErrInternalError
	}
	rec, _, ok, err := g.s.tasks.load(ctx, id)
	if err != nil {
		g.s.cfg.Logger.ErrorContext(ctx, "a2a: loading a task", "task", id, "error", err)
		return sdk.ErrInternalError
	}
	if !ok || rec.Owner != principal(ctx) {
		return sdk.ErrTaskNotFound
	}
	return nil
}

// owned answers a request about one task: missing params are invalid, a task of another caller
// is not found, and the caller's own task goes on to next.
func owned[P, R any](g *guarded, ctx context.Context, p *P, task func(*P) sdk.TaskID, next func(context.Context, *P) (R, error)) (R, error) {
	var none R
	if p == nil {
		return none, sdk.ErrInvalidParams
	}
	if err := g.own(ctx, task(p)); err != nil {
		return none, err
	}
	return next(ctx, p)
}

func (g *guarded) OnGetTask(ctx context.Context, q *sdk.TaskQueryParams) (*sdk.Task, error) {
	return owned(g, ctx, q, func(q *sdk.TaskQueryParams) sdk.TaskID { return q.ID }, g.RequestHandler.OnGetTask)
}

func (g *guarded) OnCancelTask(ctx context.Context, p *sdk.TaskIDParams) (*sdk.Task, error) {
	return owned(g, ctx, p, func(p *sdk.TaskIDParams) sdk.TaskID { return p.ID }, g.RequestHandler.OnCancelTask)
}

func (g *guarded) checkSend(ctx context.Context, p *sdk.MessageSendParams) error {
	if p == nil || p.Message == nil {
		return sdk.ErrInvalidParams
	}
	if p.Message.TaskID == "" {
		if g.s.cfg.MaxOpenTasks > 0 {
			n, full, err := g.s.tasks.openTasks(ctx, principal(ctx))
			if err != nil {
				g.s.cfg.Logger.ErrorContext(ctx, "a2a: counting open tasks", "error", err)
				return sdk.ErrInternalError
			}
			if full {
				return fmt.Errorf("%d tasks of this caller are open, the most this agent keeps: finish or cancel one first: %w", n, sdk.ErrInvalidRequest)
			}
		}
		if p.Message.ContextID == "" {
			return nil
		}
		id, err := g.s.tasks.waiting(ctx, conversation(principal(ctx), p.Message.ContextID))
		if err != nil {
			g.s.cfg.Logger.ErrorContext(ctx, "a2a: loading a context's waiting task", "error", err)
			return sdk.ErrInternalError
		}
		if id != "" {
			return fmt.Errorf("the context has task %s waiting for input: answer or cancel it first: %w", id, sdk.ErrInvalidParams)
		}
		return nil
	}
	if err := g.own(ctx, p.Message.TaskID); err != nil {
		return err
	}
	rec, _, _, err := g.s.tasks.load(ctx, p.Message.TaskID)
	if err != nil {
		return sdk.ErrInternalError
	}
	if st := rec.Task.Status.State; !waits(st) {
		return fmt.Errorf("the task is %s, not waiting for input: %w", st, sdk.ErrInvalidParams)
	}
	return nil
}

// withCredentials takes the credentials out of the message, into the context its run reads
// them from.
func (g *guarded) withCredentials(ctx context.Context, p *sdk.MessageSendParams) (context.Context, error) {
	creds, err := takeCredentials(p.Message)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", sdk.ErrInvalidParams, err.Error())
	}
	return withCredentials(ctx, creds), nil
}

func (g *guarded) OnSendMessage(ctx context.Context, p *sdk.MessageSendParams) (sdk.SendMessageResult, error) {
	if err := g.checkSend(ctx, p); err != nil {
		return nil, err
	}
	ctx, err := g.withCredentials(ctx, p)
	if err != nil {
		return nil, err
	}
	for wait := 5 * time.Millisecond; ; wait *= 2 {
		res, err := g.RequestHandler.OnSendMessage(ctx, p)
		if !busy(err) || wait > time.Second {
			return res, err
		}
		if sleep(ctx, wait) != nil {
			return nil, err
		}
	}
}

func (g *guarded) OnSendMessageStream(ctx context.Context, p *sdk.MessageSendParams) iter.Seq2[sdk.Event, error] {
	return func(yield func(sdk.Event, error) bool) {
		if err := g.checkSend(ctx, p); err != nil {
			yield(nil, err)
			return
		}
		ctx, err := g.withCredentials(ctx, p)
		if err != nil {
			yield(nil, err)
			return
		}
		for wait := 5 * time.Millisecond; ; wait *= 2 {
			first := true
			retry := false
			for ev, err := range g.RequestHandler.OnSendMessageStream(ctx, p) {
				if first && busy(err) && wait <= time.Second && sleep(ctx, wait) == nil {
					retry = true
					break
				}
				first = false
				if !yield(ev, err) {
					return
				}
			}
			if !retry {
				return
			}
		}
	}
}

// busy reports whether the SDK refused a message because the task's previous execution has not
// yet been cleaned up: the task's final event reaches its client just before, so a client that
// answers at once meets it. The SDK's error is internal to it, hence the text.
func busy(err error) bool {
	return err != nil && strings.Contains(err.Error(), "execution is already in progress")
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// OnResubscribeToTask streams a running task's events; a task that is not running (waiting for
// input, or over) yields its current state once.
func (g *guarded) OnResubscribeToTask(ctx context.Context, p *sdk.TaskIDParams) iter.Seq2[sdk.Event, error] {
	return func(yield func(sdk.Event, error) bool) {
		if p == nil {
			yield(nil, sdk.ErrInvalidParams)
			return
		}
		if err := g.own(ctx, p.ID); err != nil {
			yield(nil, err)
			return
		}
		first := true
		for ev, err := range g.RequestHandler.OnResubscribeToTask(ctx, p) {
			if first && errors.Is(err, sdk.ErrTaskNotFound) {
				t, gerr := g.s.tasks.Get(ctx, p.ID)
				if gerr != nil {
					yield(nil, sdk.ErrTaskNotFound)
					return
				}
				yield(t, nil)
				return
			}
			first = false
			if !yield(ev, err) {
				return
			}
		}
	}
}
