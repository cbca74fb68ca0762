//go:build unix

package providertest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/testenv"
)

// StartSteady runs steady, the OpenAPI mock server scripts/test installs, on the OpenAPI
// description at spec (a file path; one ending in .gz is decompressed first, large descriptions
// being kept compressed in testdata) and returns its base URL on 127.0.0.1. steady answers a
// request the description forbids with 400 naming the broken rules, and any other with
// made-up data and X-Steady-Request-Valid: true; see [Verdicts]. The server stops with t. The
// test is skipped (failed in CI) when steady is not installed.
func StartSteady(t testing.TB, spec string) string {
	t.Helper()
	if strings.HasSuffix(spec, ".gz") {
		spec = gunzip(t, spec)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := testenv.Command(t, "steady", "--host", "127.0.0.1", "-p", port, "--log-level", "details", "--no-color", spec)
	var out testenv.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// steady's launcher starts the server as a child: stop the whole process group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	url := "http://127.0.0.1:" + port
	for deadline := time.Now().Add(90 * time.Second); ; {
		select {
		case <-exited:
			t.Fatalf("steady exited:\n%s", out.String())
		default:
		}
		if res, err := http.Get(url + "/"); err == nil {
			res.Body.Close()
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("steady did not start:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// gunzip writes the gzip-compressed file at path decompressed into t's temporary directory,
// named as path without .gz, and returns the copy's path.
func gunzip(t testing.TB, path string) string {
	t.Helper()
	gz, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(path), ".gz"))
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// Verdict is steady's answer to one request.
type Verdict struct {
	// Path is the path of the request.
	Path string
	// Status is the answer's status: 400 for a request the description forbids.
	Status int
	// Header holds the answer's headers, steady's X-Steady-* among them.
	Header http.Header
	// Body is the answer's body; Request the request's.
	Body, Request []byte
}

// Valid reports whether steady found the request valid.
func (v Verdict) Valid() bool {
	return v.Status != http.StatusBadRequest && v.Header.Get("X-Steady-Request-Valid") == "true"
}

// Rules lists the rules steady reports the request broke, one a line, from the errors in its
// answer or else its X-Steady-Error-* headers; failing both, the answer's body.
func (v Verdict) Rules() string {
	var e struct {
		Steady struct {
			Errors []struct {
				Code, Path, Message string
			} `json:"errors"`
		} `json:"steady"`
	}
	var b strings.Builder
	if json.Unmarshal(v.Body, &e) == nil {
		for _, x := range e.Steady.Errors {
			fmt.Fprintf(&b, "\n  %s at %s: %s", x.Code, x.Path, x.Message)
		}
	}
	if b.Len() == 0 {
		var names []string
		for k := range v.Header {
			if strings.HasPrefix(strings.ToLower(k), "x-steady-error-") {
				names = append(names, k)
			}
		}
		sort.Strings(names)
		for _, k := range names {
			fmt.Fprintf(&b, "\n  %s: %s", k, strings.Join(v.Header[k], ", "))
		}
	}
	if b.Len() == 0 {
		return string(v.Body)
	}
	return b.String()
}

// Verdicts is an http.RoundTripper that records steady's verdict on every request sent through
// it. It is safe for concurrent use.
type Verdicts struct {
	mu  sync.Mutex
	all []Verdict
}

// RoundTrip implements http.RoundTripper.
func (v *Verdicts) RoundTrip(r *http.Request) (*http.Response, error) {
	var reqBody []byte
	if r.GetBody != nil {
		if b, err := r.GetBody(); err == nil {
			reqBody, _ = io.ReadAll(b)
		}
	}
	res, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	v.mu.Lock()
	v.all = append(v.all, Verdict{Path: r.URL.Path, Status: res.StatusCode, Header: res.Header.Clone(), Body: body, Request: reqBody})
	v.mu.Unlock()
	return res, nil
}

// Take returns the verdicts recorded since the last Take.
func (v *Verdicts) Take() []Verdict {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := v.all
	v.all = nil
	return out
}

// One returns the one verdict recorded since the last Take, failing t unless exactly one
// request went through v.
func (v *Verdicts) One(t testing.TB) Verdict {
	t.Helper()
	vs := v.Take()
	if len(vs) != 1 {
		t.Fatalf("%d requests reached steady, want 1", len(vs))
	}
	return vs[0]
}

// Send sends p to m, called or streamed as stream says, and returns steady's verdict on the one
// request m must send through v. steady answers with made-up data, which need not make sense as
// an answer: only its verdict on the request counts, so the answer is dropped.
func (v *Verdicts) Send(t testing.TB, m chat.Model, p *chat.Prompt, stream bool) Verdict {
	t.Helper()
	v.Take()
	_, _ = Run(context.Background(), m, p, stream)
	return v.One(t)
}

// Accepted fails t unless the request went to path and steady found it valid.
func (v Verdict) Accepted(t testing.TB, path string) {
	t.Helper()
	if v.Path != path {
		t.Fatalf("request to %s, want %s", v.Path, path)
	}
	if !v.Valid() {
		t.Fatalf("steady rejected the request (HTTP %d):%s\nrequest: %.2000s", v.Status, v.Rules(), v.Request)
	}
}

// SteadyRejects posts body, a JSON request the description forbids, to url, and fails t unless
// steady rejects it: the proof that its verdicts on the valid requests mean something.
func SteadyRejects(t testing.TB, url, body string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("X-Steady-Request-Valid") != "false" {
		t.Fatalf("steady answered %s with status %d, want a rejection", body, resp.StatusCode)
	}
}
