// Package httptimeout bounds how long a server may stay silent: a [Transport] fails a request
// whose response headers do not come within a first-byte timeout, and a response body that
// sends nothing for an idle timeout, with an [*Error] naming the timeout and its value. A
// server that accepts the connection and then says nothing would otherwise hold a turn forever.
// It also bounds how much a response body may hold ([ErrTooLarge]): the SDKs read a whole
// answer into memory, and a compressed body is inflated before they see it.
//
// A stream that keeps sending keep-alives (SSE comments, ping events) is not idle: the server
// is alive, and some send nothing else for minutes while a model thinks. The caller's context
// is what bounds a whole turn.
//
// The providers install it under their SDK, as a transport (under [httpretry], so the timeouts
// apply to each attempt) or as SDK middleware ([Transport.Do]), and expose the two durations in
// their Config, where zero means the defaults here and
// a negative value turns a timeout off. It needs a base transport that honours the request's
// context, as net/http's does: the timeouts cancel the attempt's context.
//
// [httpretry]: github.com/wield-ai/wield/internal/httpretry
package httptimeout

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"
)

// The defaults, used when a [Transport] duration is zero. A first byte may be long in coming:
// a non-streamed answer's headers arrive only once the whole answer is generated, which is why
// the official SDKs allow ten minutes for such a request; a stream that has begun sends events
// (or keep-alives) far more often than every five minutes.
const (
	DefaultFirstByteTimeout = 10 * time.Minute
	DefaultIdleTimeout      = 5 * time.Minute
)

// DefaultMaxBody is the size limit of a response body, as inflated, when a [Transport] sets
// none: 256 MiB, far above any answer a model gives (a streamed answer of 128k tokens is some
// 40 MB of events) and the line limit of the SDKs that have one, yet a bound on what a hostile
// or broken server (or a gzip bomb) can make a program hold.
const DefaultMaxBody = 256 << 20

// ErrTooLarge is the error, wrapped, of reading a response body past the size limit.
var ErrTooLarge = errors.New("the response is too large")

// Kind names a timeout as the providers' Config fields do.
type Kind int

// The timeouts.
const (
	// FirstByte bounds the wait for the response headers after the request was sent.
	FirstByte Kind = iota + 1
	// Idle bounds each wait for more of the response body.
	Idle
)

// String returns the name of the Config field that sets the timeout.
func (k Kind) String() string {
	if k == Idle {
		return "IdleTimeout"
	}
	return "FirstByteTimeout"
}

// Error is the error of a request whose server stayed silent longer than a timeout allows.
type Error struct {
	// Kind is the timeout that expired.
	Kind Kind
	// After is its value.
	After time.Duration
}

func (e *Error) Error() string {
	if e.Kind == Idle {
		return fmt.Sprintf("timed out: the response stalled, nothing received for %v (%v)", e.After, e.Kind)
	}
	return fmt.Sprintf("timed out: no response %v after sending the request (%v)", e.After, e.Kind)
}

// Timeout reports true, as net.Error timeouts do.
func (e *Error) Timeout() bool { return true }

// Transport is an http.RoundTripper that applies the timeouts to each request it sends.
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// FirstByte bounds the time from sending a request to receiving its response headers:
	// zero means DefaultFirstByteTimeout, a negative value no bound.
	FirstByte time.Duration
	// Idle bounds each wait for more of a response body, the time between two stream events:
	// zero means DefaultIdleTimeout, a negative value no bound. Time the caller spends between
	// reads does not count.
	Idle time.Duration
	// MaxBody bounds the bytes of each response body (inflated): zero means DefaultMaxBody, a
	// negative value no bound. Reading past it fails with [ErrTooLarge] and drops the
	// connection.
	MaxBody int64
}

// resolve applies the zero-means-default, negative-means-none rule.
func resolve[T time.Duration | int64](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// RoundTrip sends req, failing with an [*Error] when the server is silent for too long.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return t.Do(req, base.RoundTrip)
}

// Do sends req through next with the timeouts: the form of the SDKs' middleware, for SDKs
// that may replace the HTTP client (the OpenAI and Anthropic SDKs, Bedrock and Vertex AI) and
// whose retries run the middleware again for each attempt. Base is not used.
func (t *Transport) Do(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	firstByte := resolve(t.FirstByte, DefaultFirstByteTimeout)
	idle := resolve(t.Idle, DefaultIdleTimeout)
	maxBody := resolve(t.MaxBody, DefaultMaxBody)
	if firstByte == 0 && idle == 0 && maxBody == 0 {
		return next(req)
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	var timer *time.Timer
	if firstByte > 0 {
		timer = time.AfterFunc(firstByte, func() { cancel(&Error{Kind: FirstByte, After: firstByte}) })
	}
	resp, err := next(req.WithContext(ctx))
	if timer != nil {
		timer.Stop()
	}
	if err != nil {
		if te := ours(ctx, nil); te != nil {
			// Keep the method and URL an *url.Error from http.Client adds.
			if ue, ok := err.(*url.Error); ok {
				ue.Err = te
			} else {
				err = te
			}
		}
		cancel(nil)
		return nil, err
	}
	b := &body{rc: resp.Body, ctx: ctx, cancel: cancel, idle: idle, start: time.Now(), left: maxBody, limited: maxBody > 0}
	if idle > 0 {
		// Armed once stored, so that check always finds it.
		t := time.AfterFunc(time.Duration(math.MaxInt64), b.check)
		b.timer.Store(t)
		t.Reset(idle)
	}
	resp.Body = b
	return resp, nil
}

// ours returns the timeout that cancelled ctx in place of err, the error it caused; any other
// error is returned as it is.
func ours(ctx context.Context, err error) error {
	var te *Error
	if errors.As(context.Cause(ctx), &te) {
		return te
	}
	return err
}

// body applies the idle timeout to a response body and releases the attempt's context when
// closed. Rather than arming a timer around every Read, which would cost more than a small read,
// Read notes when it started waiting and a timer that fires every idle period checks the note.
type body struct {
	rc     io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	idle   time.Duration
	start  time.Time                  // the origin of waiting, for monotonic durations
	timer  atomic.Pointer[time.Timer] // nil without an idle timeout
	// left is how many more bytes the body may hold, when limited.
	left, read int64
	limited    bool

	// waiting is when the Read in progress started waiting, in nanoseconds since start plus
	// one; zero when no Read is waiting.
	waiting atomic.Int64
	// over is set once no Read can wait any more: the body ended, failed or was closed.
	over atomic.Bool
}

func (b *body) Read(p []byte) (int, error) {
	if b.idle > 0 {
		b.waiting.Store(int64(time.Since(b.start)) + 1)
	}
	if b.limited && int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte more than allowed tells a body at the limit from one over it
	}
	n, err := b.rc.Read(p)
	if b.idle > 0 {
		b.waiting.Store(0)
	}
	if b.limited {
		if int64(n) > b.left {
			n, err = int(b.left), fmt.Errorf("%w: it exceeds %d bytes (MaxResponseBytes)", ErrTooLarge, b.left+b.read)
			b.end()
			b.cancel(err) // drop the connection rather than drain what is left
			return n, err
		}
		b.left -= int64(n)
		b.read += int64(n)
	}
	if err != nil {
		b.end()
		if err != io.EOF {
			err = ours(b.ctx, err)
		}
	}
	return n, err
}

// end stops the idle timer for good.
func (b *body) end() {
	b.over.Store(true)
	if t := b.timer.Load(); t != nil {
		t.Stop()
	}
}

// check runs when the timer fires: it ends a Read that has waited for the idle timeout, and
// otherwise sets the timer for when the current wait, or the next, could reach it.
func (b *body) check() {
	if b.over.Load() {
		return
	}
	next := b.idle
	if w := b.waiting.Load(); w != 0 {
		waited := time.Since(b.start) - time.Duration(w-1)
		if waited >= b.idle {
			b.cancel(&Error{Kind: Idle, After: b.idle})
			return
		}
		next = b.idle - waited
	}
	b.timer.Load().Reset(next)
}

func (b *body) Close() error {
	b.end()
	err := b.rc.Close()
	b.cancel(nil)
	return err
}
