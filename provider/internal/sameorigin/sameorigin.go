// Package sameorigin keeps a provider's requests on the server they were sent to. net/http
// follows a redirect to any host and drops only the Authorization and Cookie headers on the way,
// so a key sent in a header of the provider's own (x-api-key, x-goog-api-key, api-key), a token
// an authorizing transport adds to every request it sends, and the prompt a 307 or 308 sends
// again would all reach whatever host the server, or a proxy in between, names. A provider API
// has no reason to send a client elsewhere; a redirect within the same origin is still followed.
package sameorigin

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ErrRedirect is the error, wrapped, of a request whose server redirected it to another origin.
var ErrRedirect = errors.New("redirect to another server refused")

// Client returns a copy of c (of a zero client when nil, which sends with
// http.DefaultTransport) whose redirects must stay on the origin of the request that started
// them; c's own redirect policy, if any, still applies to those it follows. c is not changed.
func Client(c *http.Client) *http.Client {
	out := &http.Client{}
	if c != nil {
		*out = *c
	}
	out.CheckRedirect = Check(out.CheckRedirect)
	return out
}

// Check returns a redirect policy that refuses a redirect leaving the origin (scheme, host and
// port) of the first request, then defers to next, or to net/http's default of ten redirects
// when next is nil.
func Check(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 && !Same(via[0].URL, req.URL) {
			return fmt.Errorf("%w: %s answered %d with a redirect to %s; a provider's credentials and prompts go only to the server configured",
				ErrRedirect, origin(via[0].URL), status(req), origin(req.URL))
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// Same reports whether two URLs have the same scheme, host and port (the scheme's default when
// absent).
func Same(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// origin is what an error may show of a URL: its scheme and host, never credentials, path or
// query.
func origin(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

func status(req *http.Request) int {
	if req.Response != nil {
		return req.Response.StatusCode
	}
	return 0
}
