package attack

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/wield-ai/wield/a2a"
	"github.com/wield-ai/wield/agui"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/httpguard"
	"github.com/wield-ai/wield/web"
)

// TestAttackConnectionCapEverySurface: a client opens connections to a served surface and holds
// them without a request, as many as it can. Every HTTP surface serves through httpguard.Serve,
// so past the cap in all (loopback is no client in particular, so the per-client cap does not
// apply here) a connection is answered at once with 503 and Retry-After and closed, instead of
// the server holding sockets until it runs out. The MCP HTTP server's own test covers it.
func TestAttackConnectionCapEverySurface(t *testing.T) {
	if raceEnabled {
		t.Skip("a thousand connections under the race detector take too long on a loaded machine")
	}
	c, err := client.New(chattest.New(chattest.Text("ok")))
	if err != nil {
		t.Fatal(err)
	}
	serve := map[string]func(ctx context.Context, ln net.Listener) error{
		"a2a": func(ctx context.Context, ln net.Listener) error {
			s, err := a2a.NewServer(ctx, a2a.ServerConfig{Client: c})
			if err != nil {
				return err
			}
			return s.Serve(ctx, ln)
		},
		"agui": func(ctx context.Context, ln net.Listener) error {
			h, err := agui.New(agui.Config{Client: c})
			if err != nil {
				return err
			}
			return h.Serve(ctx, ln)
		},
		"web": func(ctx context.Context, ln net.Listener) error {
			s, err := web.New(web.Config{Client: c})
			if err != nil {
				return err
			}
			return s.Serve(ctx, ln)
		},
	}
	for name, run := range serve {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- run(ctx, ln) }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Error(err)
				}
			}()
			total := httpguard.DefaultConnLimits.Total
			held := make([]net.Conn, 0, total)
			defer func() {
				for _, c := range held {
					c.Close()
				}
			}()
			for range total {
				conn, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				held = append(held, conn)
			}
			// The server accepts in order: once the next one is refused, all before it are held.
			conn, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("connection %d past the cap got no answer: %v", total+1, err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("connection %d past the cap: %s, Retry-After %q", total+1, resp.Status, resp.Header.Get("Retry-After"))
			}
			// Given back, a connection is served again.
			for _, c := range held[:8] {
				c.Close()
			}
			held = held[8:]
			deadline := time.Now().Add(30 * time.Second)
			for {
				r, err := http.Get("http://" + ln.Addr().String() + "/")
				if err == nil {
					r.Body.Close()
					if r.StatusCode != http.StatusServiceUnavailable {
						break
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("no connection served after some were given back: %v", err)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}
