package anthropic

import (
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider"
)

// TestTimeouts: a server that takes the request and says nothing, or stalls mid-answer, fails
// the call with an error naming the timeout, instead of holding it forever.
func TestTimeouts(t *testing.T) {
	target.TestTimeouts(t, func(t testing.TB, url string, firstByte, idle time.Duration) chat.Model {
		return newTestModel(t, url, Config{Transport: provider.Transport{MaxRetries: -1, FirstByteTimeout: firstByte, IdleTimeout: idle}})
	})
}
