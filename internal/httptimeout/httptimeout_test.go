package httptimeout

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wield-ai/wield/internal/testenv"
)

// patience bounds the waits of these tests for what must happen, so that a broken timeout fails
// the test instead of hanging it. It is never compared with how long anything took.
const patience = 20 * time.Second

// silentListener accepts connections on 127.0.0.1 and never writes to them: a server that takes
// the request and then says nothing. Accepted tells the test a connection arrived.
func silentListener(t *testing.T) (url string, accepted <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{}, 16)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go io.Copy(io.Discard, c) // read the request, answer nothing
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String(), ch
}

// stallingServer sends the headers and head, then holds the response open until the client
// goes away, which it reports on gone.
func stallingServer(t *testing.T, head string) (url string, gone <-chan struct{}) {
	t.Helper()
	ch := make(chan struct{}, 1)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, head)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			ch <- struct{}{}
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return srv.URL, ch
}

func wantTimeout(t *testing.T, err error, kind Kind, after time.Duration) {
	t.Helper()
	var te *Error
	if !errors.As(err, &te) || te.Kind != kind || te.After != after {
		t.Fatalf("err = %v, want the %v of %v", err, kind, after)
	}
	msg := err.Error()
	if !strings.Contains(msg, kind.String()) || !strings.Contains(msg, after.String()) {
		t.Fatalf("error %q does not name the timeout and its value", msg)
	}
	var timeout interface{ Timeout() bool }
	if !errors.As(err, &timeout) || !timeout.Timeout() {
		t.Fatal("the error is not a timeout")
	}
}

func TestFirstByteSilentServer(t *testing.T) {
	url, accepted := silentListener(t)
	c := &http.Client{Transport: &Transport{FirstByte: 50 * time.Millisecond, Idle: -1}}
	err := testenv.Within(t, patience, "a request to a silent server", func() error {
		resp, err := c.Post(url+"/v1/chat", "application/json", strings.NewReader(`{"q":1}`))
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
	select {
	case <-accepted:
	default:
		t.Fatal("the request never reached the server")
	}
	wantTimeout(t, err, FirstByte, 50*time.Millisecond)
	if want := "timed out: no response 50ms after sending the request (FirstByteTimeout)"; !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("error %q, want it to end with %q", err, want)
	}
}

func TestIdleStalledStream(t *testing.T) {
	url, gone := stallingServer(t, "data: {\"delta\":\"Hel\"}\n\n")
	c := &http.Client{Transport: &Transport{FirstByte: -1, Idle: 50 * time.Millisecond}}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	type result struct {
		body string
		err  error
	}
	got := testenv.Within(t, patience, "reading a stalled stream", func() result {
		b, err := io.ReadAll(resp.Body)
		return result{string(b), err}
	})
	if got.body != "data: {\"delta\":\"Hel\"}\n\n" {
		t.Fatalf("read %q before the stall", got.body)
	}
	wantTimeout(t, got.err, Idle, 50*time.Millisecond)
	if want := "timed out: the response stalled, nothing received for 50ms (IdleTimeout)"; got.err.Error() != want {
		t.Fatalf("error %q, want %q", got.err, want)
	}
	select {
	case <-gone:
	case <-time.After(patience):
		t.Fatal("the connection stayed open after the idle timeout")
	}
}

// TestIdleCountsOnlyWaits checks that the time a caller spends between reads is not the
// server's silence.
func TestIdleCountsOnlyWaits(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("x", 10))
		w.(http.Flusher).Flush()
		io.WriteString(w, strings.Repeat("y", 10))
	}))
	defer srv.Close()
	c := &http.Client{Transport: &Transport{Idle: 20 * time.Millisecond}}
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	time.Sleep(100 * time.Millisecond) // the caller is busy, the server is done
	b, err := io.ReadAll(resp.Body)
	if err != nil || string(b) != strings.Repeat("x", 10)+strings.Repeat("y", 10) {
		t.Fatalf("read %q, %v", b, err)
	}
}

// TestHeadersInTimeThenBody checks that the first-byte timeout stops counting once the
// headers arrive.
func TestHeadersInTimeThenBody(t *testing.T) {
	url, _ := stallingServer(t, "")
	c := &http.Client{Transport: &Transport{FirstByte: 30 * time.Millisecond, Idle: 5 * time.Second}}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	time.Sleep(100 * time.Millisecond)
	// Reading now waits on the idle timeout alone; closing ends the wait.
	go func() {
		time.Sleep(50 * time.Millisecond)
		resp.Body.Close()
	}()
	err = testenv.Within(t, patience, "a read ended by Close", func() error { _, err := resp.Body.Read(make([]byte, 8)); return err })
	var te *Error
	if errors.As(err, &te) {
		t.Fatalf("the first-byte timeout cut the body: %v", err)
	}
}

func TestCallerCancelIsNotATimeout(t *testing.T) {
	url, accepted := silentListener(t)
	c := &http.Client{Transport: &Transport{FirstByte: time.Hour}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-accepted
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	err := testenv.Within(t, patience, "a cancelled request", func() error {
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
	var te *Error
	if !errors.Is(err, context.Canceled) || errors.As(err, &te) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestDefaultsAndOff(t *testing.T) {
	for _, tt := range []struct{ d, def, want time.Duration }{
		{0, DefaultFirstByteTimeout, DefaultFirstByteTimeout},
		{-1, DefaultIdleTimeout, 0},
		{time.Second, DefaultIdleTimeout, time.Second},
	} {
		if got := resolve(tt.d, tt.def); got != tt.want {
			t.Errorf("resolve(%v) = %v, want %v", tt.d, got, tt.want)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	// Only a transport with every bound off leaves the body as it is; the size bound is on by
	// default, with the timeouts off.
	for _, tr := range []*Transport{{FirstByte: -1, Idle: -1, MaxBody: -1}, {FirstByte: -1, Idle: -1}, {}} {
		resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		_, wrapped := resp.Body.(*body)
		if string(b) != "ok" || wrapped == (tr.MaxBody < 0) {
			t.Fatalf("%+v: read %q, body wrapped %v", tr, b, wrapped)
		}
	}
	if DefaultFirstByteTimeout <= 0 || DefaultIdleTimeout <= 0 {
		t.Fatal("no default timeouts")
	}
}

// TestDoAsMiddleware checks the middleware form over a whole client: the timeout replaces the
// cause inside the client's *url.Error, which keeps naming the request.
func TestDoAsMiddleware(t *testing.T) {
	silent, _ := silentListener(t)
	stalling, _ := stallingServer(t, "data: 1\n\n")
	tr := &Transport{FirstByte: 40 * time.Millisecond, Idle: 40 * time.Millisecond}
	req, _ := http.NewRequest(http.MethodPost, silent+"/v1/messages", strings.NewReader("{}"))
	err := testenv.Within(t, patience, "a request to a silent server", func() error {
		resp, err := tr.Do(req, http.DefaultClient.Do)
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
	var ue *url.Error
	if !errors.As(err, &ue) || ue.Op != "Post" || !strings.Contains(ue.URL, "/v1/messages") {
		t.Fatalf("err = %v, want the client's *url.Error", err)
	}
	wantTimeout(t, err, FirstByte, 40*time.Millisecond)

	req, _ = http.NewRequest(http.MethodGet, stalling, nil)
	resp, err := tr.Do(req, http.DefaultClient.Do)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	err = testenv.Within(t, patience, "reading a stalled stream", func() error { _, err := io.ReadAll(resp.Body); return err })
	wantTimeout(t, err, Idle, 40*time.Millisecond)
}

// TestMaxBody: a body at the limit is read whole; one byte more fails with ErrTooLarge, counted
// after inflating, so a small gzip bomb is stopped at the limit rather than held in memory; a
// negative limit turns the bound off.
func TestMaxBody(t *testing.T) {
	const limit = 1 << 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := limit
		switch r.URL.Path {
		case "/over":
			n = limit + 1
		case "/bomb":
			// 8 MiB of zeros, some 8 KiB on the wire, inflated by net/http's transport.
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			zeros := make([]byte, 1<<20)
			for range 8 {
				if _, err := zw.Write(zeros); err != nil {
					return
				}
			}
			_ = zw.Close()
			return
		}
		_, _ = w.Write([]byte(strings.Repeat("x", n)))
	}))
	defer srv.Close()
	read := func(tr *Transport, path string) (int, error) {
		resp, err := (&http.Client{Transport: tr}).Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return len(b), err
	}
	tr := &Transport{MaxBody: limit}
	if n, err := read(tr, "/at"); err != nil || n != limit {
		t.Errorf("a body at the limit: %d bytes, %v", n, err)
	}
	for _, path := range []string{"/over", "/bomb"} {
		n, err := read(tr, path)
		if !errors.Is(err, ErrTooLarge) || n > limit {
			t.Errorf("%s: %d bytes, error %v; want ErrTooLarge after at most %d bytes", path, n, err, limit)
		}
		if err != nil && !strings.Contains(err.Error(), "1048576 bytes (MaxResponseBytes)") {
			t.Errorf("%s: the error does not say the limit: %v", path, err)
		}
	}
	if n, err := read(&Transport{MaxBody: -1}, "/bomb"); err != nil || n != 8<<20 {
		t.Errorf("no limit: %d bytes, %v", n, err)
	}
}
