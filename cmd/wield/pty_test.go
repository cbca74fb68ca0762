//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// The tests here run wield chat on a pseudo-terminal, as a user at a keyboard does, against the
// scripted OpenAI-compatible server.

// ptyWidth is the terminal's width in the tests.
const ptyWidth = 100

// ptySession is wield running on a pseudo-terminal.
type ptySession struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
	err  error
}

func startPTY(t *testing.T, env []string, args ...string) *ptySession {
	t.Helper()
	cmd := exec.Command(wieldBin, args...)
	cmd.Env = envWith(env, "TERM=xterm-256color")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: ptyWidth})
	if err != nil {
		t.Fatal(err)
	}
	s := &ptySession{t: t, cmd: cmd, tty: tty, done: make(chan struct{})}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			cmd.Process.Kill()
			<-s.done
		}
		tty.Close()
		if t.Failed() {
			t.Logf("the terminal showed:\n%s", s.screen())
		}
	})
	return s
}

// output is everything written to the terminal so far.
func (s *ptySession) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// screen is the text the terminal shows.
func (s *ptySession) screen() string { return screen(s.output(), ptyWidth) }

// patience bounds every wait for the program; it only turns a hang into a failure.
const patience = 30 * time.Second

// waitFor waits until the terminal's output since mark has each of wants, one after the other,
// and returns the mark after the last.
func (s *ptySession) waitFor(mark int, wants ...string) int {
	s.t.Helper()
	for _, want := range wants {
		mark = s.waitForOne(mark, want)
	}
	return mark
}

func (s *ptySession) waitForOne(mark int, want string) int {
	s.t.Helper()
	deadline := time.Now().Add(patience)
	for {
		out := s.output()
		if i := strings.Index(out[mark:], want); i >= 0 {
			return mark + i + len(want)
		}
		select {
		case <-s.done:
			s.t.Fatalf("wield exited (%v) before showing %q", s.err, want)
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waited in vain for %q", want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// typed sends keys, then waits for wants after mark as waitFor does.
func (s *ptySession) typed(mark int, keys string, wants ...string) int {
	s.t.Helper()
	s.send(keys)
	return s.waitFor(mark, wants...)
}

// send types keys.
func (s *ptySession) send(keys string) {
	s.t.Helper()
	if _, err := io.WriteString(s.tty, keys); err != nil {
		s.t.Fatal(err)
	}
}

// quit ends the chat with Ctrl-D and checks that wield exits with 0.
func (s *ptySession) quit() {
	s.t.Helper()
	s.send(keyCtrlD)
	if code := s.exit(); code != 0 {
		s.t.Fatalf("exit %d", code)
	}
}

// exit waits for wield to end and returns its exit code.
func (s *ptySession) exit() int {
	s.t.Helper()
	select {
	case <-s.done:
	case <-time.After(patience):
		s.t.Fatal("wield did not exit")
	}
	var ee *exec.ExitError
	if errors.As(s.err, &ee) {
		return ee.ExitCode()
	}
	if s.err != nil {
		s.t.Fatal(s.err)
	}
	return 0
}

// questions are the user messages of the chat requests, the last of each.
func questions(srv *fakeOpenAI) []string {
	var out []string
	for _, r := range srv.chatRequests() {
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if r.Messages[i].Role == "user" {
				out = append(out, text(r.Messages[i].Content))
				break
			}
		}
	}
	return out
}

const (
	keyUp    = "\x1b[A"
	keyLeft  = "\x1b[D"
	keyHome  = "\x01" // Ctrl-A
	keyRight = "\x1b[C"
	keyCtrlC = "\x03"
	keyCtrlD = "\x04"
)

func TestPTYLineEditingAndHistory(t *testing.T) {
	srv := newFakeOpenAI(t, reply{text: "Hello to you."})
	env := cleanEnv(t)
	args := []string{"chat", "--base-url", srv.v1(), "--model", "gpt-4o"}
	s := startPTY(t, env, args...)
	m := s.waitFor(0, "wield · openai/gpt-4o at "+srv.v1())
	m = s.waitFor(m, "> ")
	// Typed with a mistake, mended with the cursor keys: hllo → Home, Right, e → hello.
	m = s.typed(m, "hllo"+keyHome+keyRight+"e"+"\r", "Hello to you.", "tokens: 12 in, 3 out", "> ")
	// Up brings the question back.
	s.typed(m, keyUp+"\r", "Hello to you.", "> ")
	s.quit()
	if q := questions(srv); strings.Join(q, "|") != "hello|hello" {
		t.Fatalf("questions %q", q)
	}
	// The history is kept for the next chat.
	s = startPTY(t, env, args...)
	m = s.waitFor(0, "> ")
	s.typed(m, keyUp+" again\r", "Hello to you.", "> ")
	s.quit()
	if q := questions(srv); len(q) != 3 || q[2] != "hello again" {
		t.Fatalf("questions %q", q)
	}
	var state string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			state = filepath.Join(v, ".local", "state", "wield", "history")
		}
	}
	b, err := os.ReadFile(state)
	if err != nil || string(b) != "\"hello\"\n\"hello again\"\n" {
		t.Fatalf("history file %q, %v", b, err)
	}
}

func TestPTYMultiLineInput(t *testing.T) {
	srv := newFakeOpenAI(t, reply{text: "Got it."})
	s := startPTY(t, cleanEnv(t), "chat", "--base-url", srv.v1(), "--model", "gpt-4o")
	m := s.waitFor(0, "> ")
	// A line ending in \ goes on.
	m = s.typed(m, "first line\\\r", "… ")
	m = s.typed(m, "second line\r", "Got it.", "> ")
	// A paste of several lines waits for Enter.
	m = s.typed(m, "\x1b[200~one\ntwo\nthree\x1b[201~", "three")
	s.typed(m, " and four\r", "Got it.", "> ")
	s.quit()
	if q := questions(srv); len(q) != 2 || q[0] != "first line\nsecond line" || q[1] != "one\ntwo\nthree and four" {
		t.Fatalf("questions %q", q)
	}
}

// Ctrl-C while an answer streams stops the answer and returns to the prompt; the chat goes on
// with what was said kept; Ctrl-C at an empty prompt ends the chat.
func TestPTYCtrlCStopsAnswer(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	srv := newFakeOpenAI(t,
		reply{chunks: []string{"Counting: one,", " two,", " three."}, hold: hold},
		reply{text: "Yes, I stopped."},
	)
	s := startPTY(t, cleanEnv(t), "chat", "--base-url", srv.v1(), "--model", "gpt-4o")
	m := s.waitFor(0, "> ")
	m = s.typed(m, "count to three\r", "Counting: one,")
	m = s.typed(m, keyCtrlC, "(stopped)", "> ")
	m = s.typed(m, "did you stop?\r", "Yes, I stopped.", "> ")
	// Ctrl-C with something typed drops it, as a shell does.
	m = s.typed(m, "never mind"+keyCtrlC, "never mind^C", "> ")
	s.send(keyCtrlC)
	if code := s.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(s.output()[m:], "two,") {
		t.Fatal("the answer went on after Ctrl-C")
	}
	reqs := srv.chatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var conv []string
	for _, msg := range reqs[1].Messages {
		conv = append(conv, msg.Role+": "+text(msg.Content))
	}
	if got := strings.Join(conv, " | "); got != "user: count to three | assistant: Counting: one, [interrupted] | user: did you stop?" {
		t.Fatalf("second request: %s", got)
	}
}

// Output arriving while the user types (an alarm ringing) redraws the prompt and the line typed.
func TestPTYPromptRedrawnAfterAlarm(t *testing.T) {
	at := time.Now().In(tokyo).Add(4 * time.Second).Format("2006-01-02T15:04:05")
	args, _ := json.Marshal(map[string]string{"time": at, "label": "tea"})
	srv := newFakeOpenAI(t,
		reply{calls: [][2]string{{"setAlarm", string(args)}}},
		reply{text: "Alarm set."},
		reply{text: "Enjoy."},
	)
	s := startPTY(t, cleanEnv(t), "chat", "--base-url", srv.v1(), "--model", "gpt-4o")
	m := s.waitFor(0, "> ")
	m = s.typed(m, "wake me in a moment\r", "Alarm set.", "> ")
	m = s.typed(m, "half a sentence", "half a sentence", "⏰ tea")
	// After the alarm's line, the prompt and the line are drawn again, and typing goes on.
	m = s.waitFor(m, "> half a sentence")
	s.typed(m, ", whole\r", "Enjoy.", "> ")
	s.quit()
	if q := questions(srv); len(q) != 3 || q[2] != "half a sentence, whole" {
		t.Fatalf("questions %q", q)
	}
	shown := s.screen()
	if !strings.Contains(shown, "⏰ tea") || !strings.Contains(shown, "> half a sentence, whole") {
		t.Fatalf("screen:\n%s", shown)
	}
}

// One question on a terminal: the answer rendered, the auto-picked model named.
func TestPTYOneQuestionRendered(t *testing.T) {
	ol := fakeOllamaChat(t, "## Steps\n\n", "1. Boil **water**\n", "2. Add tea\n")
	s := startPTY(t, envWith(cleanEnv(t), "OLLAMA_HOST="+ol), "chat", "make tea")
	if code := s.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	shown := s.screen()
	for _, want := range []string{"wield · ollama/qwen3:4b at " + ol + " · 2 tools\npicked as the first model of the Ollama server that can call tools; --model chooses another", "Steps", "1. Boil water", "2. Add tea", "tokens: 12 in, 3 out"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the screen lacks %q:\n%s", want, shown)
		}
	}
	if strings.Contains(shown, "**water**") {
		t.Errorf("not rendered:\n%s", shown)
	}
}

// fakeOllamaChat is an Ollama server with one tool-capable model that streams chunks as the
// answer to every chat.
func fakeOllamaChat(t *testing.T, chunks ...string) string {
	srv := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			io.WriteString(w, `{"models":[{"name":"gemma3:1b"},{"name":"qwen3:4b"}]}`)
		case "/api/show":
			var req struct{ Model string }
			json.NewDecoder(r.Body).Decode(&req)
			if req.Model == "qwen3:4b" {
				io.WriteString(w, `{"capabilities":["completion","tools"]}`)
			} else {
				io.WriteString(w, `{"capabilities":["completion"]}`)
			}
		case "/api/chat":
			w.Header().Set("Content-Type", "application/x-ndjson")
			enc := json.NewEncoder(w)
			for _, c := range chunks {
				enc.Encode(map[string]any{"model": "qwen3:4b", "created_at": "2025-01-01T00:00:00Z",
					"message": map[string]any{"role": "assistant", "content": c}, "done": false})
			}
			enc.Encode(map[string]any{"model": "qwen3:4b", "created_at": "2025-01-01T00:00:00Z",
				"message": map[string]any{"role": "assistant", "content": ""}, "done": true, "done_reason": "stop",
				"prompt_eval_count": 12, "eval_count": 3})
		default:
			http.NotFound(w, r)
		}
	})
	return srv.URL
}

// On a terminal, a status line shows the MCP servers starting, and the spinner of a running
// MCP tool shows its progress.
func TestPTYMCPStatusAndProgress(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"counter": map[string]any{"command": self, "env": map[string]string{"WIELD_TEST_MCP_SERVER": "1"}},
	}})
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(cfg, b, 0o644)
	srv := newFakeOpenAI(t, reply{calls: [][2]string{{"slowCount", "{}"}}}, reply{text: "Counted."})
	s := startPTY(t, cleanEnv(t), "chat", "--builtin=false", "--mcp-config", cfg, "--base-url", srv.v1(), "--model", "gpt-4o", "count")
	if code := s.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	// Colors aside; progress is best effort, so any step will do.
	out := regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(s.output(), "")
	if !regexp.MustCompile(`slowCount \{\} [123]/3 step [123]`).MatchString(out) {
		t.Errorf("the spinner did not show the progress:\n%q", out)
	}
	for _, want := range []string{"starting MCP servers (0 of 1 ready): counter…", "Counted."} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal did not show %q:\n%q", want, out)
		}
	}
	shown := s.screen()
	if strings.Contains(shown, "starting MCP servers") || !strings.Contains(shown, "✓ slowCount {}") {
		t.Errorf("screen:\n%s", shown)
	}
}

// On a terminal a chat asks before a destructive call of a real MCP server (the reference
// filesystem server): y runs it, n refuses it with the reason given, e edits the arguments
// (checked against the tool's schema), a approves the tool for the rest of the chat.
func TestPTYApproval(t *testing.T) {
	cfg, dir := filesConfig(t)
	file := func(name string) string { return filepath.Join(dir, name) }
	srv := newFakeOpenAI(t,
		reply{calls: [][2]string{{"write_file", writeCall(file("a.txt"), "one")}}},
		reply{text: "Wrote a."},
		reply{calls: [][2]string{{"write_file", writeCall(file("b.txt"), "two")}}},
		reply{text: "Did not write b."},
		reply{calls: [][2]string{{"write_file", writeCall(file("c.txt"), "three")}}},
		reply{text: "Wrote what you said."},
		reply{calls: [][2]string{{"write_file", writeCall(file("e1.txt"), "x")}, {"write_file", writeCall(file("e2.txt"), "y")}}},
		reply{text: "Wrote both."},
		reply{calls: [][2]string{{"write_file", writeCall(file("f.txt"), "z")}}},
		reply{text: "Wrote f."},
	)
	s := startPTY(t, cleanEnv(t), "chat", "--builtin=false", "--mcp-config", cfg, "--base-url", srv.v1(), "--model", "gpt-4o")
	m := s.waitFor(0, "> ")
	const question = "run write_file? [y]es [n]o [a]lways [e]dit: "

	m = s.typed(m, "write a\r", "write_file (mcp:files) wants to run with", `"content": "one"`, question)
	m = s.typed(m, "y\r", "Wrote a.", "> ")

	m = s.typed(m, "write b\r", question)
	m = s.typed(m, "maybe\r", "answer y to run it", question)
	m = s.typed(m, "n not now\r", "Did not write b.", "> ")

	m = s.typed(m, "write c\r", question)
	m = s.typed(m, "e\r", `arguments: {"content":"three","path":`)
	// Ctrl-U clears the line; arguments the schema refuses are asked again.
	m = s.typed(m, "\x15"+`{"path":1}`+"\r", "not valid for write_file", "arguments: ")
	m = s.typed(m, "\x15"+writeCall(file("d.txt"), "edited")+"\r", "Wrote what you said.", "> ")

	m = s.typed(m, "write e twice\r", question)
	m = s.typed(m, "a\r", "Wrote both.", "> ")
	s.typed(m, "write f\r", "Wrote f.", "> ")
	s.quit()

	if n := strings.Count(s.output(), "wants to run with"); n != 4 {
		t.Errorf("asked %d times, want 4 (a, b, c, the first e)", n)
	}
	for name, want := range map[string]string{"a.txt": "one", "b.txt": "", "c.txt": "", "d.txt": "edited", "e1.txt": "x", "e2.txt": "y", "f.txt": "z"} {
		b, err := os.ReadFile(file(name))
		if want == "" && !os.IsNotExist(err) || want != "" && string(b) != want {
			t.Errorf("%s holds %q (%v), want %q", name, b, err, want)
		}
	}
	reqs := srv.chatRequests()
	if len(reqs) != 10 {
		t.Fatalf("%d model calls", len(reqs))
	}
	if got := toolResults(reqs[3]); len(got) != 2 || got[1] != "Error: Not run: the user declined this call: not now" {
		t.Errorf("the model read %q", got)
	}
}

// Ctrl-C at the question stops the answer and leaves the turn in the session; a later chat that
// continues the session asks again, and the turn goes on where it stopped. A one-question chat
// asks too.
func TestPTYApprovalTakenUpLater(t *testing.T) {
	cfg, dir := filesConfig(t)
	target := filepath.Join(dir, "g.txt")
	srv := newFakeOpenAI(t, reply{calls: [][2]string{{"write_file", writeCall(target, "gee")}}}, reply{text: "Wrote g."})
	env := cleanEnv(t)
	args := []string{"chat", "--builtin=false", "--mcp-config", cfg, "--base-url", srv.v1(), "--model", "gpt-4o"}
	s := startPTY(t, env, append(args, "--session", "files")...)
	m := s.waitFor(0, "> ")
	m = s.typed(m, "write g\r", "[e]dit: ")
	s.typed(m, keyCtrlC, "(stopped)", "> ")
	s.quit()
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("written after Ctrl-C: %v", err)
	}

	s = startPTY(t, env, append(args, "--continue")...)
	m = s.waitFor(0, "the last answer of session files stopped at a question; taking it up")
	m = s.waitFor(m, "write_file (mcp:files) wants to run with", "[e]dit: ")
	s.typed(m, "y\r", "Wrote g.", "> ")
	s.quit()
	if b, err := os.ReadFile(target); err != nil || string(b) != "gee" {
		t.Fatalf("g.txt holds %q, %v", b, err)
	}
	if n := len(srv.chatRequests()); n != 2 {
		t.Errorf("%d model calls, want 2: the turn went on where it stopped", n)
	}

	// One question on a terminal asks as well; Ctrl-C there ends the command.
	os.Remove(target)
	srv = newFakeOpenAI(t, reply{calls: [][2]string{{"write_file", writeCall(target, "gee")}}}, reply{text: "Wrote g."})
	args = []string{"chat", "--builtin=false", "--mcp-config", cfg, "--base-url", srv.v1(), "--model", "gpt-4o", "write g"}
	s = startPTY(t, env, args...)
	m = s.waitFor(0, "[e]dit: ")
	s.typed(m, "y\r", "Wrote g.")
	if code := s.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatal(err)
	}
	srv = newFakeOpenAI(t, reply{calls: [][2]string{{"write_file", writeCall(target, "gee")}}}, reply{text: "Wrote g."})
	args[5] = srv.v1()
	s = startPTY(t, env, args...)
	s.waitFor(0, "[e]dit: ")
	s.send(keyCtrlC)
	if code := s.exit(); code != exitInterrupted {
		t.Fatalf("exit %d", code)
	}
	if n := len(srv.chatRequests()); n != 1 {
		t.Errorf("%d model calls after Ctrl-C at the question", n)
	}
}
