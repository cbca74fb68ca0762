package main

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wield-ai/wield/a2a"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/toolcall"
)

// a2aTokenEnv is the environment variable holding the bearer token of wield a2a serve.
const a2aTokenEnv = "WIELD_A2A_TOKEN"

func (a *app) a2aCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "a2a",
		Short: "Serve an agent over the Agent2Agent protocol, or inspect one",
		Example: `  wield a2a serve --http 127.0.0.1:8080
  wield a2a card http://127.0.0.1:8080`,
	}
	cmd.AddCommand(a.a2aServeCommand(), a.a2aCardCommand())
	return groupCommand(cmd)
}

// a2aServeFlags are the flags of wield a2a serve.
type a2aServeFlags struct {
	model       modelFlags
	tools       toolFlags
	system      string
	addr        string
	name        string
	authToken   string
	allowNoAuth bool
}

func (a *app) a2aServeCommand() *cobra.Command {
	var f a2aServeFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the model and tools of wield chat as an A2A agent",
		Long: `serve makes wield an agent other agents call over A2A (JSON-RPC over HTTP, protocol 0.3): its
card is at /.well-known/agent-card.json, and each task is a turn of the model with the built-in
tools (unless --builtin=false) and those of the MCP servers in --mcp-config. A call of a tool
marked destructive stops the task as input-required, with the calls described; the caller's next
message approves or refuses them. A task's context keeps its conversation while the server runs.

With --auth-token TOKEN (or $` + a2aTokenEnv + `) every request but the card's must carry
"Authorization: Bearer TOKEN". An address other than loopback needs a token, unless
--allow-unauthenticated says that anyone who can reach it may use the agent.`,
		Example: `  wield a2a serve --http 127.0.0.1:8080
  ` + a2aTokenEnv + `=s3cret wield a2a serve --http 0.0.0.0:8080 --mcp-config mcp.json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.authToken == "" {
				f.authToken = a.getenv(a2aTokenEnv)
			}
			return a.a2aServe(cmd.Context(), f)
		},
	}
	a.registerModelFlags(cmd, &f.model)
	f.tools.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "http", "127.0.0.1:8080", "serve on `ADDRESS`")
	fl.StringVar(&f.name, "name", "wield", "the agent's `NAME` on its card")
	fl.StringVar(&f.system, "system", "", "a system `PROMPT` for every task")
	fl.StringVar(&f.authToken, "auth-token", "", "require \"Authorization: Bearer `TOKEN`\" on every request (default $"+a2aTokenEnv+")")
	fl.BoolVar(&f.allowNoAuth, "allow-unauthenticated", false, "serve an address other than loopback without --auth-token")
	return cmd
}

// a2aServe runs the agent until ctx ends.
func (a *app) a2aServe(ctx context.Context, f a2aServeFlags) error {
	// Checked before anything starts, so that nothing is exposed even for a moment; the
	// server checks the address it listens on again.
	if f.authToken == "" && !f.allowNoAuth && !loopbackAddress(ctx, f.addr) {
		return usagef("--http %s is reachable from other machines: set --auth-token (or $%s), or pass --allow-unauthenticated to let anyone who can reach it use the agent", f.addr, a2aTokenEnv)
	}
	spec, err := a.resolveModel(ctx, f.model)
	if err != nil {
		return err
	}
	model, err := a.newModel(ctx, spec)
	if err != nil {
		return err
	}
	cat, err := a.loadCatalog(ctx, f.tools, a.serverAlarm)
	if err != nil {
		return err
	}
	defer cat.Close()
	// The tasks, their stopped turns and their contexts' conversations share one repository.
	repo := memory.NewInMemory()
	turns := memory.Turns(repo)
	opts := []client.Option{
		client.WithTools(cat.tools),
		client.WithApproval(toolcall.AskDestructive()),
		client.WithTurnStore(turns),
		client.WithLogger(a.logger()),
		client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, historyWindow), memory.AdvisorConfig{Order: client.OrderToolCalling + 100})),
	}
	if f.system != "" {
		opts = append(opts, client.WithSystem(f.system))
	}
	c, err := client.New(model, opts...)
	if err != nil {
		return err
	}
	cfg := a2a.ServerConfig{Client: c, Tasks: repo, TurnStore: turns, Name: f.name, Logger: a.logger(), AllowUnauthenticatedRemote: f.allowNoAuth}
	if f.authToken != "" {
		token := []byte(f.authToken)
		cfg.Authorize = func(r *http.Request) (string, error) {
			got, ok := bearer(r)
			if !ok || subtle.ConstantTimeCompare([]byte(got), token) != 1 {
				return "", errors.New("a wrong or missing bearer token")
			}
			return "token", nil
		}
	}
	srv, err := a2a.NewServer(ctx, cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return usagef("--http %s: %v", f.addr, err)
	}
	fmt.Fprintf(a.stderr, "wield: serving the A2A agent %q on http://%s/\n", f.name, ln.Addr())
	err = srv.Serve(ctx, ln)
	if errors.Is(err, a2a.ErrUnauthenticatedRemote) {
		return usagef("--http %s: %v; set --auth-token (or $%s), or pass --allow-unauthenticated", f.addr, err, a2aTokenEnv)
	}
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// bearer returns the token of a request's "Authorization: Bearer" header.
func bearer(r *http.Request) (string, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return token, ok && token != ""
}

func (a *app) a2aCardCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "card URL",
		Short: "Print the card of the A2A agent at URL",
		Long: `card fetches the agent card an A2A agent serves (URL/.well-known/agent-card.json), checks that
wield can call the agent, and prints the card as JSON.`,
		Example: `  wield a2a card http://127.0.0.1:8080`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			card, err := a2a.FetchCard(cmd.Context(), args[0], nil)
			if err != nil {
				return err
			}
			out, err := json.MarshalIndent(card, "", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.stdout, "%s\n", out)
			return err
		},
	}
}
