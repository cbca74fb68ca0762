package replay

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadAndServe(t *testing.T) {
	exs, err := Load(filepath.Join("testdata", "fantasy-tool-loop-streaming-gpt-4o"))
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) != 2 || exs[0].Method != "POST" || exs[0].Path != "/v1/chat/completions" || exs[0].RequestBody == nil {
		t.Fatalf("loaded %d exchanges, first %s %s", len(exs), exs[0].Method, exs[0].Path)
	}
	if ct := exs[0].Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	s := NewServer(t, exs...)
	for i := range 2 {
		resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"n":`+string(rune('1'+i))+`}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != string(exs[i].Body) {
			t.Fatalf("exchange %d body differs", i+1)
		}
		if len(SSEData(b)) == 0 {
			t.Fatalf("exchange %d: no SSE data", i+1)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 2 || string(reqs[1].Body) != `{"n":2}` || reqs[0].Path != "/v1/chat/completions" {
		t.Fatalf("requests = %+v", reqs)
	}
}

func TestCutAfter(t *testing.T) {
	s := NewServer(t, Exchange{Body: []byte("data: {\"a\":1}\n\ndata: {\"b\":2}\n\n"), CutAfter: 10})
	resp, err := http.Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want unexpected EOF", err)
	}
	if string(b) != "data: {\"a\"" {
		t.Fatalf("got %q", b)
	}
}

func TestStatusAndHeaders(t *testing.T) {
	s := NewServer(t, Exchange{Status: 429, Header: http.Header{"Retry-After": {"1"}}, Body: []byte(`{"error":"slow down"}`)})
	resp, err := http.Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("status %d retry-after %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

func TestSSEData(t *testing.T) {
	body := "event: x\r\ndata: {\"a\":1}  \r\n\r\n: comment\ndata: [DONE]\n\n"
	got := SSEData([]byte(body))
	if len(got) != 1 || string(got[0]) != `{"a":1}` {
		t.Fatalf("got %q", got)
	}
}

// TestLoadEventStream: an AWS event-stream body is loaded byte for byte and served with its
// content type.
func TestLoadEventStream(t *testing.T) {
	dir := t.TempDir()
	body := []byte{0, 0, 0, 16, 0, 0, 0, 0, 0x05, 0xc2, 0x48, 0xeb, 0x7d, 0x98, 0xc8, 0xff}
	if err := os.WriteFile(filepath.Join(dir, "01-response.eventstream"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	exs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) != 1 || exs[0].Header.Get("Content-Type") != "application/vnd.amazon.eventstream" || !bytes.Equal(exs[0].Body, body) {
		t.Fatalf("loaded %+v", exs)
	}
}
