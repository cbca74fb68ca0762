package anthropic

import (
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
)

// TestTimeouts: a server that takes the request and says nothing, or stalls mid-answer, fails
// the call with an error naming the timeout, instead of holding it forever.
func TestTimeouts(t *testing.T) {
	zero := 0
	target.TestTimeouts(t, func(t testing.TB, url string, firstByte, idle time.Duration) chat.Model {
		return newTestModel(t, url, Config{MaxRetries: &zero, FirstByteTimeout: firstByte, IdleTimeout: idle})
	})
}
