package httpguard

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestLimiterPerClientLeavesRoomForOthers(t *testing.T) {
	l := NewLimiter(4, 2)
	var releases []func()
	for i := range 5 {
		rel, status := l.Acquire("addr:10.0.0.1")
		if i < 2 && status != 0 || i >= 2 && status != http.StatusTooManyRequests {
			t.Fatalf("acquire %d: status %d", i, status)
		}
		if rel != nil {
			releases = append(releases, rel)
		}
	}
	for range 2 {
		if _, status := l.Acquire("addr:10.0.0.2"); status != 0 {
			t.Fatalf("another client refused: %d", status)
		}
	}
	if _, status := l.Acquire("addr:10.0.0.3"); status != http.StatusServiceUnavailable {
		t.Fatalf("over the total: %d, want 503", status)
	}
	releases[0]()
	if _, status := l.Acquire("addr:10.0.0.3"); status != 0 {
		t.Fatalf("a released place not given: %d", status)
	}
	// No client in particular (loopback): only the total counts.
	if _, status := NewLimiter(3, 1).Acquire(""); status != 0 {
		t.Fatal("refused")
	}
}

func TestClientID(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	for addr, want := range map[string]string{"10.1.2.3:4567": "addr:10.1.2.3", "127.0.0.1:80": "", "[::1]:9": "", "[2001:db8::1]:9": "addr:2001:db8::1"} {
		r.RemoteAddr = addr
		if got := ClientID(r, ""); got != want {
			t.Errorf("%s: %q, want %q", addr, got, want)
		}
	}
	if got := ClientID(r, "alice"); got != "principal:alice" {
		t.Errorf("principal: %q", got)
	}
}

// TestConnectionCap: a connection over the cap is answered 503 with Retry-After at once, and a
// closed connection frees its place.
func TestConnectionCap(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), ServerOptions{Conns: &ConnLimits{Total: 2}})
	}()
	defer func() { cancel(); <-done }()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	get := func(c net.Conn) *http.Response {
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	a, b := dial(), dial()
	if get(a).StatusCode != 200 || get(b).StatusCode != 200 {
		t.Fatal("the first two connections refused")
	}
	c := dial()
	resp := get(c)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a third connection: %s, Retry-After %q", resp.Status, resp.Header.Get("Retry-After"))
	}
	c.Close()
	a.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d := dial()
		ok := get(d).StatusCode == 200
		d.Close()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed connection's place was not given back")
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Close()
}

func TestOriginsCheck(t *testing.T) {
	o, err := ParseOrigins([]string{"https://App.example.com:443"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		origin, host string
		ok, same     bool
	}{
		{"", "h", true, false},
		{"https://app.example.com", "h", true, false},
		{"https://evil.example.com", "h", false, false},
		{"http://localhost:80", "localhost", true, true},
		{"http://127.0.0.1:8080", "127.0.0.1:8080", true, true},
		{"null", "h", false, false},
	} {
		r := httptest.NewRequest("POST", "/", nil)
		r.Host = c.host
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if ok, same := o.Check(r); ok != c.ok || same != c.same {
			t.Errorf("%q on %q: %v %v, want %v %v", c.origin, c.host, ok, same, c.ok, c.same)
		}
	}
	if _, err := ParseOrigins([]string{"app.example.com"}); err == nil {
		t.Error("an origin without a scheme")
	}
}
