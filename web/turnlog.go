package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/wield-ai/wield/chat"
)

// turnSoFar is what the runs of a stopped turn took, until a run of it ends with an answer.
type turnSoFar struct {
	at                        time.Time
	inputTokens, outputTokens int
}

// maxStopped bounds the stopped turns remembered for OnTurn; a turn over it is recorded from
// its last run.
const maxStopped = 1024

// watchRun serves a run through the AG-UI handler while reading its events for OnTurn. The
// handler gets a request that its page leaving does not cancel, and a writer that keeps taking
// events once the page is gone: the turn goes on either way (agui lets it), and its end is seen.
func (s *Server) watchRun(w http.ResponseWriter, r *http.Request) {
	s.watching.Add(1)
	defer s.watching.Done()
	rw := &runWatch{w: w, rc: http.NewResponseController(w), gone: r.Context().Done(), start: time.Now()}
	s.agui.ServeHTTP(rw, r.WithContext(context.WithoutCancel(r.Context())))
	if rw.thread == "" || rw.outcome == "" {
		return // refused before it started, or failed
	}
	s.mu.Lock()
	so := s.stopped[rw.thread]
	if so == nil {
		so = &turnSoFar{at: rw.start}
	}
	so.inputTokens += rw.usage.InputTokens
	so.outputTokens += rw.usage.OutputTokens
	if rw.outcome == "interrupt" {
		if s.stopped == nil {
			s.stopped = map[string]*turnSoFar{}
		}
		if len(s.stopped) < maxStopped || s.stopped[rw.thread] != nil {
			s.stopped[rw.thread] = so
		}
		s.mu.Unlock()
		return
	}
	delete(s.stopped, rw.thread)
	s.mu.Unlock()
	ctx := context.WithoutCancel(r.Context())
	t := TurnRecord{Conversation: rw.thread, Question: -1, At: so.at, Elapsed: time.Since(so.at),
		InputTokens: so.inputTokens, OutputTokens: so.outputTokens}
	if s.cfg.Sessions != nil {
		if msgs, err := s.cfg.Sessions.Messages(ctx, rw.thread); err == nil {
			for _, m := range msgs {
				if m.Role == chat.RoleUser {
					t.Question++
				}
			}
		}
	}
	s.cfg.OnTurn(ctx, t)
}

// runWatch is the writer of a watched run: it reads the run's thread, outcome and usage from the
// events as they pass, and forwards them to the page while it is there.
type runWatch struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	gone  <-chan struct{} // the page's request ended
	dead  bool            // a write to the page failed
	start time.Time
	buf   []byte // an event not yet whole

	thread  string
	outcome string // "success" or "interrupt"; empty while the run goes on, or when it failed
	usage   struct{ InputTokens, OutputTokens int }
}

func (rw *runWatch) Header() http.Header { return rw.w.Header() }

func (rw *runWatch) WriteHeader(code int) {
	if !rw.away() {
		rw.w.WriteHeader(code)
	}
}

func (rw *runWatch) away() bool {
	if !rw.dead {
		select {
		case <-rw.gone:
			rw.dead = true
		default:
		}
	}
	return rw.dead
}

// Write reads the events in p and forwards p; once the page is gone, it only reads.
func (rw *runWatch) Write(p []byte) (int, error) {
	rw.buf = append(rw.buf, p...)
	for {
		i := bytes.Index(rw.buf, []byte("\n\n"))
		if i < 0 {
			break
		}
		rw.event(rw.buf[:i])
		rw.buf = rw.buf[i+2:]
	}
	if len(rw.buf) == 0 {
		rw.buf = rw.buf[:0:0] // an event per write, the usual case, keeps nothing
	}
	if !rw.away() {
		if _, err := rw.w.Write(p); err != nil {
			rw.dead = true
		}
	}
	return len(p), nil
}

// event reads the events the record needs: the run's start and its end.
func (rw *runWatch) event(frame []byte) {
	data, ok := bytes.CutPrefix(frame, []byte("data: "))
	if !ok || !(bytes.Contains(data, []byte(`"RUN_STARTED"`)) || bytes.Contains(data, []byte(`"RUN_FINISHED"`))) {
		return
	}
	var ev struct {
		Type     string `json:"type"`
		ThreadID string `json:"threadId"`
		Outcome  struct {
			Type string `json:"type"`
		} `json:"outcome"`
		Usage []struct {
			InputTokens  int `json:"inputTokens"`
			OutputTokens int `json:"outputTokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(data, &ev) != nil {
		return
	}
	switch ev.Type {
	case "RUN_STARTED":
		rw.thread = ev.ThreadID
	case "RUN_FINISHED":
		rw.outcome = ev.Outcome.Type
		for _, u := range ev.Usage {
			rw.usage.InputTokens += u.InputTokens
			rw.usage.OutputTokens += u.OutputTokens
		}
	}
}

// SetWriteDeadline and FlushError serve the handler's http.ResponseController: they reach the
// page while it is there, and never fail, so that the handler keeps sending the events.
func (rw *runWatch) SetWriteDeadline(t time.Time) error {
	if !rw.away() {
		_ = rw.rc.SetWriteDeadline(t)
	}
	return nil
}

func (rw *runWatch) FlushError() error {
	if !rw.away() && rw.rc.Flush() != nil {
		rw.dead = true
	}
	return nil
}

// SetReadDeadline serves the handler's timed read of the run's input.
func (rw *runWatch) SetReadDeadline(t time.Time) error { return rw.rc.SetReadDeadline(t) }
