package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// reply is what the scripted OpenAI-compatible server answers to one chat request.
type reply struct {
	// chunks are the answer's text deltas; text is one delta.
	chunks []string
	text   string
	// calls are tool calls (name and JSON arguments) asked for instead of, or after, text.
	calls [][2]string
	// delay is the pause before each chunk after the first; hold, when set, is closed by the
	// test to let the rest of the answer go (for interrupting an answer half way).
	delay time.Duration
	hold  chan struct{}
	// status and body make an error answer.
	status int
	body   string
	// usage is reported in the last chunk: input, output, cached input tokens.
	usage [3]int
}

// sentReq is a request the server received.
type sentReq struct {
	Path   string
	Header http.Header
	Body   []byte
}

// fakeOpenAI is a scripted OpenAI-compatible server on 127.0.0.1: /v1/chat/completions streams
// the replies in order (the last one again once the script runs out), /v1/models lists models.
type fakeOpenAI struct {
	*httptest.Server
	t       *testing.T
	models  []string
	mu      sync.Mutex
	replies []reply
	reqs    []sentReq
	n       int
}

func newFakeOpenAI(t *testing.T, replies ...reply) *fakeOpenAI {
	f := &fakeOpenAI{t: t, replies: replies, models: []string{"gpt-4o", "gpt-4o-mini"}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// v1 is the server's base URL, version path included.
func (f *fakeOpenAI) v1() string { return f.URL + "/v1" }

func (f *fakeOpenAI) requests() []sentReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sentReq(nil), f.reqs...)
}

// chatRequests are the chat requests' bodies, decoded.
func (f *fakeOpenAI) chatRequests() []sentRequest {
	var out []sentRequest
	for _, r := range f.requests() {
		if r.Path != "/v1/chat/completions" {
			continue
		}
		var req sentRequest
		if err := json.Unmarshal(r.Body, &req); err != nil {
			f.t.Fatalf("request body: %v\n%s", err, r.Body)
		}
		out = append(out, req)
	}
	return out
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.reqs = append(f.reqs, sentReq{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	f.mu.Unlock()
	switch r.URL.Path {
	case "/v1/models":
		var data []map[string]any
		for _, m := range f.models {
			data = append(data, map[string]any{"id": m, "object": "model", "created": 1, "owned_by": "test"})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
		return
	case "/v1/chat/completions":
	default:
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	var rep reply
	if len(f.replies) > 0 {
		rep = f.replies[min(f.n, len(f.replies)-1)]
	} else {
		rep = reply{text: "ok"}
	}
	f.n++
	f.mu.Unlock()
	if rep.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		io.WriteString(w, rep.body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	chunks := rep.chunks
	if rep.text != "" {
		chunks = append(chunks, rep.text)
	}
	for i, c := range chunks {
		if i == 1 && rep.hold != nil {
			select {
			case <-rep.hold:
			case <-r.Context().Done():
				return
			}
		}
		if i > 0 && rep.delay > 0 {
			select {
			case <-time.After(rep.delay):
			case <-r.Context().Done():
				return
			}
		}
		delta := map[string]any{"content": c}
		if i == 0 {
			delta["role"] = "assistant"
		}
		send(chunk(delta, nil))
	}
	finish := "stop"
	if len(rep.calls) > 0 {
		finish = "tool_calls"
		var calls []any
		for i, c := range rep.calls {
			calls = append(calls, map[string]any{"index": i, "id": fmt.Sprintf("call_%d_%d", f.n, i), "type": "function",
				"function": map[string]any{"name": c[0], "arguments": c[1]}})
		}
		send(chunk(map[string]any{"tool_calls": calls}, nil))
	}
	send(chunk(map[string]any{}, finish))
	in, out, cached := rep.usage[0], rep.usage[1], rep.usage[2]
	if in == 0 && out == 0 {
		in, out = 12, 3
	}
	send(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out,
			"prompt_tokens_details": map[string]any{"cached_tokens": cached}}})
	io.WriteString(w, "data: [DONE]\n\n")
}

// authorization is the Authorization header of every request the server received.
func (f *fakeOpenAI) authorization() []string {
	var out []string
	for _, r := range f.requests() {
		out = append(out, r.Header.Get("Authorization"))
	}
	return out
}

// envWith is env with the given variables added (or replaced).
func envWith(env []string, kv ...string) []string {
	out := append([]string(nil), env...)
	for _, add := range kv {
		name, _, _ := strings.Cut(add, "=")
		for i, e := range out {
			if strings.HasPrefix(e, name+"=") {
				out = append(out[:i], out[i+1:]...)
				break
			}
		}
		out = append(out, add)
	}
	return out
}

// screen plays out on a terminal width columns wide what out writes, as far as wield's output
// needs (text, line feeds, carriage returns, cursor up, erasing the line or the screen below,
// colors), and returns the text left on the screen, lines without trailing spaces.
func screen(out string, width int) string {
	var lines [][]rune
	row, col := 0, 0
	put := func(r rune) {
		for len(lines) <= row {
			lines = append(lines, nil)
		}
		if col >= width {
			row, col = row+1, 0
			for len(lines) <= row {
				lines = append(lines, nil)
			}
		}
		for len(lines[row]) <= col {
			lines[row] = append(lines[row], ' ')
		}
		lines[row][col] = r
		col++
	}
	rs := []rune(out)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '\n':
			row, col = row+1, 0
		case '\r':
			col = 0
		case '\a':
		case 0x1b:
			if i+1 < len(rs) && rs[i+1] == '[' {
				j := i + 2
				for j < len(rs) && (rs[j] >= '0' && rs[j] <= '9' || rs[j] == ';' || rs[j] == '?') {
					j++
				}
				if j >= len(rs) {
					return "unterminated escape"
				}
				arg := string(rs[i+2 : j])
				n := 1
				if arg != "" {
					fmt.Sscan(arg, &n)
				}
				switch rs[j] {
				case 'A':
					row = max(0, row-n)
				case 'B':
					row += n
				case 'C':
					col += n
				case 'D':
					col = max(0, col-n)
				case 'K':
					if row < len(lines) && col < len(lines[row]) {
						lines[row] = lines[row][:col]
					}
				case 'J':
					if row < len(lines) {
						if col < len(lines[row]) {
							lines[row] = lines[row][:col]
						}
						lines = lines[:row+1]
					}
				}
				i = j
			} else if i+1 < len(rs) && rs[i+1] == ']' {
				// Operating system command, up to BEL or ST.
				for i < len(rs) && rs[i] != '\a' && !(rs[i] == 0x1b && i+1 < len(rs) && rs[i+1] == '\\') {
					i++
				}
			}
		default:
			put(r)
		}
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimRight(string(l), " "))
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}
