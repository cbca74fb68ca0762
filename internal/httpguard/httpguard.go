// Package httpguard holds the protections every HTTP surface of the module shares: the loopback
// check before serving without authentication, Origin checks, capped and timed body reads, an
// http.Server with timeouts and a graceful shutdown, and per-client limits on sessions and
// connections so that one client cannot lock the others out.
package httpguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// IsLoopback reports whether addr, a listener's address, is reachable only from this machine: a
// loopback IP address or a Unix socket.
func IsLoopback(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Origins is a parsed list of allowed origins.
type Origins struct {
	any     bool
	origins map[string]bool // "scheme://host[:port]", lower case, no default port
}

// ParseOrigins parses origins ("https://app.example.com"; "*" allows every origin).
func ParseOrigins(list []string) (Origins, error) {
	set := Origins{origins: map[string]bool{}}
	for _, o := range list {
		if o == "*" {
			set.any = true
			continue
		}
		norm, ok := NormalizeOrigin(o)
		if !ok {
			return set, fmt.Errorf("allowed origin %q is not an origin (scheme://host[:port])", o)
		}
		set.origins[norm] = true
	}
	return set, nil
}

// NormalizeOrigin returns an origin's serialisation in lower case, without a default port.
func NormalizeOrigin(o string) (string, bool) {
	u, err := url.Parse(o)
	if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", false
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if h, port, err := net.SplitHostPort(host); err == nil &&
		(scheme == "http" && port == "80" || scheme == "https" && port == "443") {
		host = h
		if strings.Contains(h, ":") {
			host = "[" + h + "]"
		}
	}
	return scheme + "://" + host, true
}

// Check classifies r's Origin header: ok is false when a browser on another origin, not listed,
// sent it; sameOrigin when the origin is the request's own host; a request without an Origin
// (not from a browser) is ok and not same-origin.
func (s Origins) Check(r *http.Request) (ok, sameOrigin bool) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true, false
	}
	norm, valid := NormalizeOrigin(origin)
	if !valid {
		return false, false
	}
	sameOrigin = strings.TrimPrefix(strings.TrimPrefix(norm, "http://"), "https://") == strings.ToLower(StripDefaultPort(r.Host))
	return sameOrigin || s.any || s.origins[norm], sameOrigin
}

// StripDefaultPort removes :80 and :443 from a Host header, as origins omit them.
func StripDefaultPort(host string) string {
	if h, port, err := net.SplitHostPort(host); err == nil && (port == "80" || port == "443") {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return host
}

// BodyError is a refused body, with the status to answer.
type BodyError struct {
	Status int
	Err    error
}

func (e *BodyError) Error() string { return e.Err.Error() }
func (e *BodyError) Unwrap() error { return e.Err }

// ReadBody reads r's whole body within max bytes (none if max <= 0) and timeout (none if <= 0).
// The read deadline is cleared afterwards, so that a long response does not inherit it. A
// refused body is a *BodyError: 413 over the cap, 408 on timeout, 400 otherwise.
func ReadBody(w http.ResponseWriter, r *http.Request, max int64, timeout time.Duration) ([]byte, error) {
	rc := http.NewResponseController(w)
	if timeout > 0 {
		_ = rc.SetReadDeadline(time.Now().Add(timeout))
	}
	body := r.Body
	if max > 0 {
		body = http.MaxBytesReader(w, body, max)
	}
	data, err := io.ReadAll(body)
	r.Body.Close()
	_ = rc.SetReadDeadline(time.Time{})
	if err == nil {
		return data, nil
	}
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &mbe):
		return nil, &BodyError{http.StatusRequestEntityTooLarge, fmt.Errorf("request body exceeds %d bytes", mbe.Limit)}
	case errors.As(err, &ne) && ne.Timeout():
		return nil, &BodyError{http.StatusRequestTimeout, errors.New("request body not received in time")}
	}
	return nil, &BodyError{http.StatusBadRequest, errors.New("cannot read the request body")}
}

// ServerOptions configure [Serve].
type ServerOptions struct {
	// ReadHeaderTimeout bounds reading request headers; zero is 10 seconds.
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes kept-alive connections idle this long; zero is 2 minutes.
	IdleTimeout time.Duration
	// Logger receives the server's own errors at WARN; nil is slog.Default().
	Logger *slog.Logger
	// Conns caps the connections open at once, in all and per client address; nil is
	// [DefaultConnLimits], a negative Total or PerClient no cap of that kind.
	Conns *ConnLimits
	// Stopped runs after the server has shut down (closing sessions, waiting for turns).
	Stopped func()
}

// Serve serves h on ln until ctx ends, then shuts down gracefully, waiting a few seconds for
// requests in flight, and returns nil; it returns the server's error if it stops on its own.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, o ServerOptions) error {
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = 10 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 2 * time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	limits := DefaultConnLimits
	if o.Conns != nil {
		limits = *o.Conns
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(LimitConns(ln, limits)) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(shutdown); err != nil {
			hs.Close()
		}
		<-done
		if o.Stopped != nil {
			o.Stopped()
		}
		return nil
	}
}
