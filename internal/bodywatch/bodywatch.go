// Package bodywatch records what happened to the HTTP response of a request: its status and why
// reading its body failed. SDKs that parse streams line by line report a connection cut in the
// middle of a line as a JSON error about the partial line, or not at all; a [Watch] keeps the
// real cause so the provider can report it.
package bodywatch

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// Watch holds what was seen of the responses to requests made with its context.
type Watch struct {
	mu      sync.Mutex
	status  int
	readErr error
}

type key struct{}

// With returns a context carrying a new Watch, which a [Transport] fills for requests made with it.
func With(ctx context.Context) (context.Context, *Watch) {
	w := &Watch{}
	return context.WithValue(ctx, key{}, w), w
}

// Status returns the status of the last response received, or 0.
func (w *Watch) Status() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status
}

// Err returns the first error other than io.EOF met while reading a response body, or nil.
func (w *Watch) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.readErr
}

// Transport wraps Base (http.DefaultTransport when nil), filling the Watch of each request's
// context, if it has one.
type Transport struct {
	Base http.RoundTripper
}

// RoundTrip sends req and, for watched requests, watches the response.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	w, ok := req.Context().Value(key{}).(*Watch)
	if !ok || err != nil {
		return resp, err
	}
	w.mu.Lock()
	w.status = resp.StatusCode
	w.mu.Unlock()
	resp.Body = &body{ReadCloser: resp.Body, w: w}
	return resp, nil
}

type body struct {
	io.ReadCloser
	w *Watch
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.w.mu.Lock()
		if b.w.readErr == nil {
			b.w.readErr = err
		}
		b.w.mu.Unlock()
	}
	return n, err
}
