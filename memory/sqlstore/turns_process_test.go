package sqlstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
)

// The turn tests run a turn in one child process and continue it in another, through a store
// both open: WIELD_SQLSTORE_DSN names it, WIELD_TURN_RUNS is a file each run of the tool appends
// a line to, WIELD_TURN_STATE a file the stopped turn's state is written to.

// turnClient is the client every turn process builds: chat memory and turn states in the store,
// and one tool, pay (needs approval) or charge (does not), counting its runs in the runs file.
func turnClient(s *Store, m chat.Model, toolName string, approval bool) (*client.Client, error) {
	runs := os.Getenv("WIELD_TURN_RUNS")
	var opts []tool.FuncOption
	if approval {
		opts = append(opts, tool.RequiresApproval())
	}
	t, err := tool.Func(toolName, "Moves money", func(_ context.Context, in struct {
		Cents int `json:"cents"`
	}) (string, error) {
		f, err := os.OpenFile(runs, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if _, err := fmt.Fprintf(f, "%s %d\n", toolName, in.Cents); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d cents moved", in.Cents), nil
	}, opts...)
	if err != nil {
		return nil, err
	}
	return client.New(m, client.WithTools(t),
		client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(s, 50), memory.AdvisorConfig{})),
		client.WithTurnStore(memory.Turns(s)))
}

// turnChild is the child side of the turn tests:
//   - turn-stop: a turn whose model asks for pay; it stops for approval, the state is written to
//     the state file, and the process exits;
//   - turn-resume: the turn of conversation c1 is loaded, every pending call approved, and the
//     turn continued; the answer is printed;
//   - turn-crash: a turn whose model asks for charge, then, at the next model call, prints
//     "between" and waits to be killed;
//   - turn-recover: the turn of conversation c2 is loaded and continued; the answer is printed.
func turnChild(ctx context.Context, s *Store, mode string) error {
	store := memory.Turns(s)
	switch mode {
	case "turn-stop":
		c, err := turnClient(s, chattest.New(chattest.Calls(chattest.Call("pay", `{"cents":500}`)).WithText("Paying.")), "pay", true)
		if err != nil {
			return err
		}
		resp, err := c.Prompt("pay the invoice").Param(client.ParamConversationID, "c1").Call(ctx).Response()
		if err != nil {
			return err
		}
		if resp.Outcome != client.OutcomeApproval {
			return fmt.Errorf("outcome %v", resp.Outcome)
		}
		b, err := json.Marshal(resp.Pending)
		if err != nil {
			return err
		}
		if err := os.WriteFile(os.Getenv("WIELD_TURN_STATE"), b, 0o600); err != nil {
			return err
		}
		fmt.Println("stopped")
	case "turn-resume":
		c, err := turnClient(s, chattest.New(chattest.Text("Paid 5 €.")), "pay", true)
		if err != nil {
			return err
		}
		return resumeApproved(ctx, c, s, "c1")
	case "turn-crash":
		between := chattest.Respond(func(ctx context.Context, _ *chat.Prompt) (*chat.Response, error) {
			fmt.Println("between")
			<-ctx.Done()
			select {}
		})
		c, err := turnClient(s, chattest.New(chattest.Calls(chattest.Call("charge", `{"cents":700}`)), between), "charge", false)
		if err != nil {
			return err
		}
		return c.Prompt("charge the card").Param(client.ParamConversationID, "c2").Call(ctx).Err()
	case "turn-recover":
		c, err := turnClient(s, chattest.New(chattest.Text("Charged 7 €.")), "charge", false)
		if err != nil {
			return err
		}
		st, err := store.LoadTurn(ctx, "c2")
		if err != nil || st == nil {
			return fmt.Errorf("no stored turn: %v", err)
		}
		if st.Status != client.TurnReady {
			return fmt.Errorf("stored turn in status %s", st.Status)
		}
		text, err := c.Resume(st).Call(ctx).Content()
		if err != nil {
			return err
		}
		fmt.Println(text)
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	return nil
}

// resumeApproved loads conversation id's stopped turn from s, approves every pending call,
// resumes the turn with c and prints the answer.
func resumeApproved(ctx context.Context, c *client.Client, s *Store, id string) error {
	st, err := memory.Turns(s).LoadTurn(ctx, id)
	if err != nil || st == nil {
		return fmt.Errorf("no stored turn: %v", err)
	}
	var ds []client.Decision
	for _, p := range st.Pending() {
		ds = append(ds, p.Approve())
	}
	text, err := c.Resume(st, ds...).Call(ctx).Content()
	if err != nil {
		return err
	}
	fmt.Println(text)
	return nil
}

// turnEnv returns the environment of the turn children of a test.
func turnEnv(dsn, dir string) []string {
	return append(os.Environ(),
		"WIELD_SQLSTORE_DSN="+dsn,
		"WIELD_TURN_RUNS="+filepath.Join(dir, "runs"),
		"WIELD_TURN_STATE="+filepath.Join(dir, "state.json"))
}

// runTurnChild runs a turn child to its end and returns what it printed.
func runTurnChild(t *testing.T, mode string, env []string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(env, "WIELD_SQLSTORE_CHILD="+mode)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child %s: %v", mode, err)
	}
	return strings.TrimSpace(string(out))
}

func readRuns(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "runs"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func messageSummary(msgs []chat.Message) string {
	var parts []string
	for _, m := range msgs {
		switch {
		case len(m.ToolCalls) > 0:
			parts = append(parts, "call "+m.ToolCalls[0].Name)
		case len(m.ToolResults) > 0:
			parts = append(parts, "result "+m.ToolResults[0].Content)
		default:
			parts = append(parts, string(m.Role)+" "+m.Content)
		}
	}
	return strings.Join(parts, " | ")
}

// TestTurnAcrossProcesses: one process starts a turn that stops for approval and exits; another
// resumes it from the store; the tool runs exactly once, and the first process's copy of the
// state cannot be resumed again.
func TestTurnAcrossProcesses(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		dsn, dir := b.dsn(t), t.TempDir()
		env := turnEnv(dsn, dir)
		if out := runTurnChild(t, "turn-stop", env); out != "stopped" {
			t.Fatalf("first process printed %q", out)
		}
		if runs := readRuns(t, dir); runs != nil {
			t.Fatalf("the tool ran before approval: %v", runs)
		}
		if out := runTurnChild(t, "turn-resume", env); out != "Paid 5 €." {
			t.Fatalf("second process printed %q", out)
		}
		if runs := readRuns(t, dir); len(runs) != 1 || runs[0] != "pay 500" {
			t.Fatalf("runs = %q", runs)
		}

		s := open(t, dsn)
		if st, err := memory.Turns(s).LoadTurn(t.Context(), "c1"); err != nil || st != nil {
			t.Fatalf("the finished turn is still stored: %+v, %v", st, err)
		}
		msgs, err := s.Messages(t.Context(), "c1")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := messageSummary(msgs), "user pay the invoice | call pay | result 500 cents moved | assistant Paid 5 €."; got != want {
			t.Fatalf("conversation = %s, want %s", got, want)
		}
		// The state the first process kept is refused: the turn was resumed.
		raw, err := os.ReadFile(filepath.Join(dir, "state.json"))
		if err != nil {
			t.Fatal(err)
		}
		var st client.TurnState
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatal(err)
		}
		t.Setenv("WIELD_TURN_RUNS", filepath.Join(dir, "runs"))
		c, err := turnClient(s, chattest.New(chattest.Text("again")), "pay", true)
		if err != nil {
			t.Fatal(err)
		}
		err = c.Resume(&st, client.Approve(st.Pending()[0].Call.ID)).Call(t.Context()).Err()
		if !errors.Is(err, client.ErrAlreadyResumed) {
			t.Fatalf("resuming the first process's state: %v", err)
		}
		if runs := readRuns(t, dir); len(runs) != 1 {
			t.Fatalf("runs = %q", runs)
		}
	})
}

// TestTurnSurvivesCrash kills a process (SIGKILL) after its tool round and before its next model
// call; the next process resumes the turn from the store without running the tool again.
func TestTurnSurvivesCrash(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		dsn, dir := b.dsn(t), t.TempDir()
		env := turnEnv(dsn, dir)
		cmd, out := startProcess(t, append(env, "WIELD_SQLSTORE_CHILD=turn-crash"))
		killAt(t, cmd, out, "between", "its second model call")
		if runs := readRuns(t, dir); len(runs) != 1 || runs[0] != "charge 700" {
			t.Fatalf("runs before the recovery = %q", runs)
		}
		if out := runTurnChild(t, "turn-recover", env); out != "Charged 7 €." {
			t.Fatalf("recovering process printed %q", out)
		}
		if runs := readRuns(t, dir); len(runs) != 1 {
			t.Fatalf("the tool ran again: %q", runs)
		}
		s := open(t, dsn)
		if st, err := memory.Turns(s).LoadTurn(t.Context(), "c2"); err != nil || st != nil {
			t.Fatalf("the finished turn is still stored: %+v, %v", st, err)
		}
	})
}
