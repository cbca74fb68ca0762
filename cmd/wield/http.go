package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// credentialHeaders are the request headers that carry API keys, for every provider wield talks to.
var credentialHeaders = []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key", "Api-Key", "Proxy-Authorization", "Cookie"}

// envSecret is an API key found in a provider's environment variable, with the origins
// (scheme://host:port) it may go to.
type envSecret struct {
	value string
	hosts []string
}

// httpClient is the HTTP client every request to a model provider goes through: it keeps the
// providers' environment keys on their own hosts (the SDKs read those variables themselves,
// whatever base URL they are given), and with --debug it shows each exchange.
func (a *app) httpClient(s modelSpec) *http.Client {
	var rt http.RoundTripper = http.DefaultTransport
	if a.debug {
		rt = &debugTransport{base: rt, out: a.stderr, mu: &a.errMu, secrets: a.secrets(s)}
	}
	rt = &guardTransport{base: rt, secrets: a.envSecrets(), allowed: s.apiKey}
	return &http.Client{Transport: rt}
}

// envSecrets are the keys in the providers' environment variables with the origins each may go
// to: the provider's own over HTTPS, and the one its SDK's base URL variable names.
func (a *app) envSecrets() []envSecret {
	var out []envSecret
	for _, p := range providers {
		hosts := a.keyOrigins(p)
		vars := append(slices.Clone(p.keyVars), extraKeyVars[p.name]...)
		for _, v := range vars {
			if key := a.getenv(v); len(key) >= minSecretLen {
				out = append(out, envSecret{value: key, hosts: hosts})
			}
		}
	}
	return out
}

// extraKeyVars are further variables the providers' SDKs read credentials from.
var extraKeyVars = map[string][]string{
	"openai":    {"OPENAI_ADMIN_KEY"},
	"anthropic": {"ANTHROPIC_AUTH_TOKEN"},
}

// minSecretLen keeps one- or two-character values (tests, placeholders) from being treated as
// secrets to strip or redact everywhere they occur.
const minSecretLen = 3

// secrets are the values --debug hides wherever they appear: every key wield knows of.
func (a *app) secrets(s modelSpec) []string {
	var out []string
	if len(s.apiKey) >= minSecretLen {
		out = append(out, s.apiKey)
	}
	for _, e := range a.envSecrets() {
		out = append(out, e.value)
	}
	if k := a.getenv("WIELD_API_KEY"); len(k) >= minSecretLen {
		out = append(out, k)
	}
	return out
}

// redactSecrets replaces the keys of s and of the environment in text.
func redactSecrets(text string, s modelSpec) string {
	if len(s.apiKey) >= minSecretLen {
		text = strings.ReplaceAll(text, s.apiKey, "[redacted]")
	}
	return text
}

// guardTransport removes, from requests to other hosts, credential headers and query
// parameters that hold a provider's environment key. The key the user gave for the request's
// server (allowed) passes.
type guardTransport struct {
	base    http.RoundTripper
	secrets []envSecret
	allowed string
}

func (g *guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	origin := urlOrigin(req.URL)
	var strip []envSecret
	for _, s := range g.secrets {
		if s.value != g.allowed && (origin == "" || !slices.Contains(s.hosts, origin)) {
			strip = append(strip, s)
		}
	}
	if len(strip) == 0 {
		return g.base.RoundTrip(req)
	}
	holds := func(v string) bool {
		return slices.ContainsFunc(strip, func(s envSecret) bool { return strings.Contains(v, s.value) })
	}
	out := req.Clone(req.Context())
	for _, h := range credentialHeaders {
		if holds(out.Header.Get(h)) {
			out.Header.Del(h)
		}
	}
	if q := out.URL.Query(); len(q) > 0 {
		changed := false
		for k, vs := range q {
			if slices.ContainsFunc(vs, holds) {
				q.Del(k)
				changed = true
			}
		}
		if changed {
			out.URL.RawQuery = q.Encode()
		}
	}
	return g.base.RoundTrip(out)
}

// debugBodyLimit is how much of each body --debug shows.
const debugBodyLimit = 64 << 10

// debugTransport prints each HTTP exchange on out, as curl -v does: "> " lines for the
// request, "< " lines for the response, its body as it streams. Credential headers and every
// known key are redacted.
type debugTransport struct {
	base    http.RoundTripper
	out     io.Writer
	mu      *sync.Mutex
	secrets []string
}

func (d *debugTransport) redact(s string) string {
	for _, k := range d.secrets {
		s = strings.ReplaceAll(s, k, "[redacted]")
	}
	return s
}

func (d *debugTransport) print(prefix, text string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(d.out, "%s%s\n", prefix, safeLine(d.redact(line)))
	}
}

func (d *debugTransport) headers(h http.Header) string {
	var b strings.Builder
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range h {
			if !yield(k) {
				return
			}
		}
	}) {
		for _, v := range h[k] {
			if slices.ContainsFunc(credentialHeaders, func(c string) bool { return strings.EqualFold(c, k) }) || strings.EqualFold(k, "Set-Cookie") {
				v = "[redacted]"
			}
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	return b.String()
}

func (d *debugTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", req.Method, redactURL(req.URL.String()))
	b.WriteString(d.headers(req.Header))
	if req.Body != nil && req.Body != http.NoBody {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		b.WriteString("\n")
		b.WriteString(clip(body))
	}
	d.print("> ", b.String())
	start := time.Now()
	resp, err := d.base.RoundTrip(req)
	if err != nil {
		d.print("< ", fmt.Sprintf("failed after %v: %v", time.Since(start).Round(time.Millisecond), err))
		return nil, err
	}
	d.print("< ", fmt.Sprintf("%s %s (%v)\n%s", resp.Proto, resp.Status, time.Since(start).Round(time.Millisecond), d.headers(resp.Header)))
	resp.Body = &debugBody{ReadCloser: resp.Body, d: d}
	return resp, nil
}

func clip(body []byte) string {
	if len(body) <= debugBodyLimit {
		return string(body)
	}
	return fmt.Sprintf("%s\n… (%d bytes more)", body[:debugBodyLimit], len(body)-debugBodyLimit)
}

// debugBody prints a response body line by line as the caller reads it, so streams show as
// they arrive.
type debugBody struct {
	io.ReadCloser
	d       *debugTransport
	partial []byte
	shown   int
	closed  bool
}

func (r *debugBody) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 {
		r.partial = append(r.partial, p[:n]...)
		if i := bytes.LastIndexByte(r.partial, '\n'); i >= 0 {
			r.show(r.partial[:i+1])
			r.partial = append(r.partial[:0], r.partial[i+1:]...)
		}
	}
	if err != nil {
		r.flush()
	}
	return n, err
}

func (r *debugBody) show(b []byte) {
	if r.shown >= debugBodyLimit {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, len(b)+1)
	var lines []string
	for sc.Scan() {
		if sc.Text() != "" {
			lines = append(lines, sc.Text())
		}
	}
	r.shown += len(b)
	if r.shown >= debugBodyLimit {
		lines = append(lines, "… (the rest of the body is not shown)")
	}
	if len(lines) > 0 {
		r.d.print("< ", strings.Join(lines, "\n"))
	}
}

func (r *debugBody) flush() {
	if len(r.partial) > 0 {
		r.show(r.partial)
		r.partial = nil
	}
}

func (r *debugBody) Close() error {
	if !r.closed {
		r.closed = true
		r.flush()
	}
	return r.ReadCloser.Close()
}
