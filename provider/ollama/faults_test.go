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
	"github.com/wield-ai/wield/provider"
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

// faults is the model under the fault tables: its waits between attempts are recorded, not
// taken, and a success is the recorded tool call.
func faults(t testing.TB) providertest.FaultTarget {
	return providertest.FaultTarget{
		Provider: "ollama",
		New: func(t testing.TB, url string, retries *int) (chat.Model, *providertest.Waits) {
			return newTestModel(t, url, Config{Transport: provider.Transport{MaxRetries: providertest.MaxRetries(retries)}})
		},
		Prompt: weatherPrompt(t),
		Answer: func(t testing.TB, resp *chat.Response, _ replay.Exchange) {
			if len(resp.ToolCalls()) != 1 {
				t.Fatalf("calls %+v", resp.ToolCalls())
			}
		},
	}
}

// TestRetries proves 429 and 5xx answers are retried, waiting as the server asks, and that
// every attempt carries the same request.
func TestRetries(t *testing.T) {
	ok := load(t, "docs-tool-call-llama3.2")[0]
	faults(t).Faults(t, []providertest.Fault{
		{
			Name:    "429 with Retry-After then 200",
			Answers: []replay.Exchange{{Status: 429, Header: http.Header{"Retry-After": {"2"}}, Body: []byte(`{"error":"too many requests"}`)}, ok},
			Waits:   func(w []time.Duration) bool { return len(w) == 1 && w[0] == 2*time.Second },
		},
		{
			Name: "500 twice then 200",
			Answers: []replay.Exchange{
				{Status: 500, Header: jsonHeader(), Body: []byte(`{"error":"llama runner process has terminated"}`)},
				{Status: 503, Header: jsonHeader(), Body: []byte(`{"error":"server busy"}`)},
				ok,
			},
			Waits: func(w []time.Duration) bool { return len(w) == 2 && w[0] > 0 && w[1] > 0 },
		},
	})
}

// TestErrors proves error answers become *chat.ProviderError after the retries, streamed or not.
func TestErrors(t *testing.T) {
	faults(t).Faults(t, providertest.BothWays(
		providertest.Fault{
			Name:    "404 unknown model",
			Answers: []replay.Exchange{{Status: 404, Header: jsonHeader(), Body: []byte(`{"error":"model \"nope\" not found, try pulling it first"}`)}},
			Err:     &chat.ProviderError{StatusCode: 404, Message: `model "nope" not found, try pulling it first`},
		},
		providertest.Fault{
			Name: "503 after the retries",
			Answers: []replay.Exchange{
				{Status: 503, Header: jsonHeader(), Body: []byte(`{"error":"a"}`)},
				{Status: 503, Header: jsonHeader(), Body: []byte(`{"error":"b"}`)},
				{Status: 503, Header: jsonHeader(), Body: []byte(`{"error":"server busy, please try again"}`)},
			},
			Err: &chat.ProviderError{StatusCode: 503, Message: "server busy, please try again"},
		},
		providertest.Fault{
			Name:    "500 with an empty body",
			Answers: []replay.Exchange{{Status: 500}},
			Retries: chat.Ptr(0),
			Err:     &chat.ProviderError{StatusCode: 500, Message: "Internal Server Error"},
		},
		providertest.Fault{
			Name:    "plain-text error",
			Answers: []replay.Exchange{{Status: 400, Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("bad request\n")}},
			Err:     &chat.ProviderError{StatusCode: 400, Message: "bad request"},
		},
		providertest.Fault{
			Name:    "401 unauthorized",
			Answers: []replay.Exchange{{Status: 401, Header: jsonHeader(), Body: []byte(`{"error":"unauthorized","signin_url":"https://ollama.com/connect?x"}`)}},
			Err:     &chat.ProviderError{StatusCode: 401, Message: "unauthorized; sign in at https://ollama.com/connect?x"},
		},
	))
}

// TestStreamCut proves an answer that breaks off yields an error, never a silently truncated
// answer, though Ollama's client itself ignores a broken stream.
func TestStreamCut(t *testing.T) {
	ex := load(t, "docs-tool-call-stream-llama3.2")[0]
	target(t).StreamCuts(t, ex, bytes.IndexByte(ex.Body, '\n')+1, "tool-call line")
	t.Run("call", func(t *testing.T) {
		body := load(t, "docs-tool-call-llama3.2")[0].Body
		srv := replay.NewServer(t, replay.Exchange{Header: jsonHeader(), Body: body, CutAfter: len(body) / 2})
		m, _ := newTestModel(t, srv.URL, Config{})
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
			m, _ := newTestModel(t, srv.URL, Config{})
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
	m, _ := newTestModel(t, srv.URL, Config{Model: "gemma3:1b"})
	providertest.ConsumerPanic(t, m, &chat.Prompt{Messages: []chat.Message{chat.User("hi")}})
}
