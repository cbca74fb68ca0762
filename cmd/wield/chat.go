package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/toolcall"
)

// historyWindow is how many recent messages of a conversation go to the model each turn.
const historyWindow = 100

type chatFlags struct {
	model        modelFlags
	tools        toolFlags
	system       string
	session      string
	resume       bool
	maxToolCalls int
	json         bool
	raw          bool
	verbose      bool
	toolSearch   bool
	approval     approvalFlags
	attach       []string
	lines        bool
	showResults  bool
	options      []string // -o KEY=VALUE
	role         string
	context      int  // --context: the input tokens a request may hold; 0 the model's window
	nativeCtx    bool // --native-context: the provider's own context management first
}

func (a *app) chatCommand() *cobra.Command {
	var f chatFlags
	cmd := &cobra.Command{
		Use:   "chat [PROMPT...]",
		Short: "Ask a model a question it can answer with tools, or chat interactively",
		Long: `chat sends PROMPT (its words joined, so quotes are optional) to a model that may call tools to
answer it, and streams the answer to standard output as it arrives. Text piped to standard input
is added to the prompt (cat notes.txt | wield chat summarise them); without PROMPT, what is piped
is the prompt, whole (cat question.txt | wield chat); PROMPT - reads the whole prompt from
standard input too. --lines asks one question per line of standard input instead.

--attach FILE sends a file with the question: an image, audio, a PDF or a text file, its type
told by its content, up to ` + content.FormatSize(maxAttachBytes) + `. Images and documents in tool results show as a short
line, such as [image png 800×600, 34 KB].

Without PROMPT, chat is interactive: on a terminal it has a line editor (arrows, Ctrl-A/E/K/U/W,
history with Up/Down kept in $XDG_STATE_HOME/wield/history), end a line with \ or paste several
lines to ask a question of several lines, Ctrl-C stops an answer (at an empty prompt it ends the
chat, as do Ctrl-D and /exit). Commands: /help, /model [NAME], /clear, /session [NAME], /tools,
/attach FILE, /exit; Tab completes them, paths after /attach, models and session names; an
unknown /command is refused, never sent (start a question with // to send one beginning
with /). With --lines and no terminal it reads one question per line.
--attach files go with the first question; /attach FILE adds one to the next.

On a terminal the answer is rendered as Markdown (--raw prints it as the model wrote it), tool
calls show with a spinner on standard error (--show-results, or --td, adds each one's result,
shortened), and a line after each answer counts the tokens used.
When standard error is not a terminal chat says nothing there but warnings and errors, unless
--verbose.

The built-in tools (the date and time in your time zone, alarms) are on unless --builtin=false;
--mcp-config adds the tools of MCP servers (else those of the configuration file).

Before a tool that may modify or destroy data runs (one an MCP server marks destructive, or does
not mark read-only or harmless), chat shows the call and asks: y runs it, n refuses it (n REASON
tells the model why), a runs this tool without asking for the rest of the chat, e edits the
arguments. Without a terminal such a call is refused, the model is told why, and standard error
says what was refused. --approve NAME runs a tool's calls without asking, --yes runs every call;
the configuration file's "approval" sets both for every chat. A chat stopped at the question
(Ctrl-C) is asked again when its session is continued. wield tools list shows which tools ask.

Each chat is
kept in ` + sessionsHint + `: --session NAME keeps it under that name and resumes it on the next run
with the same NAME, --continue resumes the last chat; see wield sessions.

The model is --model PROVIDER/NAME (openai, anthropic, gemini, ollama), or $WIELD_MODEL, or the
configuration file's, or picked from the API keys in the environment (OPENAI_API_KEY,
ANTHROPIC_API_KEY, GEMINI_API_KEY), or $OLLAMA_HOST, or a local Ollama. A model's name alone
finds its provider (-m gpt-4.1, -m claude-sonnet-4-5), and the configuration file's aliases name
models. -o KEY VALUE sets a model option (temperature, top_p, top_k, seed, max_tokens, stop,
reasoning_effort, thinking_budget, tool_choice, parallel_tool_calls); a value out of range,
or an option the provider does not have, is refused before anything is sent. --base-url URL talks to
an OpenAI-compatible server, with --api-key or $WIELD_API_KEY as its key: the providers' own keys
are only ever sent to the providers' own hosts.`,
		Example: `  wield chat What day is tomorrow?
  wield chat --model anthropic/claude-sonnet-4-5 "Set an alarm in 10 minutes"
  cat notes.txt | wield chat "Summarise these notes"
  cat question.txt | wield chat
  wield chat --attach receipt.png --attach invoice.pdf "Do these amounts match?"
  wield chat -m gpt-4.1 -o temperature 0.2 -o max_tokens 500 "Name three rivers"
  wield chat --model ollama/qwen3 --session planning
  wield chat --continue "And the day after?"
  wield chat --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B "What time is it?"
  wield chat --mcp-config mcp.json --tool-search "List the open issues"
  wield chat --mcp-config files.json --approve write_file "Save the summary in notes.md"
  wield chat --json "What day is tomorrow?" | jq -c 'select(.type=="tool_end")'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.chat(cmd.Context(), f, args)
		},
	}
	fl := cmd.Flags()
	a.registerModelFlags(cmd, &f.model)
	fl.StringVarP(&f.system, "system", "s", "", "system `PROMPT` sent before the conversation")
	fl.StringVar(&f.session, "session", "", "keep the conversation as `NAME` and resume it on later runs")
	fl.BoolVarP(&f.resume, "continue", "c", false, "continue the last chat (named or not)")
	fl.IntVar(&f.maxToolCalls, "max-tool-calls", 0, fmt.Sprintf("most tool calls per question, %d of any one tool (default %d); the model is told when it reaches the limit, and further calls are refused so it answers", toolcall.DefaultPerToolLimit, toolcall.DefaultTotalLimit))
	fl.BoolVar(&f.json, "json", false, "print one JSON event per line on standard output instead of text")
	fl.BoolVar(&f.raw, "raw", false, "print the answer as the model wrote it, without rendering Markdown")
	fl.StringArrayVar(&f.attach, "attach", nil, "send `FILE` with the question: an image, audio, a PDF or a text file, up to "+content.FormatSize(maxAttachBytes)+", or an MCP server's resource, mcp:SERVER/URI (repeatable; in an interactive chat, with the first question)")
	cmd.MarkFlagFilename("attach")
	fl.BoolVar(&f.showResults, "show-results", false, "print each tool's result, shortened, under its call on standard error (also --td)")
	fl.BoolVar(&f.showResults, "td", false, "the same as --show-results (llm's name)")
	fl.MarkHidden("td")
	fl.StringArrayVarP(&f.options, "option", "o", nil, "set a model option: -o KEY VALUE (or KEY=VALUE; repeatable), KEY one of "+strings.Join(modelOptionKeys(), ", "))
	cmd.RegisterFlagCompletionFunc("option", cobra.CompletionFunc(func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return modelOptionKeys(), cobra.ShellCompDirectiveNoFileComp
	}))
	fl.StringVarP(&f.role, "role", "r", "", "take the configuration file's role `NAME`: its system prompt, model, tools and options (flags given win)")
	cmd.RegisterFlagCompletionFunc("role", cobra.CompletionFunc(func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		cfg, err := a.loadConfig()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return cfg.roleNames(), cobra.ShellCompDirectiveNoFileComp
	}))
	fl.IntVar(&f.context, "context", 0, "keep each request to the model within `TOKENS`, compacting the conversation when it would exceed them (default: the model's context window less its output reserve, when wield knows the model)")
	fl.BoolVar(&f.nativeCtx, "native-context", false, "let the provider manage the context itself where it can (Anthropic's context editing, the OpenAI Responses API's compaction) before wield compacts; what it cuts stays readable through context_fetch")
	fl.BoolVar(&f.lines, "lines", false, "without PROMPT, ask one question per line of standard input (else what is piped is one prompt)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "show tool calls and token usage on standard error also when it is not a terminal")
	cmd.RegisterFlagCompletionFunc("session", cobra.CompletionFunc(func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return a.completeSessions(cmd.Context())
	}))
	f.tools.register(cmd)
	f.approval.register(cmd)
	cmd.RegisterFlagCompletionFunc("approve", cobra.CompletionFunc(func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return a.completeTools(cmd.Context(), f.tools)
	}))
	a.registerToolSearchFlag(cmd, &f.toolSearch)
	return cmd
}

func (a *app) chat(ctx context.Context, f chatFlags, args []string) error {
	if err := f.check(args); err != nil {
		return err
	}
	f, base, err := a.applyRole(f)
	if err != nil {
		return err
	}
	prompt, err := a.promptFrom(args, f.lines)
	if err != nil {
		return err
	}
	files, resources := splitAttachments(f.attach)
	attached, err := readAttachments(files)
	if err != nil {
		return err
	}
	spec, options, model, err := a.chatModel(ctx, f)
	if err != nil {
		return err
	}

	// An interactive chat on a terminal reads with a line editor, and what appears while it
	// waits (an alarm) goes through it so the prompt is drawn again.
	var editor *lineEditor
	errw := a.stderr
	if prompt == "" && a.stdinTerminal() && a.stderrTTY {
		editor, err = a.newLineEditor()
		if err != nil {
			return err
		}
		defer editor.close()
		errw = editor
	}
	disp, err := a.newDisplay(f, errw)
	if err != nil {
		return err
	}
	defer disp.close()

	cat, err := a.loadCatalog(ctx, f.tools, disp.alarm)
	if err != nil {
		return err
	}
	defer cat.Close()
	read, err := cat.readResources(ctx, resources)
	if err != nil {
		return usageError{fmt.Errorf("--attach %w", err)}
	}
	attached = append(attached, read...)

	conv, err := a.openConversation(ctx, f)
	if err != nil {
		return err
	}
	defer conv.close()
	approver, err := a.newApprover(f.approval, cat, editor, errw)
	if err != nil {
		return err
	}
	defer approver.close()
	setup := chatSetup{model: model, tools: cat.tools, system: f.system, maxToolCalls: f.maxToolCalls, toolSearch: f.toolSearch,
		repo: conv.repo, conversation: conv.id, interruptible: editor != nil, approver: approver,
		log: conv.log, modelName: spec.String(), options: options,
		provider: spec.provider, contextBudget: contextBudget(f.context, spec, options), nativeContext: f.nativeCtx}
	c, err := a.newChatClient(setup)
	if err != nil {
		return err
	}
	talk := !f.json && a.stderrTTY
	if talk {
		a.greet(errw, spec, cat, conv, f.role, editor != nil)
	}
	if err := a.takeUpStoppedTurn(ctx, c, disp, setup, conv, errw, talk); err != nil {
		if errors.Is(err, errStopped) && editor != nil {
			// Stopped at its question: the chat goes on, the turn stays for later.
		} else {
			return a.explain(err, spec)
		}
	}

	if talk {
		for _, p := range attached {
			fmt.Fprintln(errw, a.paint(ansiDim, "attached "+partLine(p)))
		}
	}
	if prompt != "" {
		err := a.turn(ctx, c, disp, setup, prompt, attached)
		a.pendingAlarms(cat)
		return a.explain(err, spec)
	}
	loop := &chatLoop{a: a, c: c, disp: disp, cat: cat, setup: setup, spec: spec, conv: conv, flags: f, base: base, attached: attached, w: a.stderr, quiet: !a.stderrTTY}
	if editor != nil {
		loop.w, loop.quiet = editor, false
		editor.complete = func(line string, pos int) (string, int, bool) { return loop.complete(ctx, editor, line, pos) }
		return a.interactive(ctx, loop, editor)
	}
	return a.readQuestions(ctx, loop)
}

// chatModel resolves the model the flags name, checks the -o options against its provider and
// makes the model: for the chat, and again for /model and /role.
func (a *app) chatModel(ctx context.Context, f chatFlags) (modelSpec, *chat.Options, chat.Model, error) {
	spec, err := a.resolveModel(ctx, f.model)
	if err != nil {
		return spec, nil, nil, err
	}
	options, err := buildOptions(spec.provider, f.options)
	if err != nil {
		return spec, nil, nil, fmt.Errorf("%s: %w", spec, err)
	}
	model, err := a.newModel(ctx, spec)
	return spec, options, model, err
}

// greet says, on a terminal, which model and tools the chat has (when interactive or the model
// was picked for the user) and which session it resumes.
func (a *app) greet(w io.Writer, spec modelSpec, cat *catalog, conv *conversation, role string, interactive bool) {
	if interactive || spec.picked {
		fmt.Fprintln(w, a.banner(spec, cat, conv, role, interactive))
	}
	if conv.resumed > 0 {
		fmt.Fprintf(w, "resuming session %s (%d messages)\n", safeLine(conv.id), conv.resumed)
	}
}

// check refuses flags that contradict each other or the arguments.
func (f chatFlags) check(args []string) error {
	if f.maxToolCalls < 0 {
		return usagef("--max-tool-calls must not be negative")
	}
	if f.context < 0 {
		return usagef("--context must not be negative")
	}
	if f.session != "" && f.resume {
		return usagef("--session and --continue: choose one (--continue resumes the last chat, --session NAME a named one)")
	}
	if f.json && f.raw {
		return usagef("--json and --raw: choose one")
	}
	if f.session != "" {
		if err := checkSessionName(f.session); err != nil {
			return err
		}
	}
	if f.lines && len(args) > 0 {
		return usagef("--lines reads the questions from standard input: give no PROMPT")
	}
	return nil
}

// applyRole returns f with its role's settings under the flags given, and base, f without them
// (what /role starts again from).
func (a *app) applyRole(f chatFlags) (chatFlags, chatFlags, error) {
	base := f
	if f.role != "" {
		cfg, err := a.loadConfig()
		if err != nil {
			return f, f, err
		}
		r, err := cfg.role(f.role)
		if err != nil {
			return f, f, err
		}
		base.role = ""
		f = base.withRole(f.role, r)
	}
	return f, base, nil
}

// newDisplay makes the display f asks for, writing progress to errw.
func (a *app) newDisplay(f chatFlags, errw io.Writer) (display, error) {
	if f.json {
		return newJSONDisplay(a.stdout), nil
	}
	o := textOptions{terminal: a.stderrTTY && !a.debug, color: a.color(), verbose: f.verbose || a.debug, safe: a.stdoutTTY, showResults: f.showResults}
	if a.stdoutTTY && !f.raw && a.getenv("TERM") != "dumb" {
		w, h := a.stdoutSize()
		style := a.getenv("GLAMOUR_STYLE")
		if style == "" {
			style = "dark"
		}
		if a.getenv("NO_COLOR") != "" {
			style = "notty"
		}
		md, err := newMarkdown(a.stdout, w, h, style)
		if err != nil {
			return nil, err
		}
		o.markdown = md
	}
	return newTextDisplay(a.stdout, errw, o), nil
}

// banner names the model the chat talks to, and how it was chosen when wield picked it.
func (a *app) banner(s modelSpec, cat *catalog, conv *conversation, role string, interactive bool) string {
	var b strings.Builder
	b.WriteString("wield · " + safeLine(s.String()))
	if s.baseURL != "" {
		b.WriteString(" at " + safeLine(s.url()))
	}
	fmt.Fprintf(&b, " · %d tools", len(cat.tools))
	if role != "" {
		b.WriteString(" · role " + safeLine(role))
	}
	if conv.named {
		b.WriteString(" · session " + safeLine(conv.id))
	}
	if s.picked {
		b.WriteString("\n" + a.paint(ansiDim, "picked "+safeLine(s.why)+"; --model chooses another"))
	}
	if interactive {
		b.WriteString("\n" + a.paint(ansiDim, `Ask anything. End a line with \ to go on; Ctrl-C stops an answer; /help lists commands; Ctrl-D or /exit ends the chat.`))
	}
	return b.String()
}

// paint colors s for stderr when colors are on.
func (a *app) paint(code, s string) string {
	if !a.color() {
		return s
	}
	return code + s + ansiReset
}

// promptFrom makes the prompt of the command line: the words of args joined, then what is
// piped to standard input; "-" alone, or no arguments with something piped (unless lines: one
// question per line), reads the prompt from standard input. "" means an interactive chat, or
// one of questions read line by line.
func (a *app) promptFrom(args []string, lines bool) (string, error) {
	if len(args) == 0 {
		if lines || a.stdinTerminal() || !a.stdinPiped() {
			return "", nil
		}
		b, err := a.readStdin("the prompt")
		if err != nil {
			return "", err
		}
		if strings.TrimSpace(string(b)) == "" {
			return "", nil // nothing to ask: the chat ends as standard input has
		}
		return strings.TrimRight(string(b), "\n"), nil
	}
	if len(args) == 1 && args[0] == "-" {
		b, err := a.readStdin("the prompt")
		if err != nil {
			return "", err
		}
		if strings.TrimSpace(string(b)) == "" {
			return "", usagef("the prompt is empty: standard input had nothing")
		}
		return string(b), nil
	}
	prompt := strings.Join(args, " ")
	if strings.TrimSpace(prompt) == "" {
		return "", usagef("the prompt is empty")
	}
	if a.stdinPiped() {
		b, err := a.readStdin("the prompt")
		if err != nil {
			return "", err
		}
		if piped := strings.TrimRight(string(b), "\n"); strings.TrimSpace(piped) != "" {
			prompt += "\n\n" + piped
		}
	}
	return prompt, nil
}

// maxStdinBytes is the most wield reads from standard input for a prompt or a tool's arguments:
// the size of the largest attachment, far beyond any model's context.
const maxStdinBytes = maxAttachBytes

// readStdin reads standard input whole for what (a prompt, arguments), refusing more than
// maxStdinBytes: a pipe that does not end (from /dev/zero, a runaway program) would otherwise
// be read until memory runs out.
func (a *app) readStdin(what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(a.stdin, maxStdinBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxStdinBytes {
		return nil, usagef("standard input is over %s, the most %s may take; attach a file with --attach, or send less", content.FormatSize(maxStdinBytes), what)
	}
	return b, nil
}

// stdinTerminal reports whether standard input is a terminal.
func (a *app) stdinTerminal() bool { return isTerminal(a.stdin) }

// stdinPiped reports whether standard input brings data: a pipe or a file, not a terminal or
// /dev/null (which an unattended job inherits).
func (a *app) stdinPiped() bool {
	f, ok := a.stdin.(*os.File)
	if !ok {
		return a.stdin != nil
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&os.ModeNamedPipe != 0 || fi.Mode().IsRegular()
}

// stdoutSize is the terminal's size, or 80×24 when it cannot be read.
func (a *app) stdoutSize() (width, height int) {
	if f, ok := a.stdout.(*os.File); ok {
		if w, h, err := term.GetSize(int(f.Fd())); err == nil {
			return w, h
		}
	}
	return 80, 24
}

// interactive chats on a terminal with the line editor until Ctrl-D, /exit, or Ctrl-C at an
// empty prompt.
func (a *app) interactive(ctx context.Context, l *chatLoop, ed *lineEditor) error {
	for {
		line, err := ed.read(ctx)
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, errEditorInterrupt):
			a.pendingAlarms(l.cat)
			return nil
		case err != nil:
			return err
		}
		end, err := l.answer(ctx, line)
		if end {
			return nil
		}
		switch {
		case err == nil || errors.Is(err, errStopped):
		case ctx.Err() != nil:
			return err
		default:
			fmt.Fprintf(ed, "wield: %s\n", safeText(a.explain(err, l.spec).Error()))
		}
	}
}

// answer takes one line of input: a slash command, or a question, whose turn's error it
// returns. end reports that the chat ends (/exit).
func (l *chatLoop) answer(ctx context.Context, line string) (end bool, err error) {
	line = strings.TrimSpace(line)
	if line == "" {
		return false, nil
	}
	if handled, end := l.slashCommand(ctx, line); end {
		l.a.pendingAlarms(l.cat)
		return true, nil
	} else if handled {
		return false, nil
	}
	line = strings.TrimPrefix(line, "/") // a question starting with / came with it doubled
	err = l.a.turn(ctx, l.c, l.disp, l.setup, line, l.attached)
	l.attached = nil
	return false, err
}

// readQuestions reads one question per line of standard input until its end or /exit.
func (a *app) readQuestions(ctx context.Context, l *chatLoop) error {
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
		var line string
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case line, ok = <-lines:
		}
		if !ok {
			a.pendingAlarms(l.cat)
			return <-readErr
		}
		end, err := l.answer(ctx, line)
		if end {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "wield: %s\n", safeText(a.explain(err, l.spec).Error()))
		}
	}
}
