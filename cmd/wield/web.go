package main

import (
	"context"
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
	"github.com/wield-ai/wield/web"
)

type webFlags struct {
	addr string
	chat chatFlags // the flags web shares with chat: model, tools, approval, system
}

func (a *app) webCommand() *cobra.Command {
	var f webFlags
	cmd := &cobra.Command{
		Use:   "web",
		Short: "Watch and steer chats in a local web page",
		Long: `web serves a page on 127.0.0.1 to chat with the model and tools chat would use: the answer
streams in with each tool call inline (its arguments as the model writes them, its result and
how long it took), calls of sub-agents nested under theirs. A call that needs approval (as in
chat) shows buttons: approve, reject with a reason, or edit its arguments in a form made from
the tool's schema. The page lists the sessions of wield chat (` + sessionsHint + `) to open and continue,
and the tools, with search and a form to call one by hand.

The page's address carries a random token, as Jupyter's does; it is printed when the server
starts, and every request without it is refused, as is any from another site. The page is in
the binary and needs no network. It speaks AG-UI to the server's /agui endpoint, which any
AG-UI front end can use too. Ctrl-C stops the server once running turns end.`,
		Example: `  wield web
  wield web --model anthropic/claude-sonnet-4-5 --mcp-config mcp.json
  wield web --addr 127.0.0.1:8765`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.web(cmd.Context(), f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "127.0.0.1:0", "listen on `HOST:PORT`, a loopback address (port 0 picks a free one)")
	a.registerModelFlags(cmd, &f.chat.model)
	fl.StringVarP(&f.chat.system, "system", "s", "", "system `PROMPT` sent before each conversation")
	fl.IntVar(&f.chat.maxToolCalls, "max-tool-calls", 0, fmt.Sprintf("most tool calls per question (default %d)", toolcall.DefaultTotalLimit))
	f.chat.tools.register(cmd)
	f.chat.approval.register(cmd)
	a.registerToolSearchFlag(cmd, &f.chat.toolSearch)
	return cmd
}

func (a *app) web(ctx context.Context, f webFlags) error {
	if f.chat.maxToolCalls < 0 {
		return usagef("--max-tool-calls must not be negative")
	}
	host, _, err := net.SplitHostPort(f.addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return usagef("--addr %q: give a loopback address and port, such as 127.0.0.1:8765", f.addr)
	}
	spec, err := a.resolveModel(ctx, f.chat.model)
	if err != nil {
		return err
	}
	model, err := a.newModel(ctx, spec)
	if err != nil {
		return err
	}
	// The page answers MCP servers' questions (elicitation) with a form.
	tools := f.chat.tools
	tools.elicit = true
	cat, err := a.loadCatalog(ctx, tools, nil)
	if err != nil {
		return err
	}
	defer cat.Close()
	store, err := a.openSessions(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	approver, err := a.newApprover(f.chat.approval, cat, nil, a.stderr)
	if err != nil {
		return err
	}
	defer approver.close()
	// Each page's thread is its conversation: the id below is only for requests without one.
	c, err := a.newChatClient(chatSetup{model: model, tools: cat.tools, system: f.chat.system, maxToolCalls: f.chat.maxToolCalls,
		toolSearch: f.chat.toolSearch, repo: store, conversation: "web", approver: approver, modelName: spec.String()})
	if err != nil {
		return err
	}
	// The page's turns go in the turn log as chat's do, so `wield sessions` shows their times.
	var tlog *turnLog
	if path, err := a.sessionsPath(); err == nil {
		tlog, _ = openTurnLog(ctx, path)
	}
	defer tlog.close()
	srv, err := web.New(web.Config{Client: c, Turns: memory.Turns(store), Sessions: store, Tools: cat.tools,
		Sources: cat.sources, Asks: func(name string, m tool.Metadata) bool { return approver.asks(name, m) }, Title: spec.String(),
		OnTurn: func(ctx context.Context, t web.TurnRecord) {
			tlog.add(ctx, t.Conversation, turnInfo{Question: t.Question, At: t.At, Millis: t.Elapsed.Milliseconds(),
				Model: spec.String(), InputTokens: t.InputTokens, OutputTokens: t.OutputTokens})
		}})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "wield web · %s · %d tools\nOpen %s\n", safeLine(spec.String()), len(cat.tools), srv.URL(ln.Addr()))
	return srv.Serve(ctx, ln)
}
