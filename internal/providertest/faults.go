package providertest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/replay"
)

// patience is how long the checks wait for what must happen at once (an answer after a cancel,
// a connection closing) before they fail instead of hanging.
var patience = 10 * time.Second

// HangingServer is an HTTP server that takes each request, sends the start of an answer if it
// has one, and then holds the response open until the client goes away: the server side of
// cancellation and early-stop tests.
type HangingServer struct {
	// URL is the server's base URL, on 127.0.0.1.
	URL string

	arrived chan struct{}
	gone    chan struct{}
	once    sync.Once
}

// NewHangingServer starts a server answering every request with contentType and head, flushed,
// before it holds on; with an empty head it sends nothing at all. It reads each request's body
// first: a server notices a client going away only once it has. The server stops with t.
func NewHangingServer(t testing.TB, contentType, head string) *HangingServer {
	t.Helper()
	h := &HangingServer{arrived: make(chan struct{}, 16), gone: make(chan struct{})}
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if head != "" {
			w.Header().Set("Content-Type", contentType)
			_, _ = io.WriteString(w, head)
			w.(http.Flusher).Flush()
		}
		select {
		case h.arrived <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
			h.once.Do(func() { close(h.gone) })
		case <-release: // the test is over: let the server stop
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first
	h.URL = srv.URL
	return h
}

// Arrived is told when a request has reached the server (and its head, if any, was sent).
func (h *HangingServer) Arrived() <-chan struct{} { return h.arrived }

// Gone is closed when a client went away from a response the server was holding.
func (h *HangingServer) Gone() <-chan struct{} { return h.gone }

// WaitFor fails t unless ch is ready within patience; what names the event in the failure.
func WaitFor(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(patience):
		t.Fatalf("%s did not happen", what)
	}
}

// Target is a chat.Model under the shared fault checks.
type Target struct {
	// New returns a model talking to the server at url, with its retries on their defaults.
	New func(t testing.TB, url string) chat.Model
	// Prompt is what the checks send.
	Prompt *chat.Prompt
	// ContentType and Head are the start of a streamed answer, which a hanging server sends
	// before it holds the stream open. The model must yield a chunk for Head.
	ContentType, Head string
}

// TestCancel runs [Target.CancelCall], [Target.CancelStream] and [Target.CancelBeforeSend] as
// subtests.
func (tg Target) TestCancel(t *testing.T) {
	t.Run("call", func(t *testing.T) { tg.CancelCall(t) })
	t.Run("stream", func(t *testing.T) { tg.CancelStream(t) })
	t.Run("already cancelled", func(t *testing.T) { tg.CancelBeforeSend(t) })
}

// CancelCall checks that cancelling the context of a Call waiting for its answer ends it at once
// with an error wrapping context.Canceled, and closes the connection.
func (tg Target) CancelCall(t testing.TB) {
	t.Helper()
	srv := NewHangingServer(t, "", "")
	m := tg.New(t, srv.URL)
	cancelWhileWaiting(t, srv, "Call", func(ctx context.Context) error {
		_, err := m.Call(ctx, tg.Prompt)
		return err
	})
}

// cancelWhileWaiting runs call, a request to srv named what, and cancels its context once the
// request has reached srv. call must then return at once with an error wrapping
// context.Canceled, and close the connection.
func cancelWhileWaiting(t testing.TB, srv *HangingServer, what string, call func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	select {
	case <-srv.Arrived():
	case err := <-done:
		t.Fatalf("%s returned before the server answered: %v", what, err)
	case <-time.After(patience):
		t.Fatal("the request did not reach the server")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(patience):
		t.Fatalf("%s did not return after cancel", what)
	}
	WaitFor(t, srv.Gone(), "closing the connection")
}

// CancelStream checks that cancelling the context in the middle of a stream ends it with one
// error, wrapping context.Canceled, and closes the connection.
func (tg Target) CancelStream(t testing.TB) {
	t.Helper()
	srv := NewHangingServer(t, tg.ContentType, tg.Head)
	m := tg.New(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan []error, 1)
	go func() {
		var errs []error
		for _, err := range m.Stream(ctx, tg.Prompt) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			cancel() // the server is now holding the stream open
		}
		done <- errs
	}()
	select {
	case errs := <-done:
		if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
			t.Fatalf("errors %v, want one context.Canceled", errs)
		}
	case <-time.After(patience):
		t.Fatal("the stream did not end: no chunk for the head, or no end after cancel")
	}
	WaitFor(t, srv.Gone(), "closing the connection")
}

// CancelBeforeSend checks that a Call with a context cancelled already sends nothing and
// returns an error wrapping context.Canceled.
func (tg Target) CancelBeforeSend(t testing.TB) {
	t.Helper()
	srv := replay.NewServer(t)
	m := tg.New(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Call(ctx, tg.Prompt); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if srv.Served() != 0 {
		t.Fatal("a request was sent with a cancelled context")
	}
}

// StopEarly checks that breaking out of a stream closes the connection.
func (tg Target) StopEarly(t testing.TB) {
	t.Helper()
	srv := NewHangingServer(t, tg.ContentType, tg.Head)
	m := tg.New(t, srv.URL)
	stopped := make(chan error, 1)
	go func() {
		for _, err := range m.Stream(context.Background(), tg.Prompt) {
			stopped <- err
			return
		}
		stopped <- errors.New("the stream ended without a chunk")
	}()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(patience):
		t.Fatal("no chunk for the head")
	}
	WaitFor(t, srv.Gone(), "closing the connection after the consumer stopped")
}

// StreamCut checks that a stream which breaks off (ex served with CutAfter, or a body that ends
// before the answer is complete) ends with an error wrapping io.ErrUnexpectedEOF, never with a
// silently truncated answer; that the tool calls which did arrive, wantCalls of them, are kept;
// and that the request is not retried. It returns the partial answer for further checks.
func (tg Target) StreamCut(t testing.TB, ex replay.Exchange, wantCalls int) *chat.Response {
	t.Helper()
	srv := replay.NewServer(t, ex)
	m := tg.New(t, srv.URL)
	resp, err := chat.Aggregate(m.Stream(context.Background(), tg.Prompt))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want it to wrap io.ErrUnexpectedEOF", err)
	}
	if len(resp.ToolCalls()) != wantCalls {
		t.Fatalf("calls before the cut: %+v, want %d", resp.ToolCalls(), wantCalls)
	}
	if srv.Served() != 1 {
		t.Fatalf("%d requests: a broken stream must not be retried", srv.Served())
	}
	return resp
}

// StreamCuts runs [Target.StreamCut] on ex, an answer whose first event, ending at end, holds
// the model's one tool call, cut three ways: inside that event (no call kept), a little after it
// (the call kept), and cleanly at its end, before the answer is finished (the call kept). what
// names the event in the subtests.
func (tg Target) StreamCuts(t *testing.T, ex replay.Exchange, end int, what string) {
	for _, tc := range []struct {
		name  string
		ex    replay.Exchange
		calls int
	}{
		{"inside the " + what, replay.Exchange{Header: ex.Header, Body: ex.Body, CutAfter: end / 2}, 0},
		{"after the " + what, replay.Exchange{Header: ex.Header, Body: ex.Body, CutAfter: end + 10}, 1},
		{"clean end before the finish", replay.Exchange{Header: ex.Header, Body: ex.Body[:end]}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) { tg.StreamCut(t, tc.ex, tc.calls) })
	}
}

// ConsumerPanic checks that a panic in the caller's loop over m.Stream(p) reaches the caller
// as it was: the stream must neither swallow nor wrap it. The model must yield at least one chunk.
func ConsumerPanic(t testing.TB, m chat.Model, p *chat.Prompt) {
	t.Helper()
	type consumer struct{}
	var recovered any
	func() {
		defer func() { recovered = recover() }()
		for range m.Stream(context.Background(), p) {
			panic(consumer{})
		}
	}()
	if recovered != (consumer{}) {
		t.Fatalf("recovered %v, want the consumer's panic", recovered)
	}
}

// Waits records the waits between the attempts of a retried request instead of taking them:
// its Sleep stands in for the wait of a provider's retry transport, so that a test sees which
// waits were asked for, and takes none. It is safe for concurrent use.
type Waits struct {
	mu sync.Mutex
	d  []time.Duration
}

// Sleep records d and returns at once: ctx's error, as a wait cut short by it would.
func (w *Waits) Sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

// All returns the waits recorded so far, in order.
func (w *Waits) All() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.d)
}

// ToolSearchRefused checks a model without native tool search: a request asking for one is
// refused with chat.ErrToolSearchUnsupported, called or streamed, before anything is sent, so
// deferred tools are never sent in full unnoticed.
func (tg Target) ToolSearchRefused(t testing.TB) {
	t.Helper()
	srv := replay.NewServer(t)
	m := tg.New(t, srv.URL)
	p := &chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{ToolSearch: &chat.ToolSearch{Kind: chat.ToolSearchServer}}}
	if _, err := m.Call(context.Background(), p); !errors.Is(err, chat.ErrToolSearchUnsupported) {
		t.Errorf("Call: err = %v", err)
	}
	for _, err := range m.Stream(context.Background(), p) {
		if !errors.Is(err, chat.ErrToolSearchUnsupported) {
			t.Errorf("Stream: err = %v", err)
		}
		break
	}
	if srv.Served() != 0 {
		t.Errorf("%d requests sent", srv.Served())
	}
}
