// Package httpretry retries HTTP requests that failed for a reason worth retrying — a 408, 409,
// 429 or 5xx answer, a connection refused, reset or closed before the answer, or an attempt that
// got no answer in time ([httptimeout]'s first-byte timeout, as a silent half-dead connection
// does) — with
// exponential backoff that honours the server's Retry-After. Providers whose SDK has no retry,
// or one that ignores Retry-After, install a [Transport] under the SDK.
//
// Only the exchange up to the response headers is retried: once a response is handed to the
// caller, a failure while reading its body (a stream cut in the middle) is the caller's to report.
//
// [httptimeout]: github.com/wield-ai/wield/internal/httptimeout
package httpretry

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/httptimeout"
)

// Defaults used when a [Transport] field is zero.
const (
	DefaultMaxRetries    = 2
	DefaultBaseDelay     = 500 * time.Millisecond
	DefaultMaxDelay      = 8 * time.Second
	DefaultMaxRetryAfter = 60 * time.Second
)

// Transport is an http.RoundTripper that retries failed attempts of a request.
//
// A request is retried only if its body can be replayed (http.NewRequest sets GetBody for the
// usual in-memory bodies). Waits end early when the request's context is cancelled.
type Transport struct {
	// Base sends each attempt; nil means http.DefaultTransport.
	Base http.RoundTripper
	// MaxRetries is the number of retries after the first attempt: 0 means DefaultMaxRetries,
	// a negative value disables retries.
	MaxRetries int
	// BaseDelay is the first backoff wait, doubled on every retry up to MaxDelay, with jitter.
	BaseDelay, MaxDelay time.Duration
	// MaxRetryAfter caps the wait a server may ask for with Retry-After (or Hint). A server
	// asking for longer gets its answer returned unretried, so the caller sees the error now
	// instead of blocking for minutes. Zero means DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration
	// Hint, when set, reads a provider-specific wait from a retryable answer that carries no
	// Retry-After header (Gemini puts one in its error body). body is at most 64 KiB of the
	// response body; ok false means no hint.
	Hint func(resp *http.Response, body []byte) (wait time.Duration, ok bool)
	// Sleep waits for d or until ctx is done; nil means a timer. Tests replace it to observe
	// waits without taking them.
	Sleep func(ctx context.Context, d time.Duration) error
}

// RoundTrip sends req, retrying as configured.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	retries := t.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil || chat.RetriesOff(req.Context()) {
		retries = 0 // the body cannot be sent twice, or the caller retries itself
	}
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r = req.Clone(ctx)
			r.Body = body
		}
		resp, err := base.RoundTrip(r)
		if attempt >= retries || ctx.Err() != nil {
			return resp, err
		}
		var wait time.Duration
		switch {
		case err != nil:
			if !retryableError(err) {
				return nil, err
			}
			wait = t.backoff(attempt)
		case Retryable(resp.StatusCode):
			var ok bool
			wait, ok, resp = t.serverWait(resp, attempt)
			if !ok {
				return resp, nil
			}
			drain(resp)
		default:
			return resp, nil
		}
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// Retryable reports whether an HTTP status is worth retrying: request timeout, conflict, rate
// limit and server errors.
func Retryable(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// serverWait decides the wait before retrying a retryable answer. It returns ok false, and the
// response ready to be read again, when the server asks for a longer wait than MaxRetryAfter.
func (t *Transport) serverWait(resp *http.Response, attempt int) (time.Duration, bool, *http.Response) {
	limit := t.MaxRetryAfter
	if limit <= 0 {
		limit = DefaultMaxRetryAfter
	}
	wait, ok := RetryAfter(resp.Header, time.Now())
	if !ok && t.Hint != nil {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		wait, ok = t.Hint(resp, body)
	}
	if !ok {
		return t.backoff(attempt), true, resp
	}
	if wait > limit {
		return 0, false, resp
	}
	return wait, true, resp
}

// RetryAfter reads the wait a server asks for: the retry-after-ms header (milliseconds), or
// Retry-After as seconds or an HTTP date relative to now.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return seconds(ms / 1000), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return seconds(s), true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// seconds converts a non-negative number of seconds to a Duration, saturating: converting a float
// beyond the int64 range is undefined in Go and gives a negative Duration on amd64, which would
// turn "retry after forever" into "retry now".
func seconds(s float64) time.Duration {
	if ns := s * float64(time.Second); ns < math.MaxInt64 {
		return time.Duration(ns)
	}
	return math.MaxInt64
}

func (t *Transport) backoff(attempt int) time.Duration {
	base, limit := t.BaseDelay, t.MaxDelay
	if base <= 0 {
		base = DefaultBaseDelay
	}
	if limit <= 0 {
		limit = DefaultMaxDelay
	}
	d := base << min(attempt, 30)
	if d <= 0 || d > limit {
		d = limit
	}
	// Full jitter on the upper half keeps clients that failed together from retrying together.
	return d/2 + rand.N(d/2+1)
}

func (t *Transport) sleep(ctx context.Context, d time.Duration) error {
	if t.Sleep != nil {
		return t.Sleep(ctx, d)
	}
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// drain reads a little of a discarded body so the connection can be reused, then closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

// retryableError reports whether a transport error means the server never answered: the
// connection was refused, reset or closed, or the attempt timed out on its own (not through the
// caller's context, which RoundTrip checks first).
func retryableError(err error) bool {
	var silent *httptimeout.Error
	if errors.As(err, &silent) {
		return true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
