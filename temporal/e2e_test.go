package temporal_test

import (
	"os"
	"testing"

	sdkclient "go.temporal.io/sdk/client"

	"github.com/wield-ai/wield/temporal/internal/servertest"
)

// The end-to-end tests of this package (turns_test.go) run turns on a real Temporal server,
// the server's own Go module started by the tests on 127.0.0.1 (see package servertest).
// Workers and deciders run in this process and in child processes (this test binary started
// again in a helper role), which the tests kill to prove what survives.

// helperEnv names the role of a child process.
const helperEnv = "WIELD_TEMPORAL_HELPER"

func TestMain(m *testing.M) {
	if role := os.Getenv(helperEnv); role != "" {
		os.Exit(helper(role))
	}
	code := m.Run()
	servertest.Stop()
	os.Exit(code)
}

func dial(t *testing.T) sdkclient.Client { return servertest.Dial(t) }

func dialServer(addr, ns string) (sdkclient.Client, error) { return servertest.DialAt(addr, ns) }
