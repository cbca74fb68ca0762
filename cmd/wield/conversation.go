package main

import (
	"context"
	"errors"
	"strings"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
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
}

// newChatClient builds the client of a chat: the tools, the tool-call limits (a call beyond them
// is refused and the model told so, so the turn still ends with an answer), tool search, and the
// conversation's memory.
func (a *app) newChatClient(s chatSetup) (*client.Client, error) {
	limits := toolcall.Limits{Total: s.maxToolCalls, OnExceeded: toolcall.LimitTellModel}
	mgr := toolcall.New(toolcall.Config{Limits: limits})
	opts := []client.Option{client.WithManager(mgr), client.WithTools(s.tools)}
	if s.system != "" {
		opts = append(opts, client.WithSystem(s.system))
	}
	if s.toolSearch {
		opts = append(opts, client.WithAdvisors(a.toolSearchAdvisor(mgr)))
	}
	opts = append(opts, client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(s.repo, historyWindow), memory.AdvisorConfig{ConversationID: s.conversation})))
	return client.New(s.model, opts...)
}

// errStopped is the error of a turn the user interrupted.
var errStopped = errors.New("stopped")

// turn asks one question and shows the answer as it streams. A turn whose context is cancelled
// by stop (the user's Ctrl-C in an interactive chat) ends with errStopped, after what the model
// had said so far is kept in the conversation.
func (a *app) turn(ctx context.Context, c *client.Client, disp display, s chatSetup, prompt string) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if s.interruptible {
		defer a.takeInterrupts(func() { cancel(errStopped) })()
	}
	ctx = tool.WithProgress(ctx, disp.progress)

	var said strings.Builder
	disp.waiting()
	for ev, err := range c.Prompt(prompt).Param(client.ParamConversationID, s.conversation).Stream(ctx).Events() {
		if err != nil {
			if errors.Is(context.Cause(ctx), errStopped) {
				disp.stopped()
				if text := strings.TrimSpace(said.String()); text != "" {
					// Kept so the conversation alternates and the model knows what it said.
					s.repo.Append(context.WithoutCancel(ctx), s.conversation, chat.Assistant(text+" [interrupted]"))
				}
				return errStopped
			}
			return disp.failed(err)
		}
		switch {
		case ev.Done != nil:
			disp.done(ev.Done)
			continue
		case ev.Chunk != nil:
			said.WriteString(ev.Text())
		}
		disp.event(ev)
	}
	return nil
}
