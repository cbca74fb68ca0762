package gemini

import (
	"context"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider"
)

// TestTimeouts: a server that takes the request and says nothing, or stalls mid-answer, fails
// the call with an error naming the timeout, instead of holding it forever.
func TestTimeouts(t *testing.T) {
	target.TestTimeouts(t, func(t testing.TB, url string, firstByte, idle time.Duration) chat.Model {
		m, err := New(context.Background(), Config{APIKey: "k", BaseURL: url, Transport: provider.Transport{FirstByteTimeout: firstByte, IdleTimeout: idle},
			sleep: func(context.Context, time.Duration) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}
