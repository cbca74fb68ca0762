package sameorigin

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestClient: a redirect to another origin is refused before anything reaches it, with an error
// naming the origins and nothing of the URL's credentials, path or query; a redirect within the
// origin is followed; the caller's own policy still applies and its client is not changed.
func TestClient(t *testing.T) {
	var reached atomic.Int32
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
	}))
	defer foreign.Close()
	foreignURL := "http://user:pw@" + strings.Replace(foreign.URL, "http://127.0.0.1", "localhost", 1) + "/steal?key=k"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, foreignURL, http.StatusTemporaryRedirect)
		case "/port":
			http.Redirect(w, r, "http://127.0.0.1:1/x", http.StatusPermanentRedirect)
		case "/here":
			http.Redirect(w, r, "/done", http.StatusTemporaryRedirect)
		case "/done":
			b, _ := io.ReadAll(r.Body)
			_, _ = w.Write(append([]byte("done "), b...))
		}
	}))
	defer srv.Close()

	for _, path := range []string{"/away", "/port"} {
		_, err := Client(nil).Post(srv.URL+path, "text/plain", strings.NewReader("prompt"))
		if !errors.Is(err, ErrRedirect) {
			t.Fatalf("%s: err %v, want ErrRedirect", path, err)
		}
		// net/http's *url.Error names the URL it was asked to go to; what this package adds
		// names origins only.
		_, ours, _ := strings.Cut(err.Error(), ErrRedirect.Error())
		if !strings.Contains(ours, srv.URL) || strings.Contains(ours, "pw") || strings.Contains(ours, "steal") || strings.Contains(ours, "key=") {
			t.Errorf("%s: error: %s", path, err)
		}
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the foreign server got %d requests", n)
	}

	resp, err := Client(nil).Post(srv.URL+"/here", "text/plain", strings.NewReader("prompt"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "done prompt" {
		t.Errorf("same-origin redirect: %q", b)
	}

	mine := errors.New("mine")
	user := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return mine }}
	if _, err := Client(user).Get(srv.URL + "/here"); !errors.Is(err, mine) {
		t.Errorf("the caller's policy was not applied: %v", err)
	}
	if _, err := Client(user).Get(srv.URL + "/away"); !errors.Is(err, ErrRedirect) {
		t.Errorf("the caller's policy replaced the origin check: %v", err)
	}
	if err := user.CheckRedirect(nil, nil); err != mine {
		t.Error("the caller's client was changed")
	}
}
