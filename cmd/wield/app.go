package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/version"
)

// Exit codes, documented on the package.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitConfig      = 3
	exitInterrupted = 130
)

// usageError is a mistake in how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// configError says something must be set up before the command can work.
type configError struct{ msg string }

func (e configError) Error() string { return e.msg }

// app is one run of the command, with its streams and environment, so tests can run it in
// process.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// stderrTTY and stdoutTTY say whether the streams are terminals: spinners and colors only
	// go to terminals.
	stdoutTTY, stderrTTY bool
	// started is set once a command's own code runs: errors before that are usage errors.
	started bool
	// modelOverride, when set by tests, builds every model instead of the providers.
	modelOverride func(modelSpec) (chat.Model, error)

	// debug shows HTTP exchanges on stderr (--debug); errMu serialises what goes there from
	// several goroutines.
	debug bool
	errMu sync.Mutex
	// cfg is the configuration file, read once.
	cfg *loadedConfig

	// interruptMu guards onInterrupt, which, when set, takes the user's interrupt (Ctrl-C)
	// instead of it ending the command: an interactive chat stops the answer being given.
	interruptMu sync.Mutex
	onInterrupt func()
}

func newApp(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) *app {
	return &app{
		stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv,
		stdoutTTY: isTerminal(stdout), stderrTTY: isTerminal(stderr),
	}
}

func isTerminal(s any) bool {
	f, ok := s.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// color reports whether stderr may carry ANSI colors: a terminal, and NO_COLOR unset or empty
// (https://no-color.org).
func (a *app) color() bool {
	return a.stderrTTY && a.getenv("NO_COLOR") == "" && a.getenv("TERM") != "dumb"
}

// interrupt delivers the user's interrupt: to the chat turn that takes it, if one does, and
// reports whether one did; otherwise the caller ends the command.
func (a *app) interrupt() bool {
	a.interruptMu.Lock()
	defer a.interruptMu.Unlock()
	if a.onInterrupt == nil {
		return false
	}
	a.onInterrupt()
	return true
}

// takeInterrupts makes fn receive the user's interrupts until the returned function is called.
func (a *app) takeInterrupts(fn func()) (release func()) {
	a.interruptMu.Lock()
	a.onInterrupt = fn
	a.interruptMu.Unlock()
	return func() {
		a.interruptMu.Lock()
		a.onInterrupt = nil
		a.interruptMu.Unlock()
	}
}

func (a *app) run(ctx context.Context, args []string) int {
	root := a.rootCommand()
	if c, _, err := root.Find(args); err == nil && c.Name() == "chat" {
		args = joinOptionPairs(args)
	}
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var (
		usage usageError
		cfg   configError
	)
	switch {
	case errors.As(err, &cfg):
		fmt.Fprintln(a.stderr, safeText(cfg.msg))
		return exitConfig
	case ctx.Err() != nil || errors.Is(err, errStopped):
		fmt.Fprintln(a.stderr, "wield: interrupted")
		return exitInterrupted
	case errors.As(err, &usage) || !a.started:
		fmt.Fprintf(a.stderr, "wield: %s\nRun 'wield --help' for usage.\n", safeText(err.Error()))
		return exitUsage
	}
	fmt.Fprintf(a.stderr, "wield: %s\n", safeText(err.Error()))
	return exitError
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "wield",
		Short: "Tool calling for Go: chat with models that call tools, serve and generate tools",
		Long: `wield lets a language model call tools: built-in ones (the date and time, alarms), the tools
of MCP servers, and Go methods registered with wield gen.

Models are chosen with --model provider/name (openai, anthropic, gemini, ollama), set in the
configuration file (` + configFileHint + `; see wield config), or picked from the API keys in
the environment.

Exit codes: 0 success, 1 an error, 2 a usage error, 3 nothing configured, 130 interrupted.`,
		Example: `  wield chat "What day is tomorrow?"
  wield chat --model ollama/llama3.2 --session work
  wield tools list
  wield models
  wield mcp serve --http 127.0.0.1:8080
  go generate ./...   # with //go:generate go tool wieldgen`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(*cobra.Command, []string) {
			a.started = true
		},
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.PersistentFlags().BoolVar(&a.debug, "debug", false, "show the HTTP exchanges with model providers on standard error, keys redacted")
	root.AddCommand(a.chatCommand(), a.toolsCommand(), a.mcpCommand(), a.a2aCommand(), a.sessionsCommand(), a.genCommand(),
		a.modelsCommand(), a.configCommand(), a.versionCommand(), a.webCommand())
	root.Version = version.Get().String()
	root.SetVersionTemplate("wield {{.Version}}\n")
	return root
}

// exactArgs is cobra.ExactArgs with a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// rangeArgs is cobra.RangeArgs with a usage error.
func rangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.RangeArgs(lo, hi)(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// groupCommand makes cmd, a command that only holds subcommands, print its help when run alone
// and fail with a usage error when given an unknown subcommand.
func groupCommand(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("unknown command %q for %q", args[0], cmd.CommandPath())
		}
		return cmd.Help()
	}
	return cmd
}

// writeJSON writes v as the commands' --json output: indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
