package bodywatch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

func TestWatch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/cut" {
			w.Header().Set("Content-Length", strconv.Itoa(100))
			w.WriteHeader(http.StatusTeapot)
			_, _ = io.WriteString(w, "partial")
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			_ = conn.Close()
			return
		}
		_, _ = io.WriteString(w, "whole")
	}))
	defer srv.Close()
	client := &http.Client{Transport: &Transport{}}

	ctx, w := With(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/cut", nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, readErr := io.ReadAll(resp.Body)
	resp.Body.Close()
	if w.Status() != http.StatusTeapot || !errors.Is(w.Err(), io.ErrUnexpectedEOF) || !errors.Is(readErr, io.ErrUnexpectedEOF) {
		t.Fatalf("status %d, watched %v, read %v", w.Status(), w.Err(), readErr)
	}

	ctx, w = With(context.Background())
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "whole" || w.Status() != 200 || w.Err() != nil {
		t.Fatalf("body %q status %d err %v", b, w.Status(), w.Err())
	}

	// Requests without a watch pass through untouched.
	resp, err = client.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := resp.Body.(*body); ok {
		t.Fatal("unwatched response was wrapped")
	}
	resp.Body.Close()
}
