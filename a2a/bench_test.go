package a2a

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/benchratio"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
)

// One call of a sub-agent over A2A on loopback, through both sides (the remote tool's client,
// streamed; the served agent's handler, task store and turn), against the same sub-agent called
// in process (client.AgentTool). The sub-agent answers from a scripted model, so what is measured
// is what A2A adds to a sub-agent call.
func BenchmarkRemoteAgentRoundTrip(b *testing.B) {
	sub := clienttest.New(b, chattest.New(chattest.Text("The answer is 42.")).Repeat().DiscardPrompts())
	local := tool.Must(client.AgentTool(sub, "oracle", "answers"))
	s, err := NewServer(context.Background(), ServerConfig{Client: sub, Name: "oracle"})
	if err != nil {
		b.Fatal(err)
	}
	hs := newLoopback(b, s)
	remote, err := RemoteAgent(context.Background(), Config{CardURL: hs})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	args := `{"input":"what is it?"}`
	call := func(t tool.Tool) func() {
		return func() {
			out, err := t.Call(ctx, args)
			if err != nil || out != "The answer is 42." {
				b.Fatalf("%q %v", out, err)
			}
		}
	}
	benchratio.Run(b, 16, "in-process", call(local), "a2a", call(remote))
}

// newLoopback serves h on 127.0.0.1 for the benchmark's life and returns its URL.
func newLoopback(b *testing.B, h http.Handler) string {
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	return srv.URL
}

// A served agent under 200 concurrent tasks, each a turn answering at once: tasks per second,
// and the memory an open task (waiting for approval) holds in the server and its store.
func BenchmarkServedConcurrentTasks(b *testing.B) {
	const concurrent = 200
	sub := clienttest.New(b, chattest.New(chattest.Text("ok")).Repeat().DiscardPrompts())
	s, err := NewServer(context.Background(), ServerConfig{Client: sub, MaxOpenTasks: -1})
	if err != nil {
		b.Fatal(err)
	}
	url := newLoopback(b, s)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: concurrent}}
	body := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`
	send := func() {
		resp, err := hc.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			b.Error(err)
			return
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(out), `"completed"`) {
			b.Errorf("answer %s", out)
		}
	}
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	next := make(chan struct{})
	for range concurrent {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				send()
			}
		}()
	}
	for range b.N {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "tasks/s")
}

func BenchmarkServedOpenTaskMemory(b *testing.B) {
	const open = 200
	del := tool.Must(tool.Func("delete", "deletes", func(context.Context, struct{}) (string, error) { return "deleted", nil }, tool.RequiresApproval()))
	for range b.N {
		b.StopTimer()
		m := chattest.New(chattest.Calls(chattest.Call("delete", `{}`))).Repeat().DiscardPrompts()
		s, err := NewServer(context.Background(), ServerConfig{Client: clienttest.New(b, m, client.WithTools(del)), MaxOpenTasks: -1})
		if err != nil {
			b.Fatal(err)
		}
		url := newLoopback(b, s)
		body := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"delete it"}]}}}`
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		for range open {
			resp, err := http.Post(url, "application/json", strings.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(out), `"input-required"`) {
				b.Fatalf("answer %s", out)
			}
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/open, "heap-bytes/open-task")
		runtime.KeepAlive(s)
		b.StartTimer()
	}
}
