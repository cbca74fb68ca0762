// Command approval asks a person before a tool acts. The model tidies a directory: listing files
// runs at once (the tool is read-only), deleting them waits for approval (the tool is
// destructive), and archiving asks which archive to use (the tool interrupts the turn). The turn
// stops, its state is kept in a SQLite file, and a second client, as a second process would
// hours later, loads it, decides each call (approve, approve with edited arguments, reject) and
// resumes the turn exactly where it stopped; then answers the archive's question by restarting
// that call with new arguments.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/memory/sqlstore"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// Files is the directory the tools work on, in memory.
type Files struct {
	mu      sync.Mutex
	names   map[string]bool
	archive map[string]string // file → archive
}

// NewFiles returns a directory holding names.
func NewFiles(names ...string) *Files {
	f := &Files{names: map[string]bool{}, archive: map[string]string{}}
	for _, n := range names {
		f.names[n] = true
	}
	return f
}

// Names returns the files left, sorted.
func (f *Files) Names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for n := range f.names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// PathInput names a file.
type PathInput struct {
	Path string `json:"path" jsonschema:"the file's path"`
}

// ArchiveInput names a file and the archive to move it to.
type ArchiveInput struct {
	Path    string `json:"path" jsonschema:"the file's path"`
	Archive string `json:"archive,omitempty" jsonschema:"the archive; the user is asked when it is missing"`
}

// archives are those a file can go to.
var archives = []string{"2024", "2025"}

func (f *Files) tools() ([]tool.Tool, error) {
	list, err := tool.Func("list_files", "List the files of the directory", func(context.Context, struct{}) ([]string, error) {
		return f.Names(), nil
	}, tool.ReadOnly())
	if err != nil {
		return nil, err
	}
	del, err := tool.Func("delete_file", "Delete a file", func(_ context.Context, in PathInput) (string, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.names[in.Path] {
			return "", fmt.Errorf("no file %s", in.Path)
		}
		delete(f.names, in.Path)
		return "deleted " + in.Path, nil
	}, tool.Destructive(true))
	if err != nil {
		return nil, err
	}
	arch, err := tool.Func("archive_file", "Move a file to an archive", func(_ context.Context, in ArchiveInput) (string, error) {
		if in.Archive == "" {
			// Stop the turn to ask; the answer comes back as a restart with the archive named.
			return "", toolcall.InterruptWith("Which archive should "+in.Path+" go to?", map[string]any{"archives": archives})
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.names, in.Path)
		f.archive[in.Path] = in.Archive
		return fmt.Sprintf("archived %s in %s", in.Path, in.Archive), nil
	}, tool.Destructive(false))
	if err != nil {
		return nil, err
	}
	return []tool.Tool{list, del, arch}, nil
}

// newClient is the client both "processes" build: the same tools, chat memory and turn states in
// the store, and a policy that asks before anything destructive.
func newClient(model chat.Model, store *sqlstore.Store, files *Files) (*client.Client, error) {
	tools, err := files.tools()
	if err != nil {
		return nil, err
	}
	return client.New(model,
		client.WithSystem("You tidy directories."),
		client.WithTools(tools),
		client.WithApproval(toolcall.AskDestructive()),
		client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(store, 50), memory.AdvisorConfig{})),
		client.WithTurnStore(memory.Turns(store)))
}

// decide is the person: it approves deleting logs, moves the cache deletion to its old part,
// and refuses the rest.
func decide(p client.PendingCall) (client.Decision, string) {
	var in PathInput
	json.Unmarshal([]byte(p.Call.Arguments), &in)
	switch {
	case strings.HasSuffix(in.Path, ".log"):
		return p.Approve(), "approve"
	case in.Path == "/tmp/cache":
		return p.ApproveWith(`{"path":"/tmp/cache/old"}`), "approve with path /tmp/cache/old"
	default:
		return p.Reject(in.Path + " is still needed; do not delete it."), "reject"
	}
}

func run(ctx context.Context, model chat.Model, dbPath string, files *Files, out io.Writer) error {
	const conv = "tidy-tmp"

	// The first process starts the turn; it stops for approval, and the process ends.
	store, err := sqlstore.OpenSQLite(ctx, dbPath)
	if err != nil {
		return err
	}
	c, err := newClient(model, store, files)
	if err != nil {
		return err
	}
	resp, err := c.Prompt("Tidy up /tmp: drop the logs and the cache, archive the report.").
		Param(client.ParamConversationID, conv).Call(ctx).Response()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "turn stopped: %s (%s)\n", resp.Outcome, resp.Text())
	if err := store.Close(); err != nil {
		return err
	}

	// The second process finds the turn in the store and lets a person decide each call.
	store, err = sqlstore.OpenSQLite(ctx, dbPath)
	if err != nil {
		return err
	}
	defer store.Close()
	if c, err = newClient(model, store, files); err != nil {
		return err
	}
	state, err := memory.Turns(store).LoadTurn(ctx, conv)
	if err != nil {
		return err
	}
	var decisions []client.Decision
	for _, p := range state.Pending() {
		d, what := decide(p)
		fmt.Fprintf(out, "  %s %s: %s\n", p.Call.Name, p.Call.Arguments, what)
		decisions = append(decisions, d)
	}
	resp, err = c.Resume(state, decisions...).Call(ctx).Response()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "turn stopped: %s\n", resp.Outcome)

	// The archive tool asked a question: the answer restarts its call with the archive named.
	for _, p := range resp.Pending.Pending() {
		var in ArchiveInput
		json.Unmarshal([]byte(p.Call.Arguments), &in)
		in.Archive = archives[0]
		args, _ := json.Marshal(in)
		fmt.Fprintf(out, "  %s asks %q: restart with %s\n", p.Call.Name, p.Interrupt.Message, args)
		decisions = []client.Decision{p.Restart(string(args), nil)}
	}
	resp, err = c.Resume(resp.Pending, decisions...).Call(ctx).Response()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "turn done: %s\n%s\n", resp.Outcome, resp.Text())
	fmt.Fprintf(out, "files left: %s\n", strings.Join(files.Names(), " "))
	return nil
}

func scriptedModel() *chattest.Model {
	return chattest.New(
		chattest.Calls(chattest.Call("list_files", `{}`)),
		chattest.Calls(
			chattest.Call("delete_file", `{"path":"/tmp/app.log"}`),
			chattest.Call("delete_file", `{"path":"/tmp/cache"}`),
			chattest.Call("delete_file", `{"path":"/tmp/notes.txt"}`),
			chattest.Call("archive_file", `{"path":"/tmp/report.pdf"}`),
		).WithText("I will delete the logs and the cache, and archive the report."),
		chattest.Text("Deleted app.log and the old cache, kept notes.txt, and archived report.pdf in 2024."),
	)
}

func main() {
	dir, err := os.MkdirTemp("", "wield-approval-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	files := NewFiles("/tmp/app.log", "/tmp/cache", "/tmp/cache/old", "/tmp/notes.txt", "/tmp/report.pdf")
	if err := run(context.Background(), scriptedModel(), filepath.Join(dir, "chat.db"), files, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
