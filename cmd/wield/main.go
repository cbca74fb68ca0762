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
	_ "time/tzdata" // time zones by name (TZ) also where the system has no zone database
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := newApp(os.Stdin, os.Stdout, os.Stderr, os.Getenv).run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
