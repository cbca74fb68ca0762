// Command refund runs a support agent's turns on Temporal. The agent looks an order up (a
// read-only tool that reports its progress) and refunds it (a tool that waits for a person's
// approval). Each turn is a workflow; each model call and tool call an activity; the tools run
// on a task queue of their own, so they can live on other machines than the model calls; the
// conversation is kept in a SQL store the workers share; and the approval can come from any
// process, hours later, while no process holds the turn.
//
// Start a Temporal server (the Temporal CLI's "temporal server start-dev", or "go run ." in
// temporal/devserver, which prints its address and namespace), then, in temporal/, run it all
// in one process:
//
//	go run ./examples/refund -address 127.0.0.1:7233 -namespace default demo
//
// or in three terminals, as three machines would:
//
//	go run ./examples/refund worker        # turns and model calls
//	go run ./examples/refund tools         # the tools, on their own queue
//	go run ./examples/refund ask "Please refund order A17."
//
// The model is scripted, so the example runs offline; pass any chat.Model to newAgent to run
// the same agent on a provider.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	sdkclient "go.temporal.io/sdk/client"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/memory/sqlstore"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/tool"
)

// OrderInput names an order.
type OrderInput struct {
	Order string `json:"order" jsonschema:"the order's id, such as A17"`
}

// RefundInput is a refund to make.
type RefundInput struct {
	Order  string `json:"order" jsonschema:"the order's id"`
	Amount int    `json:"amount" jsonschema:"in euros"`
}

// Ledger is the shop's books: the refunds made.
type Ledger struct {
	mu      sync.Mutex
	refunds []string
}

// Refunds returns the refunds made, in order.
func (l *Ledger) Refunds() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.refunds...)
}

// tools returns the agent's tools over ledger.
func tools(ledger *Ledger) ([]tool.Tool, error) {
	lookup, err := tool.Func("lookup_order", "Look an order up", func(ctx context.Context, in OrderInput) (string, error) {
		tool.ReportProgress(ctx, tool.Progress{Progress: 1, Total: 2, Message: "reading the order"})
		return fmt.Sprintf("order %s: 2 concert tickets, 40 euros, paid; the concert was cancelled", in.Order), nil
	}, tool.ReadOnly())
	if err != nil {
		return nil, err
	}
	refund, err := tool.Func("refund", "Refund an order", func(ctx context.Context, in RefundInput) (string, error) {
		ledger.mu.Lock()
		defer ledger.mu.Unlock()
		ledger.refunds = append(ledger.refunds, fmt.Sprintf("%s %d", in.Order, in.Amount))
		return fmt.Sprintf("refunded %d euros for order %s", in.Amount, in.Order), nil
	}, tool.RequiresApproval())
	if err != nil {
		return nil, err
	}
	return []tool.Tool{lookup, refund}, nil
}

// newAgent is the client every process builds alike: its model, tools and system prompt make
// the turns the workers run.
func newAgent(model chat.Model, ledger *Ledger) (*client.Client, error) {
	ts, err := tools(ledger)
	if err != nil {
		return nil, err
	}
	return client.New(model, client.WithSystem("You are a shop's support agent."), client.WithTools(ts))
}

// config describes the agent on Temporal: turns and model calls on one queue, tools on another,
// the conversation in mem.
func config(mem memory.Memory) temporal.Config {
	return temporal.Config{
		Name:          "refunds",
		TaskQueue:     "refunds",
		ToolTaskQueue: "refunds-tools",
		Memory:        mem,
		EventPoll:     50 * time.Millisecond,
	}
}

var orderID = regexp.MustCompile(`[A-Z]\d+`)

// scriptedModel answers as a model would, from the conversation alone, so that any worker in
// any process answers alike: it looks the order up, asks for the refund, and reports.
func scriptedModel() chat.Model {
	return chattest.New(chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		last := p.Messages[len(p.Messages)-1]
		msg := chat.Message{Role: chat.RoleAssistant}
		switch {
		case last.Role == chat.RoleUser:
			order := orderID.FindString(last.Content)
			msg.Content = "Let me look order " + order + " up."
			msg.ToolCalls = []chat.ToolCall{{ID: "lookup-" + order, Name: "lookup_order", Arguments: `{"order":"` + order + `"}`}}
		case last.ToolResults[0].Name == "lookup_order":
			order := orderID.FindString(last.ToolResults[0].Content)
			msg.Content = "The concert was cancelled: I will refund the 40 euros."
			msg.ToolCalls = []chat.ToolCall{{ID: "refund-" + order, Name: "refund", Arguments: `{"order":"` + order + `","amount":40}`}}
		case last.ToolResults[0].IsError:
			msg.Content = "I could not refund the order: " + last.ToolResults[0].Content
		default:
			msg.Content = "Done: " + last.ToolResults[0].Content + "."
		}
		return &chat.Response{Model: "scripted", Generations: []chat.Generation{{Message: msg}}}, nil
	})).Repeat().DiscardPrompts()
}

// decider decides a pending refund.
type decider func(p client.PendingCall) client.Decision

// follow prints the turn's events as they come and decides its approvals with decide.
func follow(ctx context.Context, turn *temporal.Turn, decide decider, out io.Writer) error {
	var decided int64
	inText := false // the model's text streams in pieces: one line for them
	for ev, err := range turn.Events(ctx) {
		if err != nil {
			return err
		}
		if ev.Chunk != nil {
			if text := ev.Text(); text != "" {
				if !inText {
					fmt.Fprint(out, "model: ")
				}
				fmt.Fprint(out, text)
				inText = true
			}
			continue
		}
		if ev.Tool == nil && ev.Done == nil {
			continue // a call's arguments as the model writes them (ev.ToolDelta)
		}
		if inText {
			fmt.Fprintln(out)
			inText = false
		}
		switch {
		case ev.Done != nil:
			fmt.Fprintf(out, "answer (%s, %d model calls): %s\n", ev.Done.Outcome, ev.Done.ModelCalls, ev.Done.Text())
		case ev.Tool.Kind == client.ToolStarted:
			fmt.Fprintf(out, "run   %s %s\n", ev.Tool.Call.Name, ev.Tool.Call.Arguments)
		case ev.Tool.Kind == client.ToolFinished:
			fmt.Fprintf(out, "done  %s: %s\n", ev.Tool.Call.Name, ev.Tool.Result.Content)
		case ev.Tool.Kind == client.ToolApprovalRequired:
			state, err := turn.Pending(ctx)
			if err != nil {
				return err
			}
			if state == nil || state.Seq == decided {
				continue // decided with an earlier event of the same stop
			}
			var decisions []client.Decision
			for _, p := range state.Pending() {
				d := decide(p)
				fmt.Fprintf(out, "wait  %s %s: %s\n", p.Call.Name, p.Call.Arguments, d.Kind)
				decisions = append(decisions, d)
			}
			if err := turn.Decide(ctx, state.Seq, decisions...); err != nil {
				return err
			}
			decided = state.Seq
		}
	}
	return nil
}

// ask starts a turn for text and follows it to its answer.
func ask(ctx context.Context, tc sdkclient.Client, cfg temporal.Config, text string, decide decider, out io.Writer) error {
	c, err := temporal.NewClient(tc, cfg)
	if err != nil {
		return err
	}
	turn, err := c.Start(ctx, temporal.Request{ConversationID: "customer-ada", Messages: []chat.Message{chat.User(text)}})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "turn %s\n", turn.ID())
	return follow(ctx, turn, decide, out)
}

// workers starts the turn worker and the tool worker of the agent; stop stops them.
func workers(tc sdkclient.Client, agent *client.Client, cfg temporal.Config, turns, tools bool) (stop func(), err error) {
	var started []*temporal.Worker
	stop = func() {
		for _, w := range started {
			w.Stop()
		}
	}
	start := func(on bool, newWorker func(sdkclient.Client, *client.Client, temporal.Config) (*temporal.Worker, error)) error {
		if !on {
			return nil
		}
		w, err := newWorker(tc, agent, cfg)
		if err != nil {
			return err
		}
		if err := w.Start(); err != nil {
			return err
		}
		started = append(started, w)
		return nil
	}
	err = start(turns, temporal.NewWorker)
	if err == nil {
		err = start(tools, temporal.NewToolWorker)
	}
	return stop, err
}

func approveAll(p client.PendingCall) client.Decision { return p.Approve() }

// askOnStdin asks the person at the terminal.
func askOnStdin(in *bufio.Reader) decider {
	return func(p client.PendingCall) client.Decision {
		fmt.Printf("%s %s? [y/N] ", p.Call.Name, p.Call.Arguments)
		if answer, _ := in.ReadString('\n'); strings.TrimSpace(answer) == "y" {
			return p.Approve()
		}
		return p.Reject("The support lead declined the refund.")
	}
}

func main() {
	address := flag.String("address", "127.0.0.1:7233", "the Temporal server's host:port")
	namespace := flag.String("namespace", "default", "the Temporal namespace")
	db := flag.String("db", filepath.Join(os.TempDir(), "wield-refund.db"), "the conversation store: an SQLite file or a postgres:// URL")
	yes := flag.Bool("yes", false, "ask: approve every refund without asking")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: refund [flags] demo | worker | tools | ask TEXT")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*address, *namespace, *db, *yes, flag.Args()); err != nil {
		log.Fatal(err)
	}
}

func run(address, namespace, db string, yes bool, args []string) error {
	if len(args) == 0 {
		return errors.New("say what to run: demo, worker, tools or ask TEXT")
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	tc, err := sdkclient.DialContext(ctx, sdkclient.Options{HostPort: address, Namespace: namespace})
	if err != nil {
		return err
	}
	defer tc.Close()
	store, err := sqlstore.Open(ctx, db)
	if err != nil {
		return err
	}
	defer store.Close()
	cfg := config(memory.NewWindow(store, 50))
	agent, err := newAgent(scriptedModel(), &Ledger{})
	if err != nil {
		return err
	}
	switch args[0] {
	case "demo":
		stop, err := workers(tc, agent, cfg, true, true)
		defer stop()
		if err != nil {
			return err
		}
		return ask(ctx, tc, cfg, "Please refund order A17, the concert was cancelled.", approveAll, os.Stdout)
	case "worker", "tools":
		stop, err := workers(tc, agent, cfg, args[0] == "worker", args[0] == "tools")
		defer stop()
		if err != nil {
			return err
		}
		fmt.Printf("%s worker running; interrupt to stop\n", args[0])
		<-ctx.Done()
		return nil
	case "ask":
		if len(args) < 2 {
			return errors.New("ask what?")
		}
		decide := askOnStdin(bufio.NewReader(os.Stdin))
		if yes {
			decide = approveAll
		}
		return ask(ctx, tc, cfg, strings.Join(args[1:], " "), decide, os.Stdout)
	}
	return fmt.Errorf("unknown command %q", args[0])
}
