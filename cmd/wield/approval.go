package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/spf13/cobra"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// A chat asks before it runs a tool that may destroy data: the tools flagged as needing approval
// and those whose MCP hints say destructive (or leave it unknown, which MCP reads as
// destructive, without saying read-only); see toolcall.AskDestructive. On a terminal the user
// approves, refuses, approves the tool for the rest of the chat, or edits the arguments;
// without one such a call is refused, the model reads why, and stderr says what was refused.
// --yes (or the policy "yes" of the configuration file) approves everything, --approve NAME
// (or the file's approve list) pre-approves tools by name.

// approvalFlags are chat's approval flags.
type approvalFlags struct {
	yes     bool
	approve []string
}

func (f *approvalFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.yes, "yes", "y", false, "run every tool call without asking, also those that may modify or destroy data")
	cmd.Flags().StringSliceVar(&f.approve, "approve", nil, "run the calls of tool `NAME` without asking (repeatable, or comma-separated)")
}

// refusalNoTerminal is what the model reads for a call refused because no one could be asked.
const refusalNoTerminal = "Not run: this tool needs the user's approval, and the user could not be asked (wield runs without a terminal). Do not try it again; tell the user what you wanted to do, so they can run wield with --approve or --yes."

// rejectionByUser is what the model reads for a call the user refused.
const rejectionByUser = "Not run: the user declined this call."

// approver holds the approval policy of a chat and decides the calls it stops for.
type approver struct {
	a   *app
	cat *catalog
	// yes approves every call: the policy asks nothing.
	yes bool

	mu       sync.Mutex
	approved map[string]bool // tools approved in advance, or "always" during the chat

	// asker reads the user's decisions; nil means there is no one to ask. out shows the questions.
	asker  func() (*lineEditor, error)
	out    io.Writer
	editor *lineEditor // made by asker, closed by close when it is not the chat's own
	own    bool
}

// newApprover makes the approver of a chat: the configuration file's policy, then the flags.
// editor is the chat's line editor, if it has one; without one, the user is asked on a line
// editor made for the purpose when standard input and error are terminals.
func (a *app) newApprover(f approvalFlags, cat *catalog, editor *lineEditor, out io.Writer) (*approver, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, err
	}
	policy, approve := cfg.approval()
	p := &approver{a: a, cat: cat, yes: f.yes || policy == approvalYes, approved: map[string]bool{}, out: out}
	for _, name := range approve {
		p.approved[name] = true
	}
	for _, name := range f.approve {
		name = strings.TrimSpace(name)
		if _, ok := cat.sources[name]; !ok {
			a.warnf("--approve %s: no tool has that name (wield tools list shows them)", safeLine(name))
		}
		p.approved[name] = true
	}
	switch {
	case editor != nil:
		p.asker = func() (*lineEditor, error) { return editor, nil }
	case a.stdinTerminal() && a.stderrTTY:
		p.asker = func() (*lineEditor, error) {
			if p.editor == nil {
				e, err := a.newLineEditor()
				if err != nil {
					return nil, err
				}
				p.editor, p.own = e, true
			}
			return p.editor, nil
		}
	}
	return p, nil
}

// close closes the line editor made for asking.
func (p *approver) close() {
	if p.own && p.editor != nil {
		p.editor.close()
	}
}

// policy is the client's approval policy: nothing asks with --yes; otherwise the flagged and
// destructive tools ask, unless approved by name.
func (p *approver) policy() toolcall.ApprovalPolicy {
	if p.yes {
		return toolcall.AskNone()
	}
	destructive := toolcall.AskDestructive()
	return func(ctx context.Context, req toolcall.ApprovalRequest) bool {
		return !p.isApproved(req.Call.Name) && destructive(ctx, req)
	}
}

// asks reports whether a call of a tool with this name and metadata would wait for approval.
func (p *approver) asks(name string, m tool.Metadata) bool {
	return p.policy()(context.Background(), toolcall.ApprovalRequest{Call: chat.ToolCall{Name: name}, Metadata: m})
}

func (p *approver) isApproved(name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.approved[name]
}

func (p *approver) approveAlways(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.approved[name] = true
}

// canDecide reports whether every call of st that waits can be decided otherwise than refused
// for want of a terminal: there is one to ask on, or the calls are approved already.
func (p *approver) canDecide(st *client.TurnState) bool {
	if p.asker != nil {
		return true
	}
	for _, pc := range st.Pending() {
		if pc.Status != client.CallApproval || !p.yes && !p.isApproved(pc.Call.Name) {
			return false
		}
	}
	return true
}

// decision is one decision made, for the display.
type decision struct {
	call    client.PendingCall
	verdict string // approved, edited, rejected or answered
	edited  string // the arguments, when edited
}

// decide makes a decision for every call of st that waits for one: it asks on the terminal, or
// refuses when there is no one to ask. Ctrl-C or Ctrl-D at a question returns errStopped, the
// turn left as it is.
func (p *approver) decide(ctx context.Context, st *client.TurnState, disp display) ([]client.Decision, error) {
	var out []client.Decision
	for _, pc := range st.Pending() {
		d, made, err := p.decideOne(ctx, pc)
		if err != nil {
			return nil, err
		}
		disp.decided(made)
		out = append(out, d)
	}
	return out, nil
}

func (p *approver) decideOne(ctx context.Context, pc client.PendingCall) (client.Decision, decision, error) {
	name := pc.Call.Name
	made := decision{call: pc}
	if pc.Status == client.CallApproval && (p.yes || p.isApproved(name)) {
		// Approved "always" for an earlier call of the same round.
		made.verdict = "approved"
		return pc.Approve(), made, nil
	}
	if p.asker == nil {
		made.verdict = "rejected"
		switch pc.Status {
		case client.CallInterrupted:
			p.a.warnf("%s asked a question and no one could answer it (no terminal); the model is told so", p.describe(pc))
			return pc.Reject("Not answered: the user could not be asked (wield runs without a terminal)."), made, nil
		}
		p.a.warnf("%s needs approval and was refused: there is no terminal to ask on (--approve %s or --yes runs it)", p.describe(pc), safeLine(name))
		return pc.Reject(refusalNoTerminal), made, nil
	}
	ed, err := p.asker()
	if err != nil {
		return client.Decision{}, made, err
	}
	switch pc.Status {
	case client.CallInterrupted:
		msg := ""
		if pc.Interrupt != nil {
			msg = pc.Interrupt.Message
		}
		fmt.Fprintf(p.out, "%s %s asks: %s\n", p.a.paint(ansiYellow, "?"), p.describe(pc), safeLine(msg))
		answer, err := p.read(ctx, ed, "answer: ", "")
		if err != nil {
			return client.Decision{}, made, err
		}
		made.verdict = "answered"
		return pc.Answer(answer), made, nil
	}

	fmt.Fprintf(p.out, "%s %s wants to run with\n%s", p.a.paint(ansiYellow, "?"), p.describe(pc), showArgs(pc.Call.Arguments, 30))
	question := fmt.Sprintf("run %s? [y]es [n]o [a]lways [e]dit: ", safeLine(name))
	for {
		answer, err := p.read(ctx, ed, question, "")
		if err != nil {
			return client.Decision{}, made, err
		}
		word, reason, _ := strings.Cut(strings.TrimSpace(answer), " ")
		switch strings.ToLower(word) {
		case "y", "yes":
			made.verdict = "approved"
			return pc.Approve(), made, nil
		case "a", "always":
			p.approveAlways(name)
			made.verdict = "approved"
			return pc.Approve(), made, nil
		case "n", "no":
			made.verdict = "rejected"
			if reason = strings.TrimSpace(reason); reason != "" {
				return pc.Reject("Not run: the user declined this call: " + reason), made, nil
			}
			return pc.Reject(rejectionByUser), made, nil
		case "e", "edit":
			args, ok, err := p.edit(ctx, ed, pc)
			if err != nil {
				return client.Decision{}, made, err
			}
			if !ok {
				continue
			}
			made.verdict, made.edited = "edited", args
			return pc.ApproveWith(args), made, nil
		default:
			fmt.Fprintln(p.out, "answer y to run it, n to refuse (n REASON tells the model why), a to run this tool from now on without asking, e to edit the arguments")
		}
	}
}

// edit lets the user edit a call's arguments until they are valid for the tool; false when the
// user gives up (Ctrl-C, or an empty line).
func (p *approver) edit(ctx context.Context, ed *lineEditor, pc client.PendingCall) (string, bool, error) {
	t, err := p.cat.lookup(pc.Call.Name)
	if err != nil {
		return "", false, err
	}
	text := editableJSON(pc.Call.Arguments)
	for {
		answer, err := ed.ask(ctx, "arguments: ", text)
		switch {
		case errors.Is(err, errEditorInterrupt) || errors.Is(err, io.EOF):
			return "", false, nil
		case err != nil:
			return "", false, err
		}
		answer = strings.TrimSpace(answer)
		if answer == "" {
			return "", false, nil
		}
		if err := toolcall.ValidateArguments(t, answer); err != nil {
			fmt.Fprintf(p.out, "%s\n", safeLine(oneLine("not valid for "+pc.Call.Name+": "+err.Error(), 300)))
			text = editableJSON(answer)
			continue
		}
		return answer, true, nil
	}
}

// read asks one question; Ctrl-C or Ctrl-D stops the turn.
func (p *approver) read(ctx context.Context, ed *lineEditor, prompt, prefill string) (string, error) {
	answer, err := ed.ask(ctx, prompt, prefill)
	if errors.Is(err, errEditorInterrupt) || errors.Is(err, io.EOF) {
		return "", errStopped
	}
	return answer, err
}

// describe names a pending call's tool and where it comes from, a sub-agent's calls with it.
func (p *approver) describe(pc client.PendingCall) string {
	s := safeLine(pc.Call.Name)
	if src := p.cat.sources[pc.Call.Name]; src != "" {
		s += " (" + safeLine(src) + ")"
	}
	if pc.Agent != "" {
		s += " of agent " + safeLine(pc.Agent)
	}
	return s
}

// argLineRunes is the most of one line of arguments a question shows.
const argLineRunes = 400

// showArgs renders arguments for a question: indented JSON, each line escaped and cut to
// argLineRunes, at most max lines; editing them shows them whole.
func showArgs(args string, max int) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(args), "    ", "  ") != nil {
		b.Reset()
		b.WriteString(args)
	}
	if b.Len() == 0 {
		b.WriteString("{}")
	}
	lines := strings.Split(b.String(), "\n")
	var out strings.Builder
	for i, l := range lines {
		if i == max {
			fmt.Fprintf(&out, "    … %d more lines (e shows them all)\n", len(lines)-max)
			break
		}
		if i == 0 {
			l = "    " + l
		}
		if r := []rune(l); len(r) > argLineRunes {
			l = fmt.Sprintf("%s… (%d more characters)", string(r[:argLineRunes]), len(r)-argLineRunes)
		}
		out.WriteString(safeLine(l) + "\n")
	}
	return out.String()
}

// editableJSON puts arguments on one line the line editor can take as typed keys: compact JSON,
// with the characters a terminal would act on (DEL, C1 controls, invisible formatting) written
// as JSON escapes, which only strings can hold. Text that is not JSON is escaped as safeLine does.
func editableJSON(args string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(args)) != nil {
		return safeLine(args)
	}
	s := b.String()
	if !needsEscape(s, false) {
		return s
	}
	var out strings.Builder
	for _, r := range s {
		if !escaped(r, false) {
			out.WriteRune(r)
			continue
		}
		if r1, r2 := utf16.EncodeRune(r); r1 != '\uFFFD' {
			fmt.Fprintf(&out, `\u%04x\u%04x`, r1, r2)
		} else {
			out.WriteString(`\u` + fmt.Sprintf("%04x", r))
		}
	}
	return out.String()
}

// hintsOf lists a tool's MCP hints in words, for tools list.
func hintsOf(m tool.Metadata) []string {
	var out []string
	if m.ReadOnly {
		out = append(out, "read-only")
	} else if m.Destructive != nil && !*m.Destructive {
		out = append(out, "not destructive")
	} else if m.Destructive != nil {
		out = append(out, "destructive")
	}
	if m.Idempotent && !m.ReadOnly {
		out = append(out, "idempotent")
	}
	if m.OpenWorld != nil && *m.OpenWorld {
		out = append(out, "open world")
	}
	return slices.Clip(out)
}
