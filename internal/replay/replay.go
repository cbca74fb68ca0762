// Package replay serves recorded HTTP exchanges (shared/fixtures/providers layout) from a local
// test server, in order, and records the requests it receives, so provider code can be tested
// against real traffic offline. It also injects faults: error statuses, Retry-After headers and
// bodies cut in the middle.
package replay

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Exchange is one recorded request and the response to serve for it.
type Exchange struct {
	// Method and Path are the recorded request line (Path may include a query); informative only,
	// the server answers whatever arrives next.
	Method, Path string
	// RequestBody is the recorded request body; nil when only the response was recorded.
	RequestBody []byte

	// Status is the response status; zero means 200.
	Status int
	// Header holds the response headers. Content-Type defaults from the body file's extension.
	Header http.Header
	// Body is the response body, served byte for byte.
	Body []byte
	// CutAfter, when positive, serves only the first CutAfter bytes of Body and then drops the
	// connection, as a server or proxy dying mid-stream would.
	CutAfter int
}

// Load reads the exchanges of one recorded case directory: NN-request.json, NN-request.txt,
// NN-status.txt, NN-response-headers.txt and one NN-response.{json,sse,ndjson,eventstream} per
// exchange (eventstream: AWS event-stream binary frames, served byte for byte).
func Load(dir string) ([]Exchange, error) {
	var out []Exchange
	for n := 1; ; n++ {
		prefix := filepath.Join(dir, fmt.Sprintf("%02d-", n))
		body, ext, err := responseBody(prefix)
		if err != nil {
			return nil, err
		}
		if body == nil {
			break
		}
		ex := Exchange{Body: body, Header: http.Header{}}
		switch ext {
		case ".sse":
			ex.Header.Set("Content-Type", "text/event-stream")
		case ".ndjson":
			ex.Header.Set("Content-Type", "application/x-ndjson")
		case ".eventstream":
			ex.Header.Set("Content-Type", "application/vnd.amazon.eventstream")
		default:
			ex.Header.Set("Content-Type", "application/json")
		}
		if b, err := os.ReadFile(prefix + "response-headers.txt"); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if k, v, ok := strings.Cut(strings.TrimRight(line, "\r"), ":"); ok {
					ex.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
				}
			}
		}
		if b, err := os.ReadFile(prefix + "status.txt"); err == nil {
			if ex.Status, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
				return nil, fmt.Errorf("replay: %sstatus.txt: %w", prefix, err)
			}
		}
		if b, err := os.ReadFile(prefix + "request.json"); err == nil {
			ex.RequestBody = b
		}
		if b, err := os.ReadFile(prefix + "request.txt"); err == nil {
			line, _, _ := strings.Cut(string(b), "\n")
			ex.Method, ex.Path, _ = strings.Cut(strings.TrimSpace(line), " ")
		}
		out = append(out, ex)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("replay: no exchanges in %s", dir)
	}
	return out, nil
}

func responseBody(prefix string) ([]byte, string, error) {
	for _, ext := range []string{".json", ".sse", ".ndjson", ".eventstream"} {
		b, err := os.ReadFile(prefix + "response" + ext)
		if err == nil {
			return b, ext, nil
		}
		if !os.IsNotExist(err) {
			return nil, "", err
		}
	}
	return nil, "", nil
}

// Request is a request the server received.
type Request struct {
	Method string
	// Path is the URL path; Query the raw query.
	Path, Query string
	Header      http.Header
	Body        []byte
}

// Server serves exchanges in order from 127.0.0.1.
type Server struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:41234.
	URL string

	t    testing.TB
	srv  *httptest.Server
	mu   sync.Mutex
	next int
	exs  []Exchange
	reqs []Request
}

// NewServer starts a server answering the n-th request with the n-th exchange. A request past the
// last exchange gets a 500 and fails t. The server closes when the test ends.
func NewServer(t testing.TB, exchanges ...Exchange) *Server {
	t.Helper()
	s := &Server{t: t, exs: exchanges}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	n := s.next
	s.next++
	s.mu.Unlock()
	if n >= len(s.exs) {
		s.t.Errorf("replay: unexpected request %d (%s %s): only %d exchanges recorded", n+1, r.Method, r.URL.Path, len(s.exs))
		http.Error(w, `{"error":{"message":"replay: no more recorded exchanges"}}`, http.StatusInternalServerError)
		return
	}
	ex := s.exs[n]
	for k, vs := range ex.Header {
		if strings.EqualFold(k, "Content-Length") || strings.EqualFold(k, "Content-Encoding") || strings.EqualFold(k, "Transfer-Encoding") {
			continue
		}
		w.Header()[k] = vs
	}
	status := ex.Status
	if status == 0 {
		status = http.StatusOK
	}
	if ex.CutAfter <= 0 || ex.CutAfter >= len(ex.Body) {
		w.WriteHeader(status)
		_, _ = w.Write(ex.Body)
		return
	}
	// Announce the full length, send part of it, then drop the connection: the client sees an
	// unexpected EOF, exactly as when a stream is cut.
	w.Header().Set("Content-Length", strconv.Itoa(len(ex.Body)))
	w.WriteHeader(status)
	_, _ = w.Write(ex.Body[:ex.CutAfter])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if hj, ok := w.(http.Hijacker); ok {
		if conn, buf, err := hj.Hijack(); err == nil {
			_ = buf.Flush()
			_ = conn.Close()
		}
	}
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Served returns how many requests the server has answered.
func (s *Server) Served() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// SSEData returns the payloads of the `data:` lines of a server-sent-event body, in order,
// skipping comments and the OpenAI `[DONE]` marker. CRLF separators are accepted.
func SSEData(body []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := bytes.TrimRight(sc.Bytes(), "\r")
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		data = bytes.TrimSpace(data)
		if len(data) == 0 || string(data) == "[DONE]" {
			continue
		}
		out = append(out, append([]byte(nil), data...))
	}
	return out
}
