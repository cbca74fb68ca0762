package ollama

import (
	"context"
	"testing"
	"time"

	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
)

// A stalled answer fails with the timeout's own account, once: "ollama: timed out: …", not
// "ollama: the answer ended before it was done: timed out: …".
func TestStallMessage(t *testing.T) {
	const idle = 50 * time.Millisecond
	const want = "ollama: timed out: the response stalled, nothing received for 50ms (IdleTimeout)"
	for _, tc := range []struct {
		name        string
		contentType string
		head        string
		stream      bool
	}{
		{"stream", target(t).ContentType, target(t).Head, true},
		{"call", "application/json", `{"model": "llama3.2", "message": {"role": "assis`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := providertest.NewHangingServer(t, tc.contentType, tc.head)
			m, err := New(Config{BaseURL: srv.URL, Model: "llama3.2", Transport: provider.Transport{FirstByteTimeout: time.Hour, IdleTimeout: idle}})
			if err != nil {
				t.Fatal(err)
			}
			p := target(t).Prompt
			if tc.stream {
				for _, err = range m.Stream(context.Background(), p) {
					if err != nil {
						break
					}
				}
			} else {
				_, err = m.Call(context.Background(), p)
			}
			if err == nil || err.Error() != want {
				t.Fatalf("error %v, want %q", err, want)
			}
		})
	}
}
