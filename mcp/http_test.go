package mcp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// The attack suite: what a hostile HTTP client can try against a served wield server. Every
// test runs against the real handler over real connections on 127.0.0.1, with short timeouts so
// the suite stays fast.

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}`

func sessionCount(s *mcp.Server) int {
	n := 0
	for range s.SDK().Sessions() {
		n++
	}
	return n
}

// TestHTTPOrigin: a request from another origin is refused before it can create a session;
// clients without an Origin, the server's own origin and listed origins get through, the last
// with CORS headers.
func TestHTTPOrigin(t *testing.T) {
	s := mustServer(t, echoTool("echo"))
	ts := mcptest.NewServer(t, s, &mcp.HTTPOptions{AllowedOrigins: []string{"https://app.example.com"}})

	resp := mcptest.Post(t, ts.URL, initializeBody, map[string]string{"Origin": "http://evil.example"})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin initialize: %s, want 403", resp.Status)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" || sessionCount(s) != 0 {
		t.Fatalf("a cross-origin request created a session (%q, %d sessions)", id, sessionCount(s))
	}
	for _, origin := range []string{"null", "http://127.0.0.1.evil.example", "not a url"} {
		if resp := mcptest.Post(t, ts.URL, initializeBody, map[string]string{"Origin": origin}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("Origin %q: %s, want 403", origin, resp.Status)
		}
	}
	if n := sessionCount(s); n != 0 {
		t.Fatalf("%d sessions after refused requests", n)
	}

	for _, tc := range []struct{ name, origin string }{
		{"no origin", ""},
		{"same origin", ts.URL},
		{"listed origin", "https://app.example.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{}
			if tc.origin != "" {
				hdr["Origin"] = tc.origin
			}
			resp := mcptest.Post(t, ts.URL, initializeBody, hdr)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
				t.Fatalf("initialize: %s, session %q", resp.Status, resp.Header.Get("Mcp-Session-Id"))
			}
			cors := resp.Header.Get("Access-Control-Allow-Origin")
			if tc.name == "listed origin" && cors != tc.origin {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", cors, tc.origin)
			}
			if tc.name != "listed origin" && cors != "" {
				t.Errorf("CORS header %q for a request that needs none", cors)
			}
		})
	}

	// A browser's preflight for a listed origin is answered; for another it is refused.
	pre := func(origin string) *http.Response {
		req, _ := http.NewRequestWithContext(testContext(t), http.MethodOptions, ts.URL, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type, mcp-session-id")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := pre("https://app.example.com"); resp.StatusCode != http.StatusNoContent ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Mcp-Session-Id") {
		t.Errorf("preflight from a listed origin: %s %v", resp.Status, resp.Header)
	}
	if resp := pre("http://evil.example"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("preflight from another origin: %s", resp.Status)
	}

	if _, err := s.Handler(&mcp.HTTPOptions{AllowedOrigins: []string{"app.example.com"}}); err == nil {
		t.Error("an allowed origin without a scheme was accepted")
	}
}

// TestHTTPSessionServerOnlyForNewSessions: requests that cannot start a session (a bogus session
// id, a refused origin or token) never build a session's server or compile a schema; the first
// request of a real session builds exactly one.
func TestHTTPSessionServerOnlyForNewSessions(t *testing.T) {
	var built atomic.Int32
	s := mustServer(t)
	ts := mcptest.NewServer(t, s, &mcp.HTTPOptions{
		TokenVerifier: mcp.StaticToken("right"),
		SessionServer: func(*http.Request) (*mcp.Server, error) {
			built.Add(1)
			return mcp.Start(mcp.ServerOptions{}, echoTool("echo"))
		},
	})
	auth := map[string]string{"Authorization": "Bearer right"}
	for range 20 {
		resp := mcptest.Post(t, ts.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			map[string]string{"Authorization": "Bearer right", "Mcp-Session-Id": "BOGUS"})
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("bogus session id: %s, want 404", resp.Status)
		}
		mcptest.Post(t, ts.URL, initializeBody, map[string]string{"Authorization": "Bearer wrong"})
		mcptest.Post(t, ts.URL, initializeBody, map[string]string{"Authorization": "Bearer right", "Origin": "http://evil.example"})
	}
	if n := built.Load(); n != 0 {
		t.Fatalf("%d servers built for requests that start no session", n)
	}
	if resp := mcptest.Post(t, ts.URL, initializeBody, auth); resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %s", resp.Status)
	}
	if n := built.Load(); n != 1 {
		t.Fatalf("%d servers built for one new session, want 1", n)
	}
}

// TestHTTPAuth: without the right bearer token nothing gets through, and no session is made.
func TestHTTPAuth(t *testing.T) {
	s := mustServer(t, echoTool("echo"))
	ts := mcptest.NewServer(t, s, &mcp.HTTPOptions{TokenVerifier: mcp.StaticToken("s3cret")})
	for _, hdr := range []map[string]string{
		nil,
		{"Authorization": "Bearer wrong"},
		{"Authorization": "Bearer "},
		{"Authorization": "Basic czNjcmV0"},
		{"Authorization": "Bearer s3cret-and-more"},
	} {
		if resp := mcptest.Post(t, ts.URL, initializeBody, hdr); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: %s, want 401", hdr["Authorization"], resp.Status)
		}
	}
	if n := sessionCount(s); n != 0 {
		t.Fatalf("%d sessions made without the token", n)
	}
	cfg := mcp.ServerConfig{Name: "authed", Type: mcp.TypeHTTP, URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer s3cret"}}
	tools, err := mcptest.Connect(t, cfg).Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := toolByName(t, tools, "echo").Call(testContext(t), `{"text":"hi"}`); err != nil || out != "echo: hi" {
		t.Errorf("call with the token: %q, %v", out, err)
	}
	if _, err := mcp.Connect(testContext(t), mcp.ServerConfig{Name: "anon", Type: mcp.TypeHTTP, URL: ts.URL}); err == nil {
		t.Error("a client without the token connected")
	}
	if _, err := mcp.StaticToken("")(context.Background(), "", nil); err == nil {
		t.Error("an empty static token accepts the empty token")
	}
}

// TestHTTPSessionLimits: sessions beyond the cap are refused until one ends, and an idle session
// expires.
func TestHTTPSessionLimits(t *testing.T) {
	s := mustServer(t, echoTool("echo"))
	ts := mcptest.NewServer(t, s, &mcp.HTTPOptions{MaxSessions: 2})
	var ids []string
	for range 2 {
		resp := mcptest.Post(t, ts.URL, initializeBody, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("initialize: %s", resp.Status)
		}
		ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
	}
	resp := mcptest.Post(t, ts.URL, initializeBody, nil)
	if resp.StatusCode != http.StatusServiceUnavailable || sessionCount(s) != 2 {
		t.Fatalf("a third session: %s with %d sessions, want 503 and 2", resp.Status, sessionCount(s))
	}
	// Ending a session frees its place.
	req, _ := http.NewRequestWithContext(testContext(t), http.MethodDelete, ts.URL, nil)
	req.Header.Set("Mcp-Session-Id", ids[0])
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	waitFor(t, func() bool { return mcptest.Post(t, ts.URL, initializeBody, nil).StatusCode == http.StatusOK })

	// Idle sessions expire, which frees their places too.
	s = mustServer(t, echoTool("echo"))
	ts = mcptest.NewServer(t, s, &mcp.HTTPOptions{MaxSessions: 1, SessionTimeout: 200 * time.Millisecond})
	id := mcptest.Post(t, ts.URL, initializeBody, nil).Header.Get("Mcp-Session-Id")
	waitFor(t, func() bool { return sessionCount(s) == 0 })
	resp = mcptest.Post(t, ts.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": id})
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("an expired session answered: %s", resp.Status)
	}
	waitFor(t, func() bool { return mcptest.Post(t, ts.URL, initializeBody, nil).StatusCode == http.StatusOK })
}

// waitFor polls cond until it holds, failing the test if it never does.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	ctx := testContext(t)
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("the condition never held")
		case <-tick():
		}
	}
}

// TestHTTPBodyCap: a body over the cap is refused, and no session is made.
func TestHTTPBodyCap(t *testing.T) {
	s := mustServer(t, echoTool("echo"))
	ts := mcptest.NewServer(t, s, &mcp.HTTPOptions{MaxRequestBytes: 1 << 10})
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 4<<10) + `"}}`
	if resp := mcptest.Post(t, ts.URL, big, nil); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: %s, want 413", resp.Status)
	}
	if n := sessionCount(s); n != 0 {
		t.Errorf("%d sessions after an oversized body", n)
	}
	if resp := mcptest.Post(t, ts.URL, initializeBody, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("a body within the cap: %s", resp.Status)
	}
}

// serveLocal runs s.Serve with opts on a listener on 127.0.0.1 until stop, or the end of t,
// cancels it; stop returns what Serve returned.
func serveLocal(t *testing.T, s *mcp.Server, opts *mcp.HTTPOptions) (ln net.Listener, stop func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(testContext(t))
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, opts) }()
	stop = sync.OnceValue(func() error { cancel(); return <-served })
	t.Cleanup(func() { stop() })
	return ln, stop
}

// TestHTTPSlowBodies: fifty clients that send their headers and then trickle or withhold the body
// are all cut off by the read timeout, and the server still serves others.
func TestHTTPSlowBodies(t *testing.T) {
	s := mustServer(t, echoTool("echo"))
	ln, _ := serveLocal(t, s, &mcp.HTTPOptions{ReadTimeout: 300 * time.Millisecond})

	const n = 50
	var wg sync.WaitGroup
	closed := make(chan string, n)
	for i := range n {
		wg.Go(func() {
			conn, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				closed <- err.Error()
				return
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
				"Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{\"jsonrpc\"", ln.Addr())
			if i%2 == 0 { // trickle a byte now and then, each in time for a per-read timeout
				go func() {
					for range 100 {
						if _, err := conn.Write([]byte(" ")); err != nil {
							return
						}
						time.Sleep(100 * time.Millisecond)
					}
				}()
			}
			// The server must close the connection (after a 408); the deadline only keeps a
			// regression from hanging the test.
			conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			status, _ := bufio.NewReader(conn).ReadString('\n')
			_, err = io.Copy(io.Discard, conn)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				closed <- "still open"
				return
			}
			closed <- strings.TrimSpace(status)
		})
	}
	wg.Wait()
	close(closed)
	for got := range closed {
		if !strings.Contains(got, "408") {
			t.Errorf("slow-body connection: %q, want a 408 and the connection closed", got)
		}
	}
	cfg := mcp.ServerConfig{Name: "after", Type: mcp.TypeHTTP, URL: "http://" + ln.Addr().String()}
	if _, err := mcptest.Connect(t, cfg).Tools(testContext(t)); err != nil {
		t.Errorf("serving after the attack: %v", err)
	}
}

// TestHTTPSlowReader: a client that asks for a large result and does not read it is cut off by
// the write timeout instead of holding its connection and the tool's goroutine.
func TestHTTPSlowReader(t *testing.T) {
	// Larger than the kernel buffers between server and client, both made small below.
	big := strings.Repeat("x", 1<<20)
	s := mustServer(t, newTool("big", noArgs, func(context.Context, string) (string, error) { return big, nil }))
	h, err := s.Handler(&mcp.HTTPOptions{WriteTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Listener = smallSendBuffers{ts.Listener}
	closed := make(chan string, 64) // remote addresses of the connections the server closed
	ts.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed <- c.RemoteAddr().String()
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)

	resp := mcptest.Post(t, ts.URL, initializeBody, nil)
	id := resp.Header.Get("Mcp-Session-Id")
	io.Copy(io.Discard, resp.Body)
	mcptest.Post(t, ts.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Session-Id": id})

	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"big","arguments":{}}}`
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Mcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n%s", ts.Listener.Addr(), id, len(body), body)
	// Not reading: the server's writes stall, and the write timeout must close the connection.
	ctx := testContext(t)
	for {
		select {
		case addr := <-closed:
			// The server gave up on the connection while its result was still unread. (Reading
			// the rest now would only measure TCP's slow recovery from a zero window.)
			if addr == conn.LocalAddr().String() {
				return
			}
		case <-ctx.Done():
			t.Fatal("a client that does not read still holds its connection")
		}
	}
}

// smallSendBuffers gives the connections it accepts small kernel send buffers.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(16 << 10)
	}
	return c, err
}

// TestServeRefusesRemoteWithoutAuth: Serve will not serve an address other than loopback
// without a token verifier, unless told to.
func TestServeRefusesRemoteWithoutAuth(t *testing.T) {
	s := mustServer(t, echoTool("echo"))
	for _, tc := range []struct {
		name string
		opts *mcp.HTTPOptions
		want bool // served
	}{
		{"no auth", nil, false},
		{"token", &mcp.HTTPOptions{TokenVerifier: mcp.StaticToken("t")}, true},
		{"allowed", &mcp.HTTPOptions{AllowUnauthenticatedRemote: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			// Tests listen on loopback only; this listener says it listens on every interface.
			ln := remoteListener{inner}
			ctx, cancel := context.WithCancel(testContext(t))
			done := make(chan error, 1)
			go func() { done <- s.Serve(ctx, ln, tc.opts) }()
			select {
			case err := <-done:
				if tc.want || !errors.Is(err, mcp.ErrUnauthenticatedRemote) {
					t.Fatalf("Serve = %v", err)
				}
			case <-tick():
				if !tc.want {
					t.Fatal("Serve serves a non-loopback address without authentication")
				}
			}
			cancel()
			if tc.want {
				<-done
			}
		})
	}
}

type remoteListener struct{ net.Listener }

func (remoteListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4zero, Port: 8080} }

// TestPanicNotLeaked: a panicking tool's value, stack and file paths never reach the client; the
// server's log has the stack, the runtime's messages and a program value's type.
func TestPanicNotLeaked(t *testing.T) {
	logger, logs := testLogger(t)
	s, err := mcp.Start(mcp.ServerOptions{Logger: logger},
		newTool("explode", noArgs, func(context.Context, string) (string, error) {
			panic("secret at /home/alice/.ssh/id_rsa")
		}),
		tool.Must(tool.Func("index", "Index out of range", func(_ context.Context, in struct {
			I int `json:"i"`
		}) (int, error) {
			return []int{1}[in.I], nil
		})),
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, transport := range mcptest.Transports {
		t.Run(transport, func(t *testing.T) {
			cfg := mcptest.Reach(t, transport, "panics", s)
			c := mcptest.Connect(t, cfg)
			for _, call := range [][2]string{{"explode", `{}`}, {"index", `{"i":5}`}} {
				res := mcptest.CallRaw(t, c, call[0], call[1])
				text := mcp.ResultText(res)
				if !res.IsError {
					t.Fatalf("%s: not an error: %s", call[0], text)
				}
				for _, leak := range []string{"goroutine", ".go:", "/home/alice", "secret", "runtime", "index out of range", "panic"} {
					if strings.Contains(text, leak) {
						t.Errorf("%s: the client reads %q, which leaks %q", call[0], text, leak)
					}
				}
			}
		})
	}
	for _, want := range []string{"goroutine", "index out of range", "tool=explode", "tool=index", "value of type string"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the server's log lacks %q", want)
		}
	}
	// A program's panic value is content, as an error's text is: it may quote the arguments.
	if strings.Contains(logs.String(), "secret at") {
		t.Error("the server's log quotes a panic's value")
	}
}

// connectFailing serves, under opts, a tool that fails with "disk full" ("fail"), one that
// panics with value ("explode"), and more, and connects a client to it.
func connectFailing(t *testing.T, name string, opts *mcp.ServerOptions, value string, more ...tool.Tool) *mcp.Client {
	t.Helper()
	s, err := mcp.NewServer(nil, opts, append([]tool.Tool{
		newTool("fail", noArgs, func(context.Context, string) (string, error) { return "", errors.New("disk full") }),
		newTool("explode", noArgs, func(context.Context, string) (string, error) { panic(value) }),
	}, more...)...)
	if err != nil {
		t.Fatal(err)
	}
	return mcptest.Connect(t, inMemory(name, s))
}

// TestErrorProcessor: served tools' failures go through the server's error processor, as the
// loop's do; an error from it fails the request with a neutral protocol error.
func TestErrorProcessor(t *testing.T) {
	var seen []error
	var mu sync.Mutex
	proc := mcp.ErrorProcessorFunc(func(_ context.Context, err *tool.ExecutionError) (string, error) {
		mu.Lock()
		seen = append(seen, err)
		mu.Unlock()
		if errors.Is(err, mcp.ErrInternal) {
			return "", errors.New("do not answer")
		}
		return "processed: " + err.Tool + ": " + err.Err.Error(), nil
	})
	logger, logs := testLogger(t)
	c := connectFailing(t, "processed", &mcp.ServerOptions{Logger: logger, ErrorProcessor: proc}, "boom", echoTool("echo"))
	if text := mcp.ResultText(mcptest.CallRaw(t, c, "fail", `{}`)); text != "processed: fail: disk full" {
		t.Errorf("tool error: %q", text)
	}
	if text := mcp.ResultText(mcptest.CallRaw(t, c, "echo", `{"text":1}`)); !strings.HasPrefix(text, "processed: echo: invalid arguments") {
		t.Errorf("invalid arguments: %q", text)
	}
	session, err := c.Session(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	_, err = session.CallTool(testContext(t), &sdk.CallToolParams{Name: "explode"})
	if err == nil || strings.Contains(err.Error(), "boom") || strings.Contains(err.Error(), "do not answer") {
		t.Errorf("processor error: the client got %v, want a neutral protocol error", err)
	}
	if !strings.Contains(logs.String(), "do not answer") {
		t.Error("the processor's error is not logged")
	}
	if len(seen) != 3 {
		t.Errorf("processor saw %d failures, want 3", len(seen))
	}
}

// TestServeShutdown: when its context ends, Serve returns and closes the sessions it made.
func TestServeShutdown(t *testing.T) {
	s := mustServer(t, echoTool("echo"))
	ln, stop := serveLocal(t, s, nil)
	c := mcptest.Connect(t, mcp.ServerConfig{Name: "short-lived", Type: mcp.TypeHTTP, URL: "http://" + ln.Addr().String()})
	if _, err := c.Tools(testContext(t)); err != nil {
		t.Fatal(err)
	}
	if n := sessionCount(s); n != 1 {
		t.Fatalf("%d sessions", n)
	}
	if err := stop(); err != nil {
		t.Fatalf("Serve = %v", err)
	}
	if n := sessionCount(s); n != 0 {
		t.Errorf("%d sessions left after Serve returned", n)
	}
}

// TestProxyUnavailableUpstream: when a proxied tool's own server cannot be reached, the proxy's
// client reads a neutral message; the proxy's log has the details.
func TestProxyUnavailableUpstream(t *testing.T) {
	upstream := mcptest.NewServer(t, mustServer(t, echoTool("echo")), nil)
	up := mcptest.Connect(t, mcp.ServerConfig{Name: "upstream", Type: mcp.TypeHTTP, URL: upstream.URL, MaxRetries: -1})
	upTools, err := up.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	logger, logs := testLogger(t)
	proxy, err := mcp.Start(mcp.ServerOptions{Logger: logger}, upTools...)
	if err != nil {
		t.Fatal(err)
	}
	c := mcptest.Connect(t, inMemory("proxy", proxy))
	if text := mcp.ResultText(mcptest.CallRaw(t, c, "echo", `{"text":"hi"}`)); text != "echo: hi" {
		t.Fatalf("through the proxy: %q", text)
	}
	upstream.CloseClientConnections()
	upstream.Close()
	res := mcptest.CallRaw(t, c, "echo", `{"text":"hi"}`)
	text := mcp.ResultText(res)
	if !res.IsError || strings.Contains(text, "127.0.0.1") || strings.Contains(text, "upstream") || !strings.Contains(text, "internal error") {
		t.Errorf("the proxy's client reads %q", text)
	}
	if !strings.Contains(logs.String(), `mcp server \"upstream\"`) {
		t.Errorf("the proxy's log lacks the upstream's failure:\n%s", logs)
	}
}

// TestLoopErrorProcessor: the tool loop's error processor serves as the server's, and a panic
// still reaches the client as a neutral message.
func TestLoopErrorProcessor(t *testing.T) {
	c := connectFailing(t, "loop", &mcp.ServerOptions{Logger: discardLogger(), ErrorProcessor: toolcall.DefaultErrorProcessor()}, "at /srv/secret.go:12")
	if text := mcp.ResultText(mcptest.CallRaw(t, c, "fail", `{}`)); text != "disk full" {
		t.Errorf("tool error: %q", text)
	}
	if text := mcp.ResultText(mcptest.CallRaw(t, c, "explode", `{}`)); strings.Contains(text, "secret") || strings.Contains(text, ".go") {
		t.Errorf("panic: the client reads %q", text)
	}
}
