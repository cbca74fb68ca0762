package openai

import (
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider"
)

// TestTimeouts: a server that takes the request and says nothing, or stalls mid-answer, fails
// the call with an error naming the timeout, instead of holding it forever.
func TestTimeouts(t *testing.T) {
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) {
			api.target().TestTimeouts(t, func(t testing.TB, url string, firstByte, idle time.Duration) chat.Model {
				return api.newM(t, url, Config{Model: "m", Transport: provider.Transport{MaxRetries: -1, FirstByteTimeout: firstByte, IdleTimeout: idle}})
			})
		})
	}
}
