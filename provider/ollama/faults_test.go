package ollama

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

func jsonHeader() http.Header {
	return http.Header{"Content-Type": {"application/json; charset=utf-8"}}
}

func ndjsonHeader() http.Header { return http.Header{"Content-Type": {"application/x-ndjson"}} }

func weatherPrompt(t testing.TB) *chat.Prompt {
	return &chat.Prompt{
		Messages: []chat.Message{chat.User("what is the weather in tokyo?")},
		Options:  &chat.Options{Model: "llama3.2", Tools: []tool.Tool{weatherTool(t)}},
	}
}

// TestRetries proves 429 and 5xx answers are retried, waiting as the server asks, and that
// every attempt carries the same request.
func TestRetries(t *testing.T) {
	ok := load(t, "docs-tool-call-llama3.2")[0]
	tests := []struct {
		name      string
		faults    []replay.Exchange
		wantWaits func([]time.Duration) bool
	}{
		{
			name:      "429 with Retry-After then 200",
			faults:    []replay.Exchange{{Status: 429, Header: http.Header{"Retry-After": {"2"}}, Body: []byte(`{"error":"too many requests"}`)}},
			wantWaits: func(w []time.Duration) bool { return len(w) == 1 && w[0] == 2*time.Second },
		},
		{
			name: "500 twice then 200",
			faults: []replay.Exchange{
				{Status: 500, Header: jsonHeader(), Body: []byte(`{"error":"llama runner process has terminated"}`)},
				{Status: 503, Header: jsonHeader(), Body: []byte(`{"error":"server busy"}`)},
			},
			wantWaits: func(w []time.Duration) bool { return len(w) == 2 && w[0] > 0 && w[1] > 0 },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := replay.NewServer(t, append(tt.faults, ok)...)
			m, waits := newTestModel(t, srv, Config{})
			resp, err := m.Call(context.Background(), weatherPrompt(t))
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.ToolCalls()) != 1 || srv.Served() != len(tt.faults)+1 {
				t.Fatalf("calls %+v after %d requests", resp.ToolCalls(), srv.Served())
			}
			if !tt.wantWaits(waits.All()) {
				t.Fatalf("waits %v", waits.All())
			}
			providertest.SameRequests(t, srv)
		})
	}
}

// TestErrors proves error answers become *chat.ProviderError after the retries, streamed or not.
func TestErrors(t *testing.T) {
	tests := []struct {
		name       string
		exchanges  []replay.Exchange
		maxRetries int
		status     int
		msg        string
		requests   int
	}{
		{
			name:      "404 unknown model",
			exchanges: []replay.Exchange{{Status: 404, Header: jsonHeader(), Body: []byte(`{"error":"model \"nope\" not found, try pulling it first"}`)}},
			status:    404, msg: `model "nope" not found, try pulling it first`, requests: 1,
		},
		{
			name: "503 after the retries",
			exchanges: []replay.Exchange{
				{Status: 503, Header: jsonHeader(), Body: []byte(`{"error":"a"}`)},
				{Status: 503, Header: jsonHeader(), Body: []byte(`{"error":"b"}`)},
				{Status: 503, Header: jsonHeader(), Body: []byte(`{"error":"server busy, please try again"}`)},
			},
			status: 503, msg: "server busy, please try again", requests: 3,
		},
		{
			name:       "500 with an empty body",
			exchanges:  []replay.Exchange{{Status: 500}},
			maxRetries: -1,
			status:     500, msg: "Internal Server Error", requests: 1,
		},
		{
			name:      "plain-text error",
			exchanges: []replay.Exchange{{Status: 400, Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("bad request\n")}},
			status:    400, msg: "bad request", requests: 1,
		},
		{
			name:      "401 unauthorized",
			exchanges: []replay.Exchange{{Status: 401, Header: jsonHeader(), Body: []byte(`{"error":"unauthorized","signin_url":"https://ollama.com/connect?x"}`)}},
			status:    401, msg: "unauthorized; sign in at https://ollama.com/connect?x", requests: 1,
		},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			name := tt.name
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				srv := replay.NewServer(t, tt.exchanges...)
				m, _ := newTestModel(t, srv, Config{MaxRetries: tt.maxRetries})
				_, err := providertest.Run(context.Background(), m, weatherPrompt(t), stream)
				var pe *chat.ProviderError
				if !errors.As(err, &pe) {
					t.Fatalf("err = %v (%T), want *chat.ProviderError", err, err)
				}
				if pe.Provider != "ollama" || pe.StatusCode != tt.status || pe.Message != tt.msg {
					t.Fatalf("error = %+v", pe)
				}
				if srv.Served() != tt.requests {
					t.Fatalf("%d requests, want %d", srv.Served(), tt.requests)
				}
			})
		}
	}
}

// TestStreamCut proves an answer that breaks off yields an error, never a silently truncated
// answer, though Ollama's client itself ignores a broken stream.
func TestStreamCut(t *testing.T) {
	ex := load(t, "docs-tool-call-stream-llama3.2")[0]
	firstEnd := bytes.IndexByte(ex.Body, '\n') + 1
	tests := []struct {
		name      string
		ex        replay.Exchange
		wantCalls int
	}{
		{"inside the tool-call line", replay.Exchange{Header: ex.Header, Body: ex.Body, CutAfter: firstEnd / 2}, 0},
		{"after the tool-call line", replay.Exchange{Header: ex.Header, Body: ex.Body, CutAfter: firstEnd + 10}, 1},
		{"clean end before done", replay.Exchange{Header: ex.Header, Body: ex.Body[:firstEnd]}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { target(t).StreamCut(t, tt.ex, tt.wantCalls) })
	}
	t.Run("call", func(t *testing.T) {
		body := load(t, "docs-tool-call-llama3.2")[0].Body
		srv := replay.NewServer(t, replay.Exchange{Header: jsonHeader(), Body: body, CutAfter: len(body) / 2})
		m, _ := newTestModel(t, srv, Config{})
		if _, err := m.Call(context.Background(), weatherPrompt(t)); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestBadAnswers proves malformed and error lines end the answer with an error, without panics.
func TestBadAnswers(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"malformed JSON", "{\"model\":\"llama3.2\",\"message\":{\"role\":\"assistant\",\"content\":\"Hel\"},\"done\":false}\n{not json\n"},
		{"wrong types", "{\"model\":\"llama3.2\",\"message\":{\"role\":\"assistant\",\"content\":\"Hel\"},\"done\":false}\n{\"message\":7}\n"},
		{"error line", "{\"model\":\"llama3.2\",\"message\":{\"role\":\"assistant\",\"content\":\"Hel\"},\"done\":false}\n{\"error\":\"llama runner crashed\"}\n"},
		{"arguments not an object", "{\"model\":\"llama3.2\",\"message\":{\"role\":\"assistant\",\"content\":\"Hel\"},\"done\":false}\n" +
			"{\"model\":\"llama3.2\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":[1]}}]},\"done\":true}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Exchange{Header: ndjsonHeader(), Body: []byte(tt.body)})
			m, _ := newTestModel(t, srv, Config{})
			resp, err := chat.Aggregate(m.Stream(context.Background(), weatherPrompt(t)))
			if err == nil {
				t.Fatal("bad answer accepted")
			}
			if resp.Text() != "Hel" {
				t.Fatalf("text before the error: %q", resp.Text())
			}
		})
	}
}

// target is the model under the shared fault checks: the stream's head is one line of text.
func target(t testing.TB) providertest.Target {
	return providertest.Target{
		New: func(t testing.TB, url string) chat.Model {
			m, err := New(Config{BaseURL: url, Model: "llama3.2"})
			if err != nil {
				t.Fatal(err)
			}
			return m
		},
		Prompt:      weatherPrompt(t),
		ContentType: "application/x-ndjson",
		Head:        `{"model":"llama3.2","message":{"role":"assistant","content":"Hel"},"done":false}` + "\n",
	}
}

// TestCancel proves a cancelled context ends a call and a stream promptly.
func TestCancel(t *testing.T) { target(t).TestCancel(t) }

// TestStopEarlyClosesBody proves that breaking out of a stream closes the connection.
func TestStopEarlyClosesBody(t *testing.T) { target(t).StopEarly(t) }

// TestDeadServer proves a server that refuses connections is retried, then reported.
func TestDeadServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var waits int
	m, err := New(Config{BaseURL: "http://" + addr, sleep: func(ctx context.Context, _ time.Duration) error {
		waits++
		return ctx.Err()
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Call(context.Background(), weatherPrompt(t))
	var pe *chat.ProviderError
	if err == nil || errors.As(err, &pe) || waits != 2 {
		t.Fatalf("err = %v after %d waits", err, waits)
	}
}

// TestConsumerPanicPropagates proves the stream does not swallow a panic of the loop body.
func TestConsumerPanicPropagates(t *testing.T) {
	srv := replay.NewServer(t, load(t, "lcgo-text-stream-gemma3-1b")...)
	m, _ := newTestModel(t, srv, Config{Model: "gemma3:1b"})
	providertest.ConsumerPanic(t, m, &chat.Prompt{Messages: []chat.Message{chat.User("hi")}})
}
