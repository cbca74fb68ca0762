package ollama

import (
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
)

// newClient builds a client for a test, failing the test on a construction error.
func newClient(tb testing.TB, m chat.Model, opts ...client.Option) *client.Client {
	tb.Helper()
	c, err := client.New(m, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
