package httpretry

import (
	"context"
	"errors"
	"github.com/wield-ai/wield/chat"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wield-ai/wield/internal/httptimeout"
	"github.com/wield-ai/wield/internal/providertest"
)

type answer struct {
	status int
	header http.Header
	body   string
}

// server answers the n-th request with answers[n] and records the bodies it received.
func server(t *testing.T, answers ...answer) (*httptest.Server, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		n := len(bodies)
		bodies = append(bodies, string(b))
		mu.Unlock()
		if n >= len(answers) {
			t.Errorf("unexpected request %d", n+1)
			w.WriteHeader(599)
			return
		}
		a := answers[n]
		for k, v := range a.header {
			w.Header()[k] = v
		}
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	}))
	t.Cleanup(srv.Close)
	return srv, &bodies
}

func post(t *testing.T, tr *Transport, url string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"q":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestRetries(t *testing.T) {
	hint := func(_ *http.Response, body []byte) (time.Duration, bool) {
		if strings.Contains(string(body), "retry in 3s") {
			return 3 * time.Second, true
		}
		return 0, false
	}
	tests := []struct {
		name       string
		answers    []answer
		maxRetries int
		wantStatus int
		wantBody   string
		wantTries  int
		wantWaits  []time.Duration // exact waits; nil means "one backoff wait per retry"
	}{
		{
			name:       "429 with Retry-After then 200",
			answers:    []answer{{429, http.Header{"Retry-After": {"2"}}, "slow"}, {200, nil, "ok"}},
			wantStatus: 200, wantBody: "ok", wantTries: 2, wantWaits: []time.Duration{2 * time.Second},
		},
		{
			name:       "retry-after-ms wins",
			answers:    []answer{{503, http.Header{"Retry-After-Ms": {"15"}, "Retry-After": {"9"}}, ""}, {200, nil, "ok"}},
			wantStatus: 200, wantBody: "ok", wantTries: 2, wantWaits: []time.Duration{15 * time.Millisecond},
		},
		{
			name:       "500 twice then 200",
			answers:    []answer{{500, nil, "a"}, {500, nil, "b"}, {200, nil, "ok"}},
			wantStatus: 200, wantBody: "ok", wantTries: 3,
		},
		{
			name:       "hint from body",
			answers:    []answer{{429, nil, `{"error":"retry in 3s"}`}, {200, nil, "ok"}},
			wantStatus: 200, wantBody: "ok", wantTries: 2, wantWaits: []time.Duration{3 * time.Second},
		},
		{
			name:       "retries exhausted returns the last answer intact",
			answers:    []answer{{500, nil, "a"}, {502, nil, "b"}, {503, nil, "last"}},
			wantStatus: 503, wantBody: "last", wantTries: 3,
		},
		{
			name:       "too long a Retry-After is not waited for",
			answers:    []answer{{429, http.Header{"Retry-After": {"3600"}}, "come back later"}},
			wantStatus: 429, wantBody: "come back later", wantTries: 1, wantWaits: []time.Duration{},
		},
		// A wait too large for a time.Duration must not wrap into a negative one: the server
		// asked for forever, not for now.
		{
			name:       "a Retry-After beyond any duration is not waited for",
			answers:    []answer{{429, http.Header{"Retry-After": {"1e300"}}, "never"}},
			wantStatus: 429, wantBody: "never", wantTries: 1, wantWaits: []time.Duration{},
		},
		{
			name:       "an infinite retry-after-ms is not waited for",
			answers:    []answer{{503, http.Header{"Retry-After-Ms": {"+Inf"}}, "never"}},
			wantStatus: 503, wantBody: "never", wantTries: 1, wantWaits: []time.Duration{},
		},
		{
			name:       "an HTTP date centuries ahead is not waited for",
			answers:    []answer{{503, http.Header{"Retry-After": {"Fri, 31 Dec 9999 23:59:59 GMT"}}, "never"}},
			wantStatus: 503, wantBody: "never", wantTries: 1, wantWaits: []time.Duration{},
		},
		{
			name:       "too long a hint keeps the body readable",
			answers:    []answer{{429, nil, `{"error":"retry in 3s"}` + strings.Repeat(" ", 70<<10)}},
			maxRetries: 1,
			wantStatus: 429, wantBody: `{"error":"retry in 3s"}` + strings.Repeat(" ", 70<<10), wantTries: 1, wantWaits: []time.Duration{},
		},
		{
			name:       "400 is not retried",
			answers:    []answer{{400, nil, "bad"}},
			wantStatus: 400, wantBody: "bad", wantTries: 1, wantWaits: []time.Duration{},
		},
		{
			name:       "retries disabled",
			answers:    []answer{{500, nil, "a"}},
			maxRetries: -1,
			wantStatus: 500, wantBody: "a", wantTries: 1, wantWaits: []time.Duration{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, bodies := server(t, tt.answers...)
			var w providertest.Waits
			tr := &Transport{MaxRetries: tt.maxRetries, Hint: hint, Sleep: w.Sleep}
			if tt.name == "too long a hint keeps the body readable" {
				tr.MaxRetryAfter = time.Second
			}
			resp, body := post(t, tr, srv.URL)
			if resp.StatusCode != tt.wantStatus || body != tt.wantBody {
				t.Fatalf("got %d %.40q, want %d %.40q", resp.StatusCode, body, tt.wantStatus, tt.wantBody)
			}
			if len(*bodies) != tt.wantTries {
				t.Fatalf("%d attempts, want %d", len(*bodies), tt.wantTries)
			}
			for i, b := range *bodies {
				if b != `{"q":1}` {
					t.Fatalf("attempt %d sent body %q", i+1, b)
				}
			}
			waits := w.All()
			if tt.wantWaits != nil {
				if !slices.Equal(waits, tt.wantWaits) {
					t.Fatalf("waits %v, want %v", waits, tt.wantWaits)
				}
			} else {
				if len(waits) != tt.wantTries-1 {
					t.Fatalf("waits %v for %d attempts", waits, tt.wantTries)
				}
				for i, d := range waits {
					hi := DefaultBaseDelay << i
					if d < hi/2 || d > hi {
						t.Fatalf("backoff %d = %v, want within [%v, %v]", i, d, hi/2, hi)
					}
				}
			}
		})
	}
}

// flaky fails the first n round trips with err.
type flaky struct {
	n     int
	err   error
	calls int
}

func (f *flaky) RoundTrip(r *http.Request) (*http.Response, error) {
	f.calls++
	if f.calls <= f.n {
		return nil, f.err
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestConnectionErrors(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		wantCalls int
		wantErr   bool
	}{
		{"reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, 2, false},
		{"refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, 2, false},
		{"closed early", io.ErrUnexpectedEOF, 2, false},
		{"other errors are final", errors.New("tls: bad certificate"), 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := server(t, answer{200, nil, "ok"})
			var w providertest.Waits
			f := &flaky{n: 1, err: tt.err}
			tr := &Transport{Base: f, Sleep: w.Sleep}
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("x"))
			resp, err := tr.RoundTrip(req)
			if (err != nil) != tt.wantErr || f.calls != tt.wantCalls {
				t.Fatalf("err %v after %d calls", err, f.calls)
			}
			if resp != nil {
				resp.Body.Close()
			}
		})
	}
}

// TestSilentAttemptIsRetried checks that an attempt the server never answers, ended by the
// first-byte timeout under the retries, is retried, and that the timeout is reported when every
// attempt meets silence.
func TestSilentAttemptIsRetried(t *testing.T) {
	for _, tt := range []struct {
		name    string
		silent  int // attempts held without an answer
		wantErr bool
	}{
		{"answered on the second attempt", 1, false},
		{"silent every time", 3, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			seen := 0
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				mu.Lock()
				seen++
				n := seen
				mu.Unlock()
				if n <= tt.silent {
					select {
					case <-r.Context().Done():
					case <-release:
					}
					return
				}
				io.WriteString(w, "ok")
			}))
			defer srv.Close()
			defer close(release)
			var w providertest.Waits
			// Attempts are counted as the client makes them: on a loaded machine a request can
			// reach the server after its attempt gave up, or an answer miss the first-byte bound.
			var attempts atomic.Int32
			base := &httptimeout.Transport{FirstByte: 200 * time.Millisecond}
			tr := &Transport{Base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				attempts.Add(1)
				return base.RoundTrip(r)
			}), Sleep: w.Sleep}
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("x"))
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil }
			resp, err := tr.RoundTrip(req)
			var te *httptimeout.Error
			switch {
			case tt.wantErr && !errors.As(err, &te):
				t.Fatalf("err = %v, want the first-byte timeout", err)
			case tt.wantErr && attempts.Load() != 3:
				t.Fatalf("%d attempts, want 3 (the first and two retries)", attempts.Load())
			case !tt.wantErr && err != nil:
				t.Fatalf("err = %v after %d attempts", err, attempts.Load())
			case !tt.wantErr:
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) != "ok" {
					t.Fatalf("body %q", b)
				}
				if attempts.Load() < 2 {
					t.Fatalf("%d attempts: the silent one was not retried", attempts.Load())
				}
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// signalling closes answered after its first round trip.
type signalling struct {
	answered chan struct{}
	once     sync.Once
}

func (s *signalling) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	s.once.Do(func() { close(s.answered) })
	return resp, err
}

func TestCancelledWhileWaiting(t *testing.T) {
	srv, _ := server(t, answer{503, http.Header{"Retry-After": {"30"}}, ""}, answer{200, nil, "ok"})
	ctx, cancel := context.WithCancel(context.Background())
	sig := &signalling{answered: make(chan struct{})}
	tr := &Transport{Base: sig}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("x"))
	done := make(chan error, 1)
	go func() {
		_, err := tr.RoundTrip(req)
		done <- err
	}()
	<-sig.answered
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestUnreplayableBodyIsNotRetried(t *testing.T) {
	srv, bodies := server(t, answer{500, nil, "a"})
	var w providertest.Waits
	tr := &Transport{Sleep: w.Sleep}
	req, _ := http.NewRequest(http.MethodPost, srv.URL, io.NopCloser(strings.NewReader("x")))
	req.GetBody = nil
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 500 || len(*bodies) != 1 {
		t.Fatalf("status %d after %d attempts", resp.StatusCode, len(*bodies))
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		header http.Header
		want   time.Duration
		ok     bool
	}{
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second, true},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond, true},
		{http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}, 7 * time.Second, true},
		{http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0, true},
		{http.Header{"Retry-After-Ms": {"250"}}, 250 * time.Millisecond, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{"Retry-After": {"-1"}}, 0, false},
		{http.Header{"Retry-After": {"NaN"}}, 0, false},
		{http.Header{"Retry-After-Ms": {"NaN"}}, 0, false},
		{http.Header{"Retry-After": {"1e300"}}, time.Duration(math.MaxInt64), true},
		{http.Header{"Retry-After": {"Inf"}}, time.Duration(math.MaxInt64), true},
		{http.Header{"Retry-After-Ms": {"1e300"}}, time.Duration(math.MaxInt64), true},
		{http.Header{}, 0, false},
	}
	for _, tt := range tests {
		got, ok := RetryAfter(tt.header, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("RetryAfter(%v) = %v, %v; want %v, %v", tt.header, got, ok, tt.want, tt.ok)
		}
	}
}

// TestNoRetriesWhenTheCallerRetries: a request whose context says its caller retries itself
// (chat.WithoutRetries) is sent once, whatever it gets back.
func TestNoRetriesWhenTheCallerRetries(t *testing.T) {
	srv, bodies := server(t, answer{status: 503}, answer{status: 200, body: "ok"})
	tr := &Transport{MaxRetries: 3, Sleep: func(context.Context, time.Duration) error { return nil }}
	req, err := http.NewRequestWithContext(chat.WithoutRetries(context.Background()), http.MethodPost, srv.URL, strings.NewReader(`{"q":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || len(*bodies) != 1 {
		t.Fatalf("status %d after %d requests, want the 503 of the only one", resp.StatusCode, len(*bodies))
	}
}
