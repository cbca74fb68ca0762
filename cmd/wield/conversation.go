package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// This file holds the command's use of package client: building the chat client and running one
// turn on it. Everything else talks to these two functions.

// chatSetup is what a chat client is built from.
type chatSetup struct {
	model        chat.Model
	tools        []tool.Tool
	system       string
	maxToolCalls int // 0: toolcall.DefaultTotalLimit
	toolSearch   bool
	repo         memory.Repository
	conversation string
	// interruptible: the user's Ctrl-C stops the answer being given, not the command.
	interruptible bool
	// approver decides the calls that need approval.
	approver *approver
	// onDone, when set, learns of each turn that ends with an answer.
	onDone func(*client.Response)
	// log records each turn, by modelName, when the chat is kept.
	log       *turnLog
	modelName string
	// options are the model options of every request (-o), nil for none.
	options *chat.Options
	// provider is the model's provider, for token estimates; contextBudget the input tokens a
	// request may hold (0: results are only capped).
	provider      string
	contextBudget int
	// nativeContext asks the provider for its own context management (--native-context).
	nativeContext bool
}

// newChatClient builds the client of a chat: the tools, the tool-call limits (a call beyond them
// is refused and the model told so, so the turn still ends with an answer), the approval policy,
// tool search, and the conversation's memory, which also keeps a turn that stopped for approval
// so that a later chat can take it up.
func (a *app) newChatClient(s chatSetup) (*client.Client, error) {
	limits := toolcall.Limits{Total: s.maxToolCalls, OnExceeded: toolcall.LimitTellModel}
	mgr := toolcall.New(toolcall.Config{Limits: limits})
	opts := []client.Option{client.WithManager(mgr), client.WithTools(s.tools)}
	if s.approver != nil {
		opts = append(opts, client.WithApproval(s.approver.policy()))
	}
	if turns, ok := s.repo.(memory.TurnRepository); ok {
		opts = append(opts, client.WithTurnStore(memory.Turns(turns)))
	}
	if s.options != nil {
		opts = append(opts, client.WithOptions(s.options))
	}
	if s.system != "" {
		opts = append(opts, client.WithSystem(s.system))
	}
	// Compaction keeps each request within the context budget, so a long chat goes on.
	cp := newCompactor(s)
	loop := client.ToolLoopConfig{Manager: mgr, Hooks: cp.Hooks()}
	if s.toolSearch {
		opts = append(opts, client.WithAdvisors(a.toolSearchAdvisor(loop)))
	} else {
		opts = append(opts, client.WithAdvisors(client.NewToolLoop(loop)))
	}
	// The conversation's history joins the request inside the loop (the memory advisor), so the
	// compaction runs once more innermost, on the whole request the model is sent.
	opts = append(opts, client.WithAdvisors(cp, cp.Innermost(client.OrderToolCalling+200)))
	opts = append(opts, client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(s.repo, historyWindow), memory.AdvisorConfig{ConversationID: s.conversation, Order: client.OrderToolCalling + 100})))
	return client.New(s.model, opts...)
}

// errStopped is the error of a turn the user interrupted.
var errStopped = errors.New("stopped")

// turn asks one question, with the files attached to it, and shows the answer as it streams. When the model asks for calls that
// need approval, the turn stops; the approver decides them (asking the user on a terminal) and
// the turn goes on where it stopped. A turn whose context is cancelled by stop (the user's
// Ctrl-C in an interactive chat) ends with errStopped, after what the model had said so far is
// kept in the conversation; one stopped at a question about a call stays in the conversation's
// store as it is.
func (a *app) turn(ctx context.Context, c *client.Client, disp display, s chatSetup, prompt string, attached []content.Part) error {
	if s.log != nil {
		start := time.Now()
		model := s.modelName
		s.onDone = func(r *client.Response) {
			t := turnInfo{At: start, Millis: time.Since(start).Milliseconds(), Model: model, InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens}
			t.Question = -1
			if msgs, err := s.repo.Messages(context.WithoutCancel(ctx), s.conversation); err == nil {
				for _, m := range msgs {
					if m.Role == chat.RoleUser {
						t.Question++
					}
				}
			}
			s.log.add(ctx, s.conversation, t)
		}
	}
	return a.converse(ctx, c.Prompt().User(prompt, attached...).Param(client.ParamConversationID, s.conversation), c, disp, s, nil)
}

// resumeTurn takes up a turn that stopped for decisions in an earlier chat.
func (a *app) resumeTurn(ctx context.Context, c *client.Client, disp display, s chatSetup, st *client.TurnState) error {
	return a.converse(ctx, nil, c, disp, s, st)
}

// converse runs spec, or, when spec is nil, resumes the stopped turn st, until the turn ends.
func (a *app) converse(ctx context.Context, spec *client.Spec, c *client.Client, disp display, s chatSetup, st *client.TurnState) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if s.interruptible {
		defer a.takeInterrupts(func() { cancel(errStopped) })()
	}
	ctx = tool.WithProgress(ctx, disp.progress)

	var (
		said  strings.Builder
		sofar client.Response // usage and model calls of the parts before a stop
	)
	stopped := func() error {
		disp.stopped()
		if text := strings.TrimSpace(said.String()); text != "" {
			// Kept so the conversation alternates and the model knows what it said.
			s.repo.Append(context.WithoutCancel(ctx), s.conversation, chat.Assistant(text+" [interrupted]"))
		}
		return errStopped
	}
	for {
		if spec == nil {
			disp.pause()
			decisions, err := s.approver.decide(ctx, st, disp)
			switch {
			case errors.Is(err, errStopped) || err != nil && errors.Is(context.Cause(ctx), errStopped):
				disp.stopped()
				return errStopped
			case err != nil:
				return disp.failed(err)
			}
			spec = c.Resume(st, decisions...).Param(client.ParamConversationID, s.conversation)
		}
		disp.waiting()
		var done *client.Response
		for ev, err := range spec.Stream(ctx).Events() {
			if err != nil {
				if errors.Is(context.Cause(ctx), errStopped) {
					return stopped()
				}
				return disp.failed(err)
			}
			switch {
			case ev.Done != nil:
				done = ev.Done
				continue
			case ev.Chunk != nil:
				said.WriteString(ev.Text())
			}
			disp.event(ev)
		}
		if done == nil {
			return nil
		}
		if done.Pending != nil && s.approver != nil {
			sofar.Usage = sofar.Usage.Add(done.Usage)
			sofar.ModelCalls += done.ModelCalls
			spec, st = nil, done.Pending
			continue
		}
		shown := *done
		shown.Usage = shown.Usage.Add(sofar.Usage)
		shown.ModelCalls += sofar.ModelCalls
		disp.done(&shown)
		if s.onDone != nil {
			s.onDone(&shown)
		}
		return nil
	}
}

// takeUpStoppedTurn continues the conversation's last turn when it stopped at a question (a call
// waiting for approval, a tool's question) in an earlier chat, whose process ended there: the
// questions are asked again before anything else; without a terminal to ask on, the turn is left
// (and the next question replaces it) unless its calls are approved already. A turn that failed or was cut short otherwise is left: the next question starts afresh, the
// conversation holding the tool rounds that completed.
func (a *app) takeUpStoppedTurn(ctx context.Context, c *client.Client, disp display, s chatSetup, conv *conversation, errw io.Writer, talk bool) error {
	turns, ok := s.repo.(memory.TurnRepository)
	if conv.resumed == 0 || !ok {
		return nil
	}
	st, err := memory.Turns(turns).LoadTurn(ctx, conv.id)
	if err != nil {
		a.warnf("the last answer of session %s cannot be taken up (%s); going on without it", safeLine(conv.id), safeLine(oneLine(err.Error(), 200)))
		return nil
	}
	if st == nil || (st.Status != client.TurnApproval && st.Status != client.TurnInterrupted) {
		return nil
	}
	if !s.approver.canDecide(st) {
		var names []string
		for _, pc := range st.Pending() {
			names = append(names, s.approver.describe(pc))
		}
		a.warnf("the last answer of session %s waits for a decision on %s, and there is no terminal to ask on; this chat leaves it", safeLine(conv.id), strings.Join(names, ", "))
		return nil
	}
	if talk {
		fmt.Fprintf(errw, "the last answer of session %s stopped at a question; taking it up\n", safeLine(conv.id))
	}
	return a.resumeTurn(ctx, c, disp, s, st)
}
