package openai

import (
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
)

// TestTimeouts: a server that takes the request and says nothing, or stalls mid-answer, fails
// the call with an error naming the timeout, instead of holding it forever.
func TestTimeouts(t *testing.T) {
	heads := map[string]string{
		"chat":      "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Ol\"}}]}\n\n",
		"responses": "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Ol\",\"output_index\":0}\n\n",
	}
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) {
			target := providertest.Target{Prompt: hi, ContentType: "text/event-stream", Head: heads[api.name]}
			target.TestTimeouts(t, func(t testing.TB, url string, firstByte, idle time.Duration) chat.Model {
				return api.newM(t, url, Config{Model: "m", MaxRetries: ptr(0), FirstByteTimeout: firstByte, IdleTimeout: idle})
			})
		})
	}
}
