// Package clienttest builds clients for tests.
package clienttest

import (
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
)

// New returns client.New(m, opts...), failing tb on a construction error.
func New(tb testing.TB, m chat.Model, opts ...client.Option) *client.Client {
	tb.Helper()
	c, err := client.New(m, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
