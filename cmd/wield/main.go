// Command wield is tool calling for Go from the command line: chat with a model that can call
// tools (built-in ones, MCP servers' and your own), list and call tools offline, serve tools as
// an MCP server, and generate tool registrations for Go code (wield gen).
//
// Run wield --help for the commands, and wield COMMAND --help for each one's flags and examples.
//
// Exit codes: 0 success, 1 an error, 2 a usage error (bad flag, argument or command), 3 nothing
// configured (no model to talk to), 130 interrupted.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
	_ "time/tzdata" // time zones by name (TZ) also where the system has no zone database
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	a := newApp(os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	// Ctrl-C stops the answer being given in an interactive chat; otherwise, and always for
	// SIGTERM, it ends the command, and a second one ends it at once.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range sigs {
			if s == os.Interrupt && a.interrupt() {
				continue
			}
			cancel()
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			// The command winds down on its own (a chat keeps what it has); should something
			// not heed the cancellation, the signal still ends it.
			time.Sleep(stopGrace)
			os.Exit(exitInterrupted)
		}
	}()
	code := a.run(ctx, os.Args[1:])
	cancel()
	os.Exit(code)
}

// stopGrace is how long the command has to end by itself after an interrupt or SIGTERM.
const stopGrace = 10 * time.Second
