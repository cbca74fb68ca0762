// Command devserver runs a Temporal server for development and tests: the server's own Go
// module (go.temporal.io/server/temporaltest) with an in-memory SQLite store, listening on
// 127.0.0.1 only. Once the server accepts connections it prints one line on stdout, its
// address and namespace separated by a space, and it runs until its stdin closes or it gets
// SIGINT or SIGTERM, so a test that starts it and dies takes it along.
//
// It is a module of its own because the server's dependencies (its OpenTelemetry log API
// among them) do not build together with wield's, and so that nothing importing
// github.com/wield-ai/wield/temporal carries the server.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.temporal.io/server/temporaltest"
)

func main() {
	ts := temporaltest.NewServer()
	if _, err := fmt.Printf("%s %s\n", ts.GetFrontendHostPort(), ts.GetDefaultNamespace()); err != nil {
		stop(ts)
		os.Exit(1)
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin) // returns when stdin closes
		close(done)
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
	stop(ts)
}

// stop stops the server. temporaltest reports a failed stop through the testing.T it was not
// given here, by panicking; the process ends anyway.
func stop(ts *temporaltest.TestServer) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintln(os.Stderr, "stopping the server:", r)
		}
	}()
	ts.Stop()
}
