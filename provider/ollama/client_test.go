package ollama

import (
	"testing"

	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/tool"
)

// TestClientLoop runs the documentation's tool call and tool-result follow-up through
// client.Client with a real Go tool, called and streamed: the client's tool-calling advisor runs
// the tool and sends its result back, and the answer is the recorded one. The requests are
// compared as in TestToolLoop.
func TestClientLoop(t *testing.T) {
	tokyoLoop(t, func(t *testing.T, m *Model, stream bool) string {
		spec := clienttest.New(t, m).Prompt("what is the weather in tokyo?").Tools([]tool.Tool{weatherTool(t)})
		resp, _ := providertest.Send(t, spec, stream)
		return resp.Text()
	})
}
