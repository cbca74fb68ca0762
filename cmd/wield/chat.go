package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/memory/sqlstore"
	"github.com/wield-ai/wield/toolcall"
)

// historyWindow is how many recent messages of a conversation go to the model each turn.
const historyWindow = 100

type chatFlags struct {
	model        modelFlags
	tools        toolFlags
	system       string
	session      string
	maxToolCalls int
	json         bool
	toolSearch   bool
}

func (a *app) chatCommand() *cobra.Command {
	var f chatFlags
	cmd := &cobra.Command{
		Use:   "chat [PROMPT]",
		Short: "Ask a model a question it can answer with tools, or chat interactively",
		Long: `chat sends PROMPT to a model that may call tools to answer it, and streams the answer to
standard output as it arrives; each tool call shows on standard error as it runs. PROMPT - reads
the prompt from standard input. Without PROMPT, chat reads one question per line from standard
input until end of input or /exit, keeping the conversation in between.

The built-in tools (the date and time in your time zone, alarms) are on unless --builtin=false;
--mcp-config adds the tools of MCP servers. --session NAME keeps the conversation (your messages
and the answers) in ` + sessionsHint + ` and resumes it on the next run with the same NAME; see
wield sessions.

The model is --model PROVIDER/NAME (openai, anthropic, gemini, ollama), or $WIELD_MODEL, or picked
from the API keys in the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY), or
$OLLAMA_HOST, or a local Ollama. --base-url URL talks to an OpenAI-compatible server.`,
		Example: `  wield chat "What day is tomorrow?"
  wield chat --model anthropic/claude-sonnet-4-5 "Set an alarm in 10 minutes"
  wield chat --model ollama/qwen3 --session planning
  wield chat --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B "What time is it?"
  wield chat --mcp-config mcp.json --tool-search "List the open issues"
  wield chat --json "What day is tomorrow?" | jq -c 'select(.type=="tool_end")'`,
		Args: rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.chat(cmd.Context(), f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.model.model, "model", "m", "", "the model, as `PROVIDER/NAME` (default: $WIELD_MODEL, or from the API keys in the environment)")
	fl.StringVar(&f.model.baseURL, "base-url", "", "`URL` of an OpenAI-compatible server, version path included (e.g. http://127.0.0.1:8000/v1)")
	fl.StringVarP(&f.system, "system", "s", "", "system `PROMPT` sent before the conversation")
	fl.StringVar(&f.session, "session", "", "keep the conversation as `NAME` and resume it on later runs")
	fl.IntVar(&f.maxToolCalls, "max-tool-calls", 0, "most tool calls per question (default 150); beyond it the model is told to answer")
	fl.BoolVar(&f.json, "json", false, "print one JSON event per line on standard output instead of text")
	f.tools.register(cmd)
	a.registerToolSearchFlag(cmd, &f.toolSearch)
	return cmd
}

func (a *app) chat(ctx context.Context, f chatFlags, args []string) error {
	if f.maxToolCalls < 0 {
		return usagef("--max-tool-calls must not be negative")
	}
	if f.session != "" {
		if err := checkSessionName(f.session); err != nil {
			return err
		}
	}
	// One question (PROMPT, or - for standard input), or an interactive chat without one.
	var prompt string
	if len(args) == 1 {
		prompt = args[0]
		if prompt == "-" {
			b, err := io.ReadAll(a.stdin)
			if err != nil {
				return err
			}
			prompt = string(b)
		}
		if strings.TrimSpace(prompt) == "" {
			return usagef("the prompt is empty")
		}
	}
	spec, err := a.resolveModel(ctx, f.model)
	if err != nil {
		return err
	}
	model, err := a.newModel(ctx, spec)
	if err != nil {
		return err
	}

	var disp display
	if f.json {
		disp = newJSONDisplay(a.stdout)
	} else {
		disp = newTextDisplay(a.stdout, a.stderr, a.stderrTTY, a.color())
	}
	defer disp.close()

	cat, err := a.loadCatalog(ctx, f.tools, disp.alarm)
	if err != nil {
		return err
	}
	defer cat.Close()

	limits := toolcall.Limits{}
	if f.maxToolCalls > 0 {
		limits.Total = f.maxToolCalls
		limits.OnExceeded = toolcall.LimitTellModel
	}
	mgr := toolcall.New(toolcall.Config{Limits: limits})
	opts := []client.Option{client.WithManager(mgr), client.WithTools(cat.tools)}
	if f.system != "" {
		opts = append(opts, client.WithSystem(f.system))
	}
	if f.toolSearch {
		opts = append(opts, client.WithAdvisors(a.toolSearchAdvisor(mgr)))
	}

	// The conversation: kept in the session store when named, else in memory for this run.
	var repo memory.Repository = memory.NewInMemory()
	conversation := "wield"
	if f.session != "" {
		store, err := a.openSessions(ctx)
		if err != nil {
			return err
		}
		defer store.Close()
		repo, conversation = store, f.session
		if prior, err := store.Messages(ctx, f.session); err == nil && len(prior) > 0 && a.stderrTTY && !f.json {
			fmt.Fprintf(a.stderr, "resuming session %s (%d messages)\n", f.session, len(prior))
		}
	}
	opts = append(opts, client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, historyWindow), memory.AdvisorConfig{ConversationID: conversation})))
	c, err := client.New(model, opts...)
	if err != nil {
		return err
	}

	if prompt != "" {
		err := a.turn(ctx, c, disp, conversation, prompt)
		a.pendingAlarms(cat)
		return err
	}
	return a.interactive(ctx, c, disp, cat, conversation)
}

// turn asks one question and shows the answer as it streams.
func (a *app) turn(ctx context.Context, c *client.Client, disp display, conversation, prompt string) error {
	disp.waiting()
	for ev, err := range c.Prompt(prompt).Param(client.ParamConversationID, conversation).Stream(ctx).Events() {
		if err != nil {
			return disp.failed(err)
		}
		if ev.Done != nil {
			disp.done(ev.Done)
			continue
		}
		disp.event(ev)
	}
	return nil
}

// interactive reads one question per line until the end of input or /exit.
func (a *app) interactive(ctx context.Context, c *client.Client, disp display, cat *catalog, conversation string) error {
	promptTTY := isTerminal(a.stdin) && a.stderrTTY
	if promptTTY {
		fmt.Fprintln(a.stderr, "Ask anything; /exit or Ctrl-D ends the chat.")
	}
	lines := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(a.stdin)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
		close(lines)
	}()
	for {
		if promptTTY {
			fmt.Fprint(a.stderr, "> ")
		}
		var line string
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case line, ok = <-lines:
		}
		if !ok {
			if promptTTY {
				fmt.Fprintln(a.stderr)
			}
			a.pendingAlarms(cat)
			return <-readErr
		}
		line = strings.TrimSpace(line)
		switch line {
		case "":
			continue
		case "/exit", "/quit":
			a.pendingAlarms(cat)
			return nil
		}
		if err := a.turn(ctx, c, disp, conversation, line); err != nil {
			if ctx.Err() != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "wield: %v\n", err)
		}
	}
}

// sessionsHint says where sessions are kept, for help texts.
const sessionsHint = "$XDG_DATA_HOME/wield/sessions.db (~/.local/share/wield/sessions.db by default)"

// dataDir is wield's directory in the user's data directory.
func (a *app) dataDir() (string, error) {
	if d := a.getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "wield"), nil
	}
	home := a.getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("no data directory for sessions: set XDG_DATA_HOME or HOME: %w", err)
		}
	}
	return filepath.Join(home, ".local", "share", "wield"), nil
}

// openSessions opens the SQLite store of sessions, creating it if needed.
func (a *app) openSessions(ctx context.Context) (*sqlstore.Store, error) {
	dir, err := a.dataDir()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	return sqlstore.OpenSQLite(ctx, filepath.Join(dir, "sessions.db"))
}

func checkSessionName(name string) error {
	if strings.TrimSpace(name) != name || name == "" || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' }) {
		return usagef("--session %q: use a name without control characters or surrounding spaces", name)
	}
	return nil
}
