package wire

import (
	"net/http"

	"github.com/wield-ai/wield/internal/httptimeout"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/internal/splice"
)

// Next sends a request, the form of the SDKs' middleware.
type Next = func(*http.Request) (*http.Response, error)

// Middleware returns what t asks of each attempt, in the SDKs' middleware form: the prompt's
// large values spliced into the body ([splice.Request]), its headers, then its timeouts and size
// bound. As middleware it holds whatever HTTP client the SDK ends up with, and runs again for each
// retry.
func Middleware(t provider.Transport) func(*http.Request, Next) (*http.Response, error) {
	timeouts := Timeouts(t, nil)
	return func(r *http.Request, next Next) (*http.Response, error) {
		r, err := splice.Request(r)
		if err != nil {
			return nil, err
		}
		setHeader(r.Header, t.Header)
		return timeouts.Do(r, next)
	}
}

// Timeouts returns the timeouts and size bound of t around base, which gets each attempt with the
// prompt's large values spliced into its body ([splice.Request]).
func Timeouts(t provider.Transport, base http.RoundTripper) *httptimeout.Transport {
	return &httptimeout.Transport{Base: spliceTransport{base}, FirstByte: t.FirstByteTimeout, Idle: t.IdleTimeout, MaxBody: t.MaxResponseBytes}
}

// spliceTransport sends requests through base (nil: http.DefaultTransport) with the values of
// their prompt spliced in.
type spliceTransport struct{ base http.RoundTripper }

func (t spliceTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r, err := splice.Request(r)
	if err != nil {
		return nil, err
	}
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}

// Headers returns base with t's headers set on every request; base itself when t has none.
func Headers(t provider.Transport, base http.RoundTripper) http.RoundTripper {
	if len(t.Header) == 0 {
		return base
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return headerTransport{h: t.Header, base: base}
}

type headerTransport struct {
	h    http.Header
	base http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	// A RoundTripper must not change the request it is given.
	r = r.Clone(r.Context())
	setHeader(r.Header, t.h)
	return t.base.RoundTrip(r)
}

func setHeader(dst, src http.Header) {
	for k, v := range src {
		dst[http.CanonicalHeaderKey(k)] = append([]string(nil), v...)
	}
}
