// Command a2a runs two wield agents that talk over the Agent2Agent protocol (A2A), on loopback.
// The records agent keeps customer records; deleting one needs a person's approval. It is served
// as an A2A agent (a2a.Server). The assistant reaches it through its agent card as a tool
// (a2a.RemoteAgent): its turn streams the records agent's progress, attributed to it, and stops
// when the records agent stops for approval, with the waiting call described. The person
// approves in the assistant's resume; the records agent's turn resumes on its side, the record
// is deleted once, and both turns finish.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"slices"
	"sync"

	"github.com/wield-ai/wield/a2a"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
)

// Records are the records agent's customer records.
type Records struct {
	mu      sync.Mutex
	names   []string
	deletes int
}

// Names returns the records left.
func (r *Records) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.names)
}

// Deletes returns how many deletions ran.
func (r *Records) Deletes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.deletes
}

// RecordInput names a record.
type RecordInput struct {
	Name string `json:"name" jsonschema:"the customer's name"`
}

func (r *Records) tools() ([]tool.Tool, error) {
	find, err := tool.Func("find_record", "Find a customer's record", func(_ context.Context, in RecordInput) (string, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if slices.Contains(r.names, in.Name) {
			return "record of " + in.Name + ": inactive since 2019", nil
		}
		return "", fmt.Errorf("no record of %s", in.Name)
	}, tool.ReadOnly())
	if err != nil {
		return nil, err
	}
	del, err := tool.Func("delete_record", "Delete a customer's record", func(_ context.Context, in RecordInput) (string, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.deletes++
		r.names = slices.DeleteFunc(r.names, func(n string) bool { return n == in.Name })
		return "deleted the record of " + in.Name, nil
	}, tool.Destructive(true), tool.RequiresApproval())
	if err != nil {
		return nil, err
	}
	return []tool.Tool{find, del}, nil
}

// run serves the records agent on a loopback port, runs the assistant's turn against it, and
// approves the deletion the records agent asks for.
func run(ctx context.Context, recordsModel, assistantModel chat.Model, records *Records, out io.Writer) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()

	// The records agent: its tools, memory for its contexts, and its tasks kept beside its turns.
	tools, err := records.tools()
	if err != nil {
		return err
	}
	repo := memory.NewInMemory()
	recordsClient, err := client.New(recordsModel, client.WithTools(tools),
		client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, 50), memory.AdvisorConfig{})))
	if err != nil {
		return err
	}
	srv, err := a2a.NewServer(ctx, a2a.ServerConfig{Client: recordsClient, Tasks: repo, Name: "Records",
		Description: "Keeps the customer records: finds and deletes them."})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	defer func() { stop(); <-served }()

	// The assistant: the records agent is one of its tools, found through its card.
	recordsTool, err := a2a.RemoteAgent(ctx, a2a.Config{CardURL: "http://" + ln.Addr().String()})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "assistant's tool: %s (%s)\n", recordsTool.Definition().Name, recordsTool.Definition().Description)
	assistant, err := client.New(assistantModel, client.WithTools(recordsTool))
	if err != nil {
		return err
	}

	resp, err := stream(ctx, assistant.Prompt("Remove Ada Byron's customer record, she closed her account."), out)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "assistant's turn stopped: %s\n", resp.Outcome)
	pending := resp.Pending.Pending()
	if len(pending) != 1 {
		return fmt.Errorf("%d pending calls", len(pending))
	}
	var remote a2a.Pending
	if err := json.Unmarshal(pending[0].Interrupt.Data, &remote); err != nil {
		return err
	}
	var decisions []a2a.CallDecision
	for _, call := range remote.Calls {
		fmt.Fprintf(out, "  the records agent waits: %s %s (%s): approve\n", call.Tool, call.Arguments, call.Reason)
		yes := true
		decisions = append(decisions, a2a.CallDecision{ID: call.ID, Approved: &yes})
	}
	answer, err := json.Marshal(a2a.Answer{Decisions: decisions})
	if err != nil {
		return err
	}
	resp, err = stream(ctx, assistant.Resume(resp.Pending, pending[0].Restart("", answer)), out)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "assistant's turn: %s\n%s\n", resp.Outcome, resp.Text())
	fmt.Fprintf(out, "records left: %v (deletions run: %d)\n", records.Names(), records.Deletes())
	return nil
}

// stream runs a turn of the assistant, printing the records agent's progress as it comes.
func stream(ctx context.Context, spec *client.Spec, out io.Writer) (*client.Response, error) {
	var resp *client.Response
	for ev, err := range spec.Stream(ctx).Events() {
		if err != nil {
			return nil, err
		}
		switch {
		case ev.Done != nil:
			resp = ev.Done
		case ev.Agent() != "" && ev.Tool != nil:
			fmt.Fprintf(out, "  [%s] %s %s\n", ev.Agent(), kind(ev.Tool.Kind), ev.Tool.Call.Name)
		case ev.Agent() != "" && ev.Text() != "":
			fmt.Fprintf(out, "  [%s] says: %s\n", ev.Agent(), ev.Text())
		}
	}
	return resp, nil
}

func kind(k client.ToolEventKind) string {
	if k == client.ToolStarted {
		return "calls"
	}
	return "finished"
}

// scriptedModels answer as real models would: the assistant delegates to the records agent,
// which finds the record, asks to delete it, and reports.
func scriptedModels() (records, assistant *chattest.Model) {
	records = chattest.New(
		chattest.Calls(chat.ToolCall{ID: "r1", Name: "find_record", Arguments: `{"name":"Ada Byron"}`}),
		chattest.Calls(chat.ToolCall{ID: "r2", Name: "delete_record", Arguments: `{"name":"Ada Byron"}`}).
			WithText("Found it; deleting needs approval."),
		chattest.Text("Deleted the record of Ada Byron."),
	)
	assistant = chattest.New(
		chattest.Calls(chat.ToolCall{ID: "a1", Name: "records", Arguments: `{"input":"Delete the customer record of Ada Byron."}`}),
		chattest.Text("Done: Ada Byron's record is deleted."),
	)
	return records, assistant
}

func main() {
	records := &Records{names: []string{"Ada Byron", "Alan Turing"}}
	rm, am := scriptedModels()
	if err := run(context.Background(), rm, am, records, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
