package a2a

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

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
