package ollama

import (
	"testing"

	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

// TestClientLoop runs the documentation's tool call and tool-result follow-up through
// client.Client with a real Go tool, called and streamed: the client's tool-calling advisor runs
// the tool and sends its result back, and the answer is the recorded one. The requests are
// compared as in TestToolLoop.
func TestClientLoop(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name, first := "call", "docs-tool-call-llama3.2"
		if stream {
			name, first = "stream", "docs-tool-call-stream-llama3.2"
		}
		t.Run(name, func(t *testing.T) {
			exs := append(load(t, first), load(t, "docs-tool-result-followup-llama3.2")...)
			srv := replay.NewServer(t, exs...)
			m, _ := newTestModel(t, srv.URL, Config{Model: "llama3.2"})
			c := clienttest.New(t, m)
			spec := c.Prompt("what is the weather in tokyo?").Tools([]tool.Tool{weatherTool(t)})
			resp, _ := providertest.Send(t, spec, stream)
			answer := resp.Text()
			if srv.Served() != 2 {
				t.Fatalf("served %d of 2 exchanges", srv.Served())
			}
			checkRequest(t, srv.Requests()[0], exs[0], false, nil)
			checkRequest(t, srv.Requests()[1], exs[1], false, followupAsTokyo(stream))
			if answer != "The current temperature in Toronto is 11°C." {
				t.Fatalf("final answer %q", answer)
			}
		})
	}
}
