// Package web serves a page to watch and steer a wield client's turns from a browser: chat
// streamed with its tool calls inline, approvals as buttons, the sessions of a memory store and
// the tool catalog. The page is plain HTML, CSS and JavaScript embedded in the binary (no build
// step, nothing fetched from the network), and it is an AG-UI client of the [agui.Handler] the
// server mounts at /agui, the same endpoint a user's own front end would use.
//
// Like Jupyter, the server is meant for 127.0.0.1 with a random token in its URL: every request
// must carry the token (in the URL, as a bearer header, or in the cookie the page gets when its
// URL is opened), and requests from another origin or naming another host are refused.
package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wield-ai/wield/agui"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/httpguard"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
)

//go:embed assets
var assets embed.FS

// DefaultMaxFormBytes caps the body of a tool called by hand, as agui's default caps a run.
const DefaultMaxFormBytes = agui.DefaultMaxRequestBytes

// Sessions is the part of a [memory.Repository] the page reads: the conversations to open.
type Sessions interface {
	Conversations(ctx context.Context) ([]string, error)
	Messages(ctx context.Context, id string) ([]chat.Message, error)
}

var _ Sessions = memory.Repository(nil)

// Config configures a [Server]. Client is required.
type Config struct {
	// Client runs the turns; give it a memory advisor over Sessions so that a session opened in
	// the page continues with its history.
	Client *client.Client
	// Turns is the client's turn store (see agui.Config.Turns).
	Turns client.TurnStore
	// Sessions lists the conversations the page can open; nil hides the list.
	Sessions Sessions
	// Tools is the catalog the page shows and can call by hand; Sources names where each comes
	// from ("built-in", an MCP server's name), by tool name.
	Tools   []tool.Tool
	Sources map[string]string
	// Asks reports whether a call of the tool waits for approval, for the catalog to show.
	Asks func(name string, m tool.Metadata) bool
	// Token is the secret every request carries; empty means a random one.
	Token string
	// Title names the page (the model, say).
	Title string
	// MaxFormBytes caps a tool's hand-made arguments and a run's input; zero means
	// DefaultMaxFormBytes.
	MaxFormBytes int64
	// RunTimeout bounds a turn (agui.Config.RunTimeout).
	RunTimeout time.Duration
	Logger     *slog.Logger
	// OnTurn, when set, learns of each turn of the page that ends with an answer, a turn whose
	// tab was closed included, for a turn log such as wield chat's. It runs after the turn, on
	// the goroutine of its run, with a context that is not cancelled when the page goes away.
	OnTurn func(ctx context.Context, t TurnRecord)
}

// TurnRecord describes a turn of the page that ended with an answer.
type TurnRecord struct {
	// Conversation is the session: the run's thread.
	Conversation string
	// Question is the index of the turn's question among the session's user messages, -1 when
	// unknown (no Sessions).
	Question int
	// At is when the turn started: for a turn that stopped for decisions, when its first run
	// did. Elapsed runs from At to the answer, time spent waiting for decisions included.
	At      time.Time
	Elapsed time.Duration
	// InputTokens and OutputTokens are the turn's usage, over every run of a turn that stopped.
	InputTokens, OutputTokens int
}

// Server is the page's http.Handler.
type Server struct {
	cfg     Config
	token   []byte
	origins httpguard.Origins // none listed: only the page's own origin

	watching sync.WaitGroup        // runs watched for OnTurn
	mu       sync.Mutex            // guards stopped
	stopped  map[string]*turnSoFar // by thread: the runs of a turn that stopped for decisions
	agui     *agui.Handler
	tools    map[string]tool.Tool
	files    http.Handler
}

// New returns the server of cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Client == nil {
		return nil, errors.New("web: Config.Client is required")
	}
	if cfg.Token == "" {
		var b [24]byte
		rand.Read(b[:])
		cfg.Token = hex.EncodeToString(b[:])
	}
	if cfg.MaxFormBytes <= 0 {
		cfg.MaxFormBytes = DefaultMaxFormBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	h, err := agui.New(agui.Config{Client: cfg.Client, Turns: cfg.Turns, MaxRequestBytes: cfg.MaxFormBytes,
		RunTimeout: cfg.RunTimeout, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, token: []byte(cfg.Token), agui: h, tools: map[string]tool.Tool{}}
	for _, t := range cfg.Tools {
		s.tools[t.Definition().Name] = t
	}
	sub, _ := fs.Sub(assets, "assets")
	s.files = http.FileServerFS(sub)
	return s, nil
}

// Token is the secret the page's URL carries.
func (s *Server) Token() string { return string(s.token) }

// URL is the page's address on a server listening at addr.
func (s *Server) URL(addr net.Addr) string {
	return "http://" + addr.String() + "/?token=" + url.QueryEscape(s.Token())
}

// Wait waits for the turns still running after their pages went away.
func (s *Server) Wait() {
	s.agui.Wait()
	s.watching.Wait()
}

// Serve serves the page on ln, which must be on loopback, until ctx ends, then waits for the
// running turns. The server is httpguard's: header and idle timeouts, a graceful shutdown and a
// cap on open connections.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if !httpguard.IsLoopback(ln.Addr()) {
		ln.Close()
		return fmt.Errorf("web: serve on a loopback address, not %s", ln.Addr())
	}
	return httpguard.Serve(ctx, ln, s, httpguard.ServerOptions{Logger: s.cfg.Logger, Stopped: s.Wait})
}

const cookieName = "wield_token"

// authorized checks the token, in constant time, wherever the request carries it.
func (s *Server) authorized(r *http.Request) bool {
	var given string
	if v := r.URL.Query().Get("token"); v != "" {
		given = v
	} else if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		given = v
	} else if c, err := r.Cookie(cookieName); err == nil {
		given = c.Value
	}
	return subtle.ConstantTimeCompare([]byte(given), s.token) == 1
}

// loopbackHost refuses DNS rebinding (a page of another site reaching 127.0.0.1 under its own
// name): the Host must be a loopback name.
func loopbackHost(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// ServeHTTP serves the page, its assets, the AG-UI endpoint and the page's small API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// No other origin is allowed: a browser's request from another page is refused.
	if ok, _ := s.origins.Check(r); !ok || !loopbackHost(r) {
		http.Error(w, "another origin or host", http.StatusForbidden)
		return
	}
	if !s.authorized(r) {
		http.Error(w, "unauthorized: open the URL wield web printed, with its token", http.StatusUnauthorized)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if r.URL.Query().Get("token") != "" {
		// The page's own requests carry the cookie; the URL's token is not kept in its history.
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.Token(), Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	}
	// Names in paths are read from the escaped path, unescaped once: a session may be named "a/b".
	raw := r.URL.EscapedPath()
	switch p := r.URL.Path; {
	case p == "/agui" && s.cfg.OnTurn != nil && r.Method == http.MethodPost:
		s.watchRun(w, r)
	case p == "/agui":
		s.agui.ServeHTTP(w, r)
	case p == "/api/info":
		s.getOnly(w, r, func() (any, int, error) {
			return map[string]any{"title": s.cfg.Title, "sessions": s.cfg.Sessions != nil}, 0, nil
		})
	case p == "/api/sessions":
		s.getOnly(w, r, func() (any, int, error) { return s.sessions(r.Context()) })
	case strings.HasPrefix(p, "/api/sessions/"):
		s.getOnly(w, r, func() (any, int, error) { return s.session(r.Context(), strings.TrimPrefix(raw, "/api/sessions/")) })
	case p == "/api/tools":
		s.getOnly(w, r, func() (any, int, error) { return s.catalog(), 0, nil })
	case strings.HasPrefix(p, "/api/tools/") && strings.HasSuffix(p, "/call"):
		s.call(w, r, strings.TrimSuffix(strings.TrimPrefix(raw, "/api/tools/"), "/call"))
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		s.files.ServeHTTP(w, r)
	default:
		http.Error(w, "not found", http.StatusNotFound)
	}
}

func (s *Server) getOnly(w http.ResponseWriter, r *http.Request, f func() (any, int, error)) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	v, status, err := f()
	if err != nil {
		if status == 0 {
			status = http.StatusInternalServerError
			s.cfg.Logger.ErrorContext(r.Context(), "web: request failed", "path", r.URL.Path, "error", err)
			err = errors.New("the request failed; the server's log says why")
		}
		http.Error(w, err.Error(), status)
		return
	}
	writeJSON(w, v)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func (s *Server) sessions(ctx context.Context) (any, int, error) {
	if s.cfg.Sessions == nil {
		return []string{}, 0, nil
	}
	ids, err := s.cfg.Sessions.Conversations(ctx)
	if err != nil {
		return nil, 0, err
	}
	slices.Sort(ids)
	slices.Reverse(ids) // unnamed chats are named by time: the newest first
	return ids, 0, nil
}

// pastMessage is a stored message as the page shows it.
type pastMessage struct {
	Role      string          `json:"role"`
	Content   string          `json:"content,omitempty"`
	ToolCalls []chat.ToolCall `json:"toolCalls,omitempty"`
	Results   []pastResult    `json:"toolResults,omitempty"`
}

type pastResult struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Content string `json:"content"`
	IsError bool   `json:"isError,omitempty"`
}

func (s *Server) session(ctx context.Context, raw string) (any, int, error) {
	id, err := url.PathUnescape(raw)
	if err == nil {
		err = memory.ValidateConversationID(id)
	}
	if err != nil || s.cfg.Sessions == nil {
		return nil, http.StatusBadRequest, errors.New("not a session's name")
	}
	msgs, err := s.cfg.Sessions.Messages(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	out := pastSession{Messages: []pastMessage{}, Pending: []agui.Interrupt{}}
	for _, m := range msgs {
		p := pastMessage{Role: string(m.Role), Content: m.Content, ToolCalls: m.ToolCalls}
		for _, r := range m.ToolResults {
			p.Results = append(p.Results, pastResult{ID: r.ID, Name: r.Name, Content: r.Content, IsError: r.IsError})
		}
		out.Messages = append(out.Messages, p)
	}
	if s.cfg.Turns != nil {
		st, err := s.cfg.Turns.LoadTurn(ctx, id)
		if err != nil {
			return nil, 0, err
		}
		out.Pending = agui.Interrupts(st)
	}
	return out, 0, nil
}

// pastSession is a stored conversation as the page shows it: its messages, and the calls of its
// stopped turn that wait for a decision, as the AG-UI interrupts a run that stopped would have
// ended with, so that the page answers them in the next run's resume.
type pastSession struct {
	Messages []pastMessage    `json:"messages"`
	Pending  []agui.Interrupt `json:"pending"`
}

// toolView is a catalog entry.
type toolView struct {
	tool.Definition
	Source string `json:"source,omitempty"`
	Asks   bool   `json:"asks"`
}

func (s *Server) catalog() []toolView {
	out := []toolView{}
	for _, t := range s.cfg.Tools {
		d := t.Definition()
		v := toolView{Definition: d, Source: s.cfg.Sources[d.Name]}
		if s.cfg.Asks != nil {
			v.Asks = s.cfg.Asks(d.Name, t.Metadata())
		} else {
			v.Asks = t.Metadata().RequiresApproval
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b toolView) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// call runs a tool by hand with the JSON arguments POSTed: the user at the page is who
// approves, so the approval policy does not apply.
func (s *Server) call(w http.ResponseWriter, r *http.Request, raw string) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "POST the arguments", http.StatusMethodNotAllowed)
		return
	}
	name, err := url.PathUnescape(raw)
	t, ok := s.tools[name]
	if err != nil || !ok {
		http.Error(w, "no such tool", http.StatusNotFound)
		return
	}
	body, err := httpguard.ReadBody(w, r, s.cfg.MaxFormBytes, agui.DefaultReadTimeout)
	if err != nil {
		var be *httpguard.BodyError
		errors.As(err, &be)
		msg := "cannot read the arguments"
		if be.Status == http.StatusRequestEntityTooLarge {
			msg = fmt.Sprintf("the arguments are over %d bytes", s.cfg.MaxFormBytes)
		}
		http.Error(w, msg, be.Status)
		return
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		http.Error(w, "the arguments are not a JSON object", http.StatusBadRequest)
		return
	}
	ctx := tool.WithCall(context.WithoutCancel(r.Context()), tool.Call{ID: "web-" + newID(), Name: name})
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	start := time.Now()
	res, err := tool.Invoke(ctx, t, string(body))
	out := map[string]any{"elapsedMs": time.Since(start).Milliseconds()}
	if err != nil {
		out["error"], out["content"] = true, err.Error()
	} else {
		out["content"] = res.Text
	}
	writeJSON(w, out)
}

func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
