package a2a

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/internal/testenv"
)

func needJSSDK(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(testenv.ToolsDir(), "node_modules", "@a2a-js", "sdk")); err != nil {
		testenv.Missing(t, "@a2a-js/sdk")
	}
}

func node(t *testing.T, script string, args ...string) []byte {
	t.Helper()
	cmd := testenv.Command(t, "node", append([]string{filepath.Join("testdata", script)}, args...)...)
	cmd.Env = append(cmd.Env, "NODE_PATH="+filepath.Join(testenv.ToolsDir(), "node_modules"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, stderr.String())
	}
	return out
}

// The A2A JavaScript SDK's client drives a served wield agent: a streamed task that stops for
// approval, its resume by the pending call's id, tasks/get, a cancel, an unknown task.
func TestJavaScriptClientAgainstServedAgent(t *testing.T) {
	needJSSDK(t)
	var runs atomic.Int32
	c, _ := approvalAgent(t, &runs,
		chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete", Arguments: `{"path":"notes.txt"}`}).WithText("I will delete them."),
		chattest.Text("Deleted."),
		chattest.Calls(chat.ToolCall{ID: "c2", Name: "delete", Arguments: `{"path":"more.txt"}`}))
	s := serve(t, c, ServerConfig{Name: "Janitor"})
	out := node(t, "a2a_client.cjs", s.http.URL)
	var got struct {
		Events                                []string
		Pending                               []PendingView
		TaskID, Waiting, Final, Answer, After string
		SecondState, Canceled, Unknown        string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if ev := strings.Join(got.Events, " "); !strings.Contains(ev, "tool:approval:delete") || !strings.HasSuffix(ev, "status:TASK_STATE_INPUT_REQUIRED") {
		t.Fatalf("events %s", ev)
	}
	if len(got.Pending) != 1 || got.Pending[0].ID != "c1" || got.Pending[0].Reason != "approval" {
		t.Fatalf("pending %+v", got.Pending)
	}
	if got.Waiting != "TASK_STATE_INPUT_REQUIRED" || got.Final != "TASK_STATE_COMPLETED" || got.Answer != "Deleted." || got.After != "TASK_STATE_COMPLETED" {
		t.Fatalf("%+v", got)
	}
	if got.SecondState != "TASK_STATE_INPUT_REQUIRED" || got.Canceled != "TASK_STATE_CANCELED" || !strings.Contains(got.Unknown, "not found") {
		t.Fatalf("%+v", got)
	}
	if runs.Load() != 1 {
		t.Fatalf("the tool ran %d times", runs.Load())
	}
}

// jsAgent starts the small agent on the A2A JavaScript SDK's server, returning its base URL.
func jsAgent(t *testing.T) string {
	t.Helper()
	cmd := testenv.Command(t, "node", filepath.Join("testdata", "a2a_server.cjs"))
	cmd.Env = append(cmd.Env, "NODE_PATH="+filepath.Join(testenv.ToolsDir(), "node_modules"))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	port, ok := strings.CutPrefix(strings.TrimSpace(line), "PORT ")
	if err != nil || !ok {
		t.Fatalf("the JavaScript agent did not start: %q %v", line, err)
	}
	return "http://127.0.0.1:" + port
}

func jsRuns(t *testing.T, base string) (deleted, canceled int) {
	t.Helper()
	resp, err := http.Get(base + "/runs")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c struct{ Deleted, Canceled int }
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c.Deleted, c.Canceled
}

// wield's remote-agent tool against an agent built on the A2A JavaScript SDK's server: an
// answer with streamed progress, an input-required task answered through the caller's resume
// (the deletion runs once), and a task cancelled with the calling turn.
func TestRemoteAgentAgainstJavaScriptServer(t *testing.T) {
	needJSSDK(t)
	base := jsAgent(t)
	ctx := context.Background()
	tl, err := RemoteAgent(ctx, Config{CardURL: base})
	if err != nil {
		t.Fatal(err)
	}
	if tl.Definition().Name != "js_agent" {
		t.Fatalf("name %q", tl.Definition().Name)
	}
	m := chattest.New(chattest.Calls(chat.ToolCall{ID: "p1", Name: "js_agent", Arguments: `{"input":"hello"}`}), chattest.Text("ok"))
	c := clienttest.New(t, m, client.WithTools(tl))
	resp, sub, err := runTurn(t, ctx, c.Prompt("say hello"))
	if err != nil || resp.Text() != "ok" {
		t.Fatalf("turn: %v %+v", err, resp)
	}
	if res := m.ToolResults(t, 1); len(res) != 1 || res[0].Content != "echo: hello" {
		t.Fatalf("the model read %+v", res)
	}
	var progress strings.Builder
	for _, ev := range sub {
		if ev.Agent() != "js_agent" {
			t.Fatalf("event of %q", ev.Agent())
		}
		progress.WriteString(ev.Text())
	}
	if progress.String() != "thinking" {
		t.Fatalf("progress %q", progress.String())
	}

	r := stopAtRemote(t, ctx, tl, "approve: a.txt")
	if r.pc.Interrupt.Message != "Delete a.txt?" {
		t.Fatalf("interrupt %q", r.pc.Interrupt.Message)
	}
	if d, _ := jsRuns(t, base); d != 0 {
		t.Fatalf("deleted %d before the answer", d)
	}
	if got := r.answer(t, ctx, Answer{Text: "yes"}); got != "deleted a.txt" {
		t.Fatalf("the model read %q", got)
	}
	// The same stop resumed again reaches a task that is over: nothing is deleted twice.
	again, _ := json.Marshal(Answer{Text: "yes"})
	_, _, _ = runTurn(t, ctx, r.c.Resume(r.resp.Pending, r.pc.Restart("", again)))
	if d, _ := jsRuns(t, base); d != 1 {
		t.Fatalf("deleted %d times", d)
	}

	cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	if _, err := tl.Call(cctx, `{"input":"slow"}`); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow task: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, n := jsRuns(t, base); n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the JavaScript agent's task was not cancelled")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The A2A JavaScript SDK's client meets a task in auth-required, reads the credential it needs,
// and resumes it with the credential, which the task then does not hold.
func TestJavaScriptClientAuthRequired(t *testing.T) {
	needJSSDK(t)
	var runs atomic.Int32
	c, _ := reposAgent(t, &runs, chattest.Calls(chat.ToolCall{ID: "c1", Name: "repos", Arguments: `{}`}), chattest.Text("Here they are."))
	s := serve(t, c, ServerConfig{Name: "Repos"})
	out := node(t, "a2a_auth_client.cjs", s.http.URL, "ghp-from-javascript")
	var got struct {
		First, Final, Answer, After string
		Pending                     []PendingView
		Leaked                      bool
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.First != "TASK_STATE_AUTH_REQUIRED" || len(got.Pending) != 1 || got.Pending[0].Credential != "github" {
		t.Fatalf("first: %s", out)
	}
	if got.Final != "TASK_STATE_COMPLETED" || got.Answer != "Here they are." || got.After != "TASK_STATE_COMPLETED" || got.Leaked {
		t.Fatalf("after the credential: %s", out)
	}
	if runs.Load() != 2 {
		t.Fatalf("the tool ran %d times, want 2", runs.Load())
	}
}
