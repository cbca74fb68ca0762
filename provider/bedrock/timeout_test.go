package bedrock

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider"
)

// TestTimeouts: a server that takes the request and says nothing, or stalls mid-answer, fails
// the call with an error naming the timeout, instead of holding it forever.
func TestTimeouts(t *testing.T) {
	target(t).TestTimeouts(t, func(t testing.TB, url string, firstByte, idle time.Duration) chat.Model {
		return newTestModel(t, url, Config{MaxAttempts: 1, Transport: provider.Transport{FirstByteTimeout: firstByte, IdleTimeout: idle}})
	})
}

// TestMaxResponseBytes: an answer larger than MaxResponseBytes fails the call with an error
// naming the bound, instead of being read whole into memory.
func TestMaxResponseBytes(t *testing.T) {
	big := `{"output":{"message":{"role":"assistant","content":[{"text":"` + strings.Repeat("a", 8<<20) + `"}]}},"stopReason":"end_turn"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, big)
	}))
	defer srv.Close()
	if _, err := newTestModel(t, srv.URL, Config{MaxAttempts: 1, Transport: provider.Transport{MaxResponseBytes: 1 << 20}}).Call(context.Background(), weatherPrompt()); err == nil || !strings.Contains(err.Error(), "MaxResponseBytes") {
		t.Fatalf("Call of an 8 MB answer with a 1 MB bound: %v, want an error naming MaxResponseBytes", err)
	}
	resp, err := newTestModel(t, srv.URL, Config{MaxAttempts: 1}).Call(context.Background(), weatherPrompt())
	if err != nil || len(resp.Text()) != 8<<20 {
		t.Fatalf("the same answer under the default bound: %v", err)
	}
}
