//go:build unix

package providertest

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVerdict(t *testing.T) {
	tests := []struct {
		name  string
		v     Verdict
		valid bool
		rules string
	}{
		{"valid", Verdict{Status: 200, Header: http.Header{"X-Steady-Request-Valid": {"true"}}}, true, ""},
		{"errors in the body", Verdict{Status: 400, Header: http.Header{"X-Steady-Request-Valid": {"false"}},
			Body: []byte(`{"steady":{"errors":[{"code":"type","path":"/temperature","message":"expected number"},{"code":"required","path":"/model","message":"missing"}]}}`)},
			false, "\n  type at /temperature: expected number\n  required at /model: missing"},
		{"errors in headers", Verdict{Status: 400, Header: http.Header{
			"X-Steady-Error-2": {"b"}, "X-Steady-Error-1": {"a", "c"}, "X-Other": {"x"}}, Body: []byte(`not json`)},
			false, "\n  X-Steady-Error-1: a, c\n  X-Steady-Error-2: b"},
		{"nothing to go on", Verdict{Status: 400, Body: []byte("bad request")}, false, "bad request"},
		{"valid header on a 400", Verdict{Status: 400, Header: http.Header{"X-Steady-Request-Valid": {"true"}}}, false, ""},
	}
	for _, tt := range tests {
		if got := tt.v.Valid(); got != tt.valid {
			t.Errorf("%s: Valid() = %v", tt.name, got)
		}
		if got := tt.v.Rules(); got != tt.rules {
			t.Errorf("%s: Rules() = %q, want %q", tt.name, got, tt.rules)
		}
	}
}

// TestVerdictChecks runs the verdict checks against a stand-in for steady that finds a request
// valid when its body says so, and on requests that must fail them.
func TestVerdictChecks(t *testing.T) {
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), "valid") {
			w.Header().Set("X-Steady-Request-Valid", "false")
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.Header().Set("X-Steady-Request-Valid", "true")
	}))
	defer fake.Close()
	v := &Verdicts{}
	client := &http.Client{Transport: v}
	post := func(path, body string) {
		res, err := client.Post(fake.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	for _, tc := range []struct {
		name   string
		posts  []string // bodies posted to /a
		path   string   // the path the check wants
		caught bool
	}{
		{"one valid request", []string{"valid"}, "/a", false},
		{"to another path", []string{"valid"}, "/b", true},
		{"refused", []string{"bad"}, "/a", true},
		{"none", nil, "/a", true},
		{"two", []string{"valid", "valid"}, "/a", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, b := range tc.posts {
				post("/a", b)
			}
			expectCaught(t, tc.caught, func(t testing.TB) { v.One(t).Accepted(t, tc.path) })
			v.Take()
		})
	}
	t.Run("SteadyRejects", func(t *testing.T) {
		expectCaught(t, false, func(t testing.TB) { SteadyRejects(t, fake.URL, "bad") })
		expectCaught(t, true, func(t testing.TB) { SteadyRejects(t, fake.URL, "valid") })
	})
}

// TestGunzip: a compressed description is written out whole under its name without .gz; a file
// that is not gzip fails, naming it.
func TestGunzip(t *testing.T) {
	dir := t.TempDir()
	want := strings.Repeat("openapi: 3.1.0\n", 1000)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(want))
	zw.Close()
	path := filepath.Join(dir, "spec.yaml.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := gunzip(t, path)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(out) != "spec.yaml" || string(got) != want {
		t.Errorf("gunzip wrote %d bytes to %s, want %d to spec.yaml", len(got), out, len(want))
	}
	plain := filepath.Join(dir, "plain.yaml.gz")
	if err := os.WriteFile(plain, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	if failed, msg := check(t, func(t testing.TB) { gunzip(t, plain) }); !failed || !strings.Contains(msg, plain) {
		t.Errorf("a file that is not gzip: failed %v, %q", failed, msg)
	}
}
