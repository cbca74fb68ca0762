package mcp_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
)

// subscribable is an SDK server whose resource subscriptions the test watches: subscribes and
// unsubscribes by URI, and the session that made the last one.
type subscribable struct {
	srv *sdk.Server

	mu      sync.Mutex
	subs    map[string]int
	unsubs  map[string]int
	session *sdk.ServerSession
}

func newSubscribable() *subscribable {
	s := &subscribable{subs: map[string]int{}, unsubs: map[string]int{}}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "subs", Version: "v0"}, &sdk.ServerOptions{
		SubscribeHandler: func(_ context.Context, req *sdk.SubscribeRequest) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.subs[req.Params.URI]++
			s.session = req.Session
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, req *sdk.UnsubscribeRequest) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.unsubs[req.Params.URI]++
			return nil
		},
	})
	s.srv.AddResource(&sdk.Resource{URI: "memo://a", Name: "a"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "memo://a", Text: "a"}}}, nil
	})
	return s
}

func (s *subscribable) counts(uri string) (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subs[uri], s.unsubs[uri]
}

// settle waits up to 10 s for the server's counts of uri to become want: under MCP 2026-07-28 a
// subscription is a stream the SDK opens and cancels in the background.
func (s *subscribable) settle(t *testing.T, uri string, subs, unsubs int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		n, u := s.counts(uri)
		if n == subs && u == unsubs {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the server got %d subscribes and %d unsubscribes, want %d and %d", uri, n, u, subs, unsubs)
		}
	}
}

// subscribe subscribes c to uri, failing t if it cannot.
func subscribe(t *testing.T, c *mcp.Client, uri string) *mcp.Subscription {
	t.Helper()
	sub, err := c.Subscribe(testContext(t), uri)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

func receive(t *testing.T, sub *mcp.Subscription) *sdk.ResourceUpdatedNotificationParams {
	t.Helper()
	select {
	case u, ok := <-sub.Updates():
		if !ok {
			t.Fatalf("updates closed: %v", sub.Err())
		}
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("no update within 30 s")
	}
	return nil
}

func ended(t *testing.T, sub *mcp.Subscription) error {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case _, ok := <-sub.Updates():
			if !ok {
				return sub.Err()
			}
		case <-deadline:
			t.Fatal("the subscription did not end within 30 s")
		}
	}
}

// TestSubscribe: updates of a subscribed resource arrive on its channel and no other's; two
// subscriptions to one resource share the server's, which the last Close ends; a storm of updates
// neither blocks the server nor grows what a slow reader holds; Close of the client ends the rest.
func TestSubscribe(t *testing.T) {
	ctx := testContext(t)
	s := newSubscribable()
	c := mcptest.Connect(t, mcptest.InMemory("subs", s.srv))
	a1 := subscribe(t, c, "memo://a")
	a2 := subscribe(t, c, "memo://a")
	b := subscribe(t, c, "memo://b")
	s.settle(t, "memo://a", 1, 0) // one resource subscribed twice
	if err := s.srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: "memo://a"}); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []*mcp.Subscription{a1, a2} {
		if u := receive(t, sub); u.URI != "memo://a" {
			t.Errorf("update for %q", u.URI)
		}
	}
	select {
	case u := <-b.Updates():
		t.Errorf("memo://b got an update for %v", u)
	case <-time.After(100 * time.Millisecond):
	}

	// A storm: the server is not held up by a reader that does not read, and the reader finds
	// one update waiting, standing for all of them.
	const storm = 2000
	done := make(chan error, 1)
	go func() {
		for range storm {
			if err := s.srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: "memo://b"}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the server was held up sending updates to a reader that does not read")
	}
	// What is left for the reader is a few updates, not the storm.
	got := 0
	for quiet := false; !quiet; {
		select {
		case <-b.Updates():
			got++
		case <-time.After(300 * time.Millisecond):
			quiet = true
		}
	}
	if got == 0 || got > storm/10 {
		t.Errorf("a reader that did not read during a storm of %d updates then received %d", storm, got)
	}

	if err := a1.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: "memo://a"}); err != nil {
		t.Fatal(err)
	}
	receive(t, a2) // still subscribed
	s.settle(t, "memo://a", 1, 0)
	if err := ended(t, a1); err != nil {
		t.Errorf("Err after Close: %v", err)
	}
	if err := a2.Close(); err != nil {
		t.Fatal(err)
	}
	s.settle(t, "memo://a", 1, 1)
	if err := a2.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	c.Close()
	if err := ended(t, b); !errors.Is(err, mcp.ErrClosed) {
		t.Errorf("Err after the client closed: %v", err)
	}
}

// TestSubscriptionEndsWithServer: a server that drops the connection ends its subscriptions with
// ErrSubscriptionEnded; a server without subscriptions refuses with ErrUnsupported; the client
// goes on, and subscribing again reaches the server anew.
func TestSubscriptionEndsWithServer(t *testing.T) {
	ctx := testContext(t)
	s := newSubscribable()
	c := mcptest.Connect(t, mcptest.InMemory("subs", s.srv))
	sub := subscribe(t, c, "memo://a")
	s.settle(t, "memo://a", 1, 0)
	s.mu.Lock()
	session := s.session
	s.mu.Unlock()
	session.Close()
	if err := ended(t, sub); !errors.Is(err, mcp.ErrSubscriptionEnded) {
		t.Fatalf("Err after the server dropped the connection: %v", err)
	}
	again, err := c.Subscribe(ctx, "memo://a")
	if err != nil {
		t.Fatalf("subscribing after a reconnection: %v", err)
	}
	defer again.Close()
	s.settle(t, "memo://a", 2, 1) // the server ended the first with its session

	plain := sdk.NewServer(&sdk.Implementation{Name: "plain", Version: "v0"}, nil)
	plain.AddResource(&sdk.Resource{URI: "memo://a", Name: "a"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{}, nil
	})
	p := mcptest.Connect(t, mcptest.InMemory("plain", plain))
	if _, err := p.Subscribe(ctx, "memo://a"); !errors.Is(err, mcp.ErrUnsupported) {
		t.Errorf("subscribing on a server without subscriptions: %v", err)
	}
	if _, err := p.Resources(ctx); err != nil {
		t.Errorf("the session did not survive the refusal: %v", err)
	}
}

// TestEverythingSubscription subscribes to a resource of server-everything, has it send updates,
// and kills the server: the subscription ends with ErrSubscriptionEnded and nothing hangs.
func TestEverythingSubscription(t *testing.T) {
	ctx := testContext(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	cfg := nodeServer(t, "everything", "mcp-server-everything", "stdio")
	cfg.Args = []string{"-c", `echo $$ > "$0"; exec "$@"`, pidFile, cfg.Command, "stdio"}
	cfg.Command = "/bin/sh"
	c := mcptest.Connect(t, cfg)
	const uri = "demo://resource/dynamic/text/1"
	sub := subscribe(t, c, uri)
	tools, err := c.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var toggled bool
	for _, tl := range tools {
		if tl.Definition().Name == "toggle-subscriber-updates" {
			if _, err := tl.Call(ctx, "{}"); err != nil {
				t.Fatal(err)
			}
			toggled = true
		}
	}
	if !toggled {
		t.Fatal("server-everything has no toggle-subscriber-updates tool")
	}
	if u := receive(t, sub); u.URI != uri {
		t.Errorf("update for %q", u.URI)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := ended(t, sub); !errors.Is(err, mcp.ErrSubscriptionEnded) {
		t.Errorf("Err after the server died: %v", err)
	}
}

// serveSubscribable serves s over streamable HTTP at addr ("127.0.0.1:0" for any port) and
// returns the address and a function stopping it, connections and all.
func serveSubscribable(t *testing.T, s *subscribable, addr string) (string, func()) {
	t.Helper()
	var ln net.Listener
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if ln, err = net.Listen("tcp", addr); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, nil)}
	go hs.Serve(ln)
	stop := func() { hs.Close() }
	t.Cleanup(stop)
	return ln.Addr().String(), stop
}

// TestResubscribeAfterRestart: an HTTP server restarted (a new process's state: no session, no
// subscription) gets the client's subscriptions again on the client's new session; each
// subscription gets an update for the change it may have missed, and the new server's updates
// arrive on the same channel. A server that does not come back ends them, within the bound.
func TestResubscribeAfterRestart(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	first := newSubscribable()
	addr, stop := serveSubscribable(t, first, "127.0.0.1:0")
	c := mcptest.Connect(t, mcp.ServerConfig{Name: "subs", Type: mcp.TypeHTTP, URL: "http://" + addr, MaxRetries: -1})
	sub := subscribe(t, c, "memo://a")
	twin := subscribe(t, c, "memo://a")
	first.settle(t, "memo://a", 1, 0)

	stop()
	second := newSubscribable()
	_, stopSecond := serveSubscribable(t, second, addr)
	second.settle(t, "memo://a", 1, 0) // one subscribe for the two subscriptions
	for _, s := range []*mcp.Subscription{sub, twin} {
		if u := receive(t, s); u.URI != "memo://a" {
			t.Errorf("the update after resubscribing is for %q", u.URI)
		}
	}
	if err := second.srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: "memo://a"}); err != nil {
		t.Fatal(err)
	}
	if u := receive(t, sub); u.URI != "memo://a" || sub.Err() != nil {
		t.Errorf("the new server's update: %+v, %v", u, sub.Err())
	}
	twin.Close()
	second.settle(t, "memo://a", 1, 0) // the other still holds the server's
	if _, err := c.Resources(ctx); err != nil {
		t.Errorf("the client after the restart: %v", err)
	}

	// The server goes away for good: the subscription ends, saying so, within the bound.
	stopSecond()
	if err := ended(t, sub); !errors.Is(err, mcp.ErrSubscriptionEnded) || !strings.Contains(err.Error(), "reconnecting") {
		t.Errorf("Err once the server is gone: %v", err)
	}
}
