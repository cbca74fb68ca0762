package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/content"
)

// chatLoop is a chat of several questions, interactive or read line by line: what its slash
// commands change (the model, the conversation) and what they show.
type chatLoop struct {
	a     *app
	c     *client.Client
	disp  display
	cat   *catalog
	setup chatSetup
	spec  modelSpec
	conv  *conversation
	// flags are the chat's flags with its role's settings; base are those given, without a role.
	flags    chatFlags
	base     chatFlags
	attached []content.Part // files for the next question
	// w is where the commands answer; quiet keeps confirmations off it (no terminal).
	w     io.Writer
	quiet bool
}

// slashCommandHelp are the commands of a chat, with what each does.
var slashCommandHelp = []struct{ name, args, help string }{
	{"/help", "", "list these commands"},
	{"/model", "[NAME]", "show the model, or talk to NAME from now on (as --model takes it)"},
	{"/clear", "", "start a new conversation; the one before stays in wield sessions"},
	{"/session", "[NAME]", "show this chat's session, or go on in session NAME (made if new)"},
	{"/tools", "", "list the tools the model may call"},
	{"/role", "[NAME]", "list the configuration file's roles, or take role NAME from now on"},
	{"/attach", "FILE", "send FILE (or an MCP resource, mcp:SERVER/URI) with your next question"},
	{"/prompt", "[SERVER/]NAME [K=V...]", "ask with an MCP server's prompt"},
	{"/compact", "", "shorten the conversation now: cut long tool results, summarise earlier rounds"},
	{"/exit", "", "end the chat (also /quit, Ctrl-D)"},
}

// slashNames are the commands, for completion and messages.
func slashNames() []string {
	var out []string
	for _, c := range slashCommandHelp {
		out = append(out, c.name)
	}
	return out
}

// slashCommand runs line when it is a command (it starts with /): it reports whether it was one,
// and whether the chat ends. An unknown command is refused, never sent to the model; a question
// that starts with / is sent by doubling the slash.
func (l *chatLoop) slashCommand(ctx context.Context, line string) (handled, end bool) {
	if !strings.HasPrefix(line, "/") {
		return false, false
	}
	if strings.HasPrefix(line, "//") {
		return false, false
	}
	word, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	say := func(format string, args ...any) {
		if !l.quiet {
			fmt.Fprintf(l.w, format+"\n", args...)
		}
	}
	fail := func(format string, args ...any) { fmt.Fprintf(l.w, "wield: "+format+"\n", args...) }
	switch word {
	case "/exit", "/quit":
		return true, true
	case "/help", "/?":
		var b strings.Builder
		for _, c := range slashCommandHelp {
			fmt.Fprintf(&b, "  %-17s %s\n", strings.TrimSpace(c.name+" "+c.args), c.help)
		}
		b.WriteString("A question that starts with / is sent with the slash doubled: //etc/hosts is what?")
		fmt.Fprintln(l.w, b.String())
	case "/attach":
		if rest == "" {
			fail("/attach FILE adds a file to your next question")
			break
		}
		ps, err := l.attach(ctx, rest)
		if err != nil {
			fail("%s", safeLine(err.Error()))
			break
		}
		l.attached = append(l.attached, ps...)
		for _, p := range ps {
			say("attached %s; it goes with your next question", partLine(p))
		}
	case "/prompt":
		msgs, err := l.cat.getPrompt(ctx, rest)
		if err != nil {
			fail("%s", safeLine(err.Error()))
			break
		}
		if err := l.askPrompt(ctx, msgs); err != nil {
			if ctx.Err() != nil {
				return true, true
			}
			fail("%s", safeLine(l.a.explain(err, l.spec).Error()))
		}
	case "/model":
		if rest == "" {
			fmt.Fprintf(l.w, "model %s\n", safeLine(l.spec.String()))
			break
		}
		if err := l.switchModel(ctx, rest); err != nil {
			fail("%s", safeLine(err.Error()))
			break
		}
		say("model %s from now on", safeLine(l.spec.String()))
	case "/clear":
		l.switchTo(ctx, newUnnamedID(), false)
		say("a new conversation, %s; the one before stays in wield sessions", safeLine(l.conv.id))
	case "/session":
		if rest == "" {
			n, _ := l.setup.repo.Messages(ctx, l.conv.id)
			fmt.Fprintf(l.w, "session %s (%d messages)\n", safeLine(l.conv.id), len(n))
			break
		}
		if err := checkSessionName(rest); err != nil {
			fail("/session %q: use a name without control characters or surrounding spaces", rest)
			break
		}
		l.switchTo(ctx, rest, !unnamedID.MatchString(rest))
		n, _ := l.setup.repo.Messages(ctx, rest)
		say("session %s (%d messages)", safeLine(rest), len(n))
	case "/role":
		if rest == "" {
			l.listRoles()
			break
		}
		if err := l.takeRole(ctx, rest); err != nil {
			fail("%s", safeLine(err.Error()))
			break
		}
		say("role %s from now on: model %s, %d tools", safeLine(rest), safeLine(l.spec.String()), len(l.setup.tools))
	case "/compact":
		r, err := l.compactConversation(ctx)
		if err != nil {
			fail("%s", safeLine(err.Error()))
			break
		}
		fmt.Fprintf(l.w, "compacted: %d messages → %d, about %d → %d tokens; the conversation before is kept as session %s\n",
			r.messagesBefore, r.messagesAfter, r.tokensBefore, r.tokensAfter, r.kept)
	case "/tools":
		if len(l.setup.tools) == 0 {
			fmt.Fprintln(l.w, "no tools")
			break
		}
		for _, t := range l.setup.tools {
			d := t.Definition()
			fmt.Fprintf(l.w, "  %s  %s\n", safeLine(d.Name), safeLine(oneLine(d.Description, 100)))
		}
	default:
		fail("unknown command %s; the commands are %s (/help says what they do)", safeLine(oneLine(word, 40)), strings.Join(slashNames(), " "))
	}
	return true, false
}

// switchModel makes the chat go on with the model name names.
func (l *chatLoop) switchModel(ctx context.Context, name string) error {
	f := l.flags
	f.model.model = name
	// The chat's -o options go on with the new model, so they must suit its provider.
	spec, options, m, err := l.a.chatModel(ctx, f)
	if err != nil {
		return err
	}
	setup := l.setup
	setup.model, setup.modelName, setup.options = m, spec.String(), options
	setup.provider, setup.contextBudget = spec.provider, contextBudget(l.flags.context, spec, options)
	if err := l.rebuild(setup); err != nil {
		return err
	}
	l.spec = spec
	return nil
}

// attach reads what /attach names: a file, or an MCP server's resource.
func (l *chatLoop) attach(ctx context.Context, ref string) ([]content.Part, error) {
	if strings.HasPrefix(ref, mcpAttachPrefix) {
		return l.cat.readResource(ctx, ref)
	}
	p, err := readAttachment(ref)
	if err != nil {
		return nil, err
	}
	return []content.Part{p}, nil
}

// askPrompt puts a server prompt's messages in the conversation and, when the last is the
// user's, asks it as the next question (with its parts and any files attached).
func (l *chatLoop) askPrompt(ctx context.Context, msgs []chat.Message) error {
	last := msgs[len(msgs)-1]
	if last.Role != chat.RoleUser {
		if err := l.setup.repo.Append(ctx, l.setup.conversation, msgs...); err != nil {
			return err
		}
		fmt.Fprintf(l.w, "the prompt's %d messages are in the conversation; ask your question\n", len(msgs))
		return nil
	}
	if len(msgs) > 1 {
		if err := l.setup.repo.Append(ctx, l.setup.conversation, msgs[:len(msgs)-1]...); err != nil {
			return err
		}
	}
	attached := append(l.attached, last.Parts...)
	l.attached = nil
	err := l.a.turn(ctx, l.c, l.disp, l.setup, last.Content, attached)
	if errors.Is(err, errStopped) {
		return nil
	}
	return err
}

// listRoles prints the configuration file's roles, the chat's marked.
func (l *chatLoop) listRoles() {
	cfg, err := l.a.loadConfig()
	if err != nil || len(cfg.Roles) == 0 {
		fmt.Fprintln(l.w, "no roles: the configuration file's \"roles\" names them (see wield chat --help)")
		return
	}
	for _, name := range cfg.roleNames() {
		mark := " "
		if name == l.flags.role {
			mark = "*"
		}
		r := cfg.Roles[name]
		about := r.Description
		if about == "" {
			about = r.System
		}
		fmt.Fprintf(l.w, "%s %s  %s\n", mark, safeLine(name), safeLine(oneLine(firstLine(about), 80)))
	}
}

// takeRole makes the chat go on with role name: its system prompt, model, tools and options,
// where the chat's own flags set none. Nothing changes unless all of them suit.
func (l *chatLoop) takeRole(ctx context.Context, name string) error {
	cfg, err := l.a.loadConfig()
	if err != nil {
		return err
	}
	r, err := cfg.role(name)
	if err != nil {
		return err
	}
	f := l.base.withRole(name, r)
	spec, options, m, err := l.a.chatModel(ctx, f)
	if err != nil {
		return fmt.Errorf("role %s: %w", name, err)
	}
	tools, err := l.cat.choose(f.tools.choose)
	if err != nil {
		return fmt.Errorf("role %s: %w", name, err)
	}
	setup := l.setup
	setup.model, setup.modelName, setup.options, setup.tools, setup.system = m, spec.String(), options, tools, f.system
	setup.provider, setup.contextBudget = spec.provider, contextBudget(f.context, spec, options)
	if err := l.rebuild(setup); err != nil {
		return err
	}
	l.spec, l.flags = spec, f
	return nil
}

// switchTo goes on in conversation id.
func (l *chatLoop) switchTo(ctx context.Context, id string, named bool) {
	setup := l.setup
	setup.conversation = id
	if err := l.rebuild(setup); err != nil {
		fmt.Fprintf(l.w, "wield: %s\n", safeLine(err.Error()))
		return
	}
	l.conv.id, l.conv.named = id, named
	if _, ok := l.setup.repo.(interface{ Close() error }); ok {
		l.a.setLastChat(id)
	}
}

// rebuild makes the chat client of setup and uses it from now on.
func (l *chatLoop) rebuild(setup chatSetup) error {
	c, err := l.a.newChatClient(setup)
	if err != nil {
		return err
	}
	l.c, l.setup = c, setup
	return nil
}

// complete completes the word before the cursor of a command line: the command's name, a path
// after /attach, a model after /model, a session after /session. One candidate replaces the word;
// several are extended to what they share, and listed on w when that adds nothing.
func (l *chatLoop) complete(ctx context.Context, w io.Writer, line string, pos int) (string, int, bool) {
	head, tail := line[:pos], line[pos:]
	if !strings.HasPrefix(head, "/") {
		return "", 0, false
	}
	cmd, arg, hasArg := strings.Cut(head, " ")
	var cands []string
	space := true // after a unique candidate
	word := head
	switch {
	case !hasArg:
		for _, c := range slashCommandHelp {
			if strings.HasPrefix(c.name, cmd) {
				cands = append(cands, c.name)
			}
		}
	case cmd == "/attach":
		word = arg
		cands = completePath(arg)
		space = false
	case cmd == "/model":
		word = arg
		out, _ := l.a.completeModels(ctx, l.flags.model, arg)
		for _, c := range out {
			name, _, _ := strings.Cut(c, "\t")
			if strings.HasPrefix(name, arg) {
				cands = append(cands, name)
			}
		}
		space = false
	case cmd == "/role":
		word = arg
		cfg, _ := l.a.loadConfig()
		for _, name := range cfg.roleNames() {
			if strings.HasPrefix(name, arg) {
				cands = append(cands, name)
			}
		}
	case cmd == "/session":
		word = arg
		out, _ := l.a.completeSessions(ctx)
		for _, c := range out {
			if strings.HasPrefix(c, arg) {
				cands = append(cands, c)
			}
		}
	default:
		return "", 0, false
	}
	if len(cands) == 0 {
		return "", 0, false
	}
	stem := head[:len(head)-len(word)]
	if len(cands) == 1 {
		done := cands[0]
		if space && !strings.HasSuffix(done, "/") {
			done += " "
		}
		return stem + done + tail, len(stem + done), true
	}
	common := cands[0]
	for _, c := range cands[1:] {
		for !strings.HasPrefix(c, common) {
			common = common[:len(common)-1]
		}
	}
	if len(common) > len(word) {
		return stem + common + tail, len(stem + common), true
	}
	shown := make([]string, len(cands))
	for i, c := range cands {
		shown[i] = safeLine(c)
	}
	fmt.Fprintln(w, strings.Join(shown, "  "))
	return "", 0, false
}

// completePath completes a path: the entries of its directory that start with its last element,
// directories ending in /.
func completePath(arg string) []string {
	dir, base := filepath.Split(arg)
	expanded := dir
	if strings.HasPrefix(dir, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			expanded = filepath.Join(home, dir[2:]) + "/"
		}
	}
	entries, err := os.ReadDir(cmp.Or(expanded, "."))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		if e.IsDir() {
			name += "/"
		}
		out = append(out, dir+name)
	}
	slices.Sort(out)
	return out
}
