package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
)

// run runs the command in process with env as its whole environment and model as every model.
func run(t *testing.T, env map[string]string, model chat.Model, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errw bytes.Buffer
	a := newApp(strings.NewReader(stdin), &out, &errw, func(k string) string { return env[k] })
	if model != nil {
		a.modelOverride = func(modelSpec) (chat.Model, error) { return model, nil }
	}
	code = a.run(t.Context(), args)
	return out.String(), errw.String(), code
}

// keyEnv is an environment that selects a model without reaching any network.
func keyEnv(t *testing.T) map[string]string {
	return map[string]string{"OPENAI_API_KEY": "test-key", "XDG_DATA_HOME": t.TempDir(), "TZ": "Asia/Tokyo"}
}

func TestChatOneQuestion(t *testing.T) {
	m := chattest.New(
		chattest.Calls(chattest.Call("getCurrentDateTime", `{}`)),
		chattest.Text("Tomorrow is Tuesday."),
	)
	stdout, stderr, code := run(t, keyEnv(t), m, "", "chat", "--verbose", "What day is tomorrow?")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if stdout != "Tomorrow is Tuesday.\n" {
		t.Errorf("stdout %q", stdout)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 2 || lines[0] != "tool getCurrentDateTime {}" || !strings.HasPrefix(lines[1], "tool getCurrentDateTime done in ") {
		t.Errorf("stderr %q", stderr)
	}
	prompts := m.Prompts()
	if len(prompts) != 2 {
		t.Fatalf("%d model calls", len(prompts))
	}
	last := prompts[1].Messages[len(prompts[1].Messages)-1]
	if last.Role != chat.RoleTool || !strings.Contains(last.ToolResults[0].Content, time.Now().In(tokyo).Format("2006-01-02")) {
		t.Errorf("tool result sent to the model: %v", last)
	}
	var names []string
	for _, tl := range prompts[0].Options.Tools {
		names = append(names, tl.Definition().Name)
	}
	if strings.Join(names, ",") != "getCurrentDateTime,setAlarm" {
		t.Errorf("tools offered: %v", names)
	}
}

func TestChatToolError(t *testing.T) {
	m := chattest.New(
		chattest.Calls(chattest.Call("setAlarm", `{"time": "whenever"}`)),
		chattest.Text("I could not set it."),
	)
	stdout, stderr, code := run(t, keyEnv(t), m, "", "chat", "-v", "--system", "Be brief.", "Set an alarm")
	if code != exitOK || stdout != "I could not set it.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, `tool setAlarm {"time":"whenever"}`) || !strings.Contains(stderr, `tool setAlarm failed after`) ||
		!strings.Contains(stderr, `not in ISO-8601 format`) {
		t.Errorf("stderr %q", stderr)
	}
	if p := m.Prompts()[0]; p.Messages[0].Role != chat.RoleSystem || p.Messages[0].Content != "Be brief." {
		t.Errorf("system message: %v", p.Messages[0])
	}
}

func TestChatJSON(t *testing.T) {
	m := chattest.New(
		chattest.Calls(chattest.Call("getCurrentDateTime", `{}`)),
		chattest.Text("Tomorrow is Tuesday.").WithUsage(10, 5),
	)
	stdout, stderr, code := run(t, keyEnv(t), m, "", "chat", "--json", "What day is tomorrow?")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var text strings.Builder
	evs := jsonEvents(t, stdout)
	for _, ev := range evs {
		switch ev.Type {
		case "text":
			text.WriteString(ev.Text)
		case "tool_end":
			if ev.Tool != "getCurrentDateTime" || ev.DurationMS == nil || !strings.Contains(ev.Result, "Asia/Tokyo") {
				t.Errorf("tool_end %+v", ev)
			}
		case "done":
			if ev.Text != "Tomorrow is Tuesday." || ev.Outcome != "answer" || ev.ModelCalls != 2 || ev.Usage == nil {
				t.Errorf("done %+v", ev)
			}
		}
	}
	if got := strings.Join(eventTypes(evs), ","); got != "tool_start,tool_end,text,done" {
		t.Errorf("event types %s", got)
	}
	if text.String() != "Tomorrow is Tuesday." {
		t.Errorf("text %q", text.String())
	}
}

// jsonEvents decodes the lines chat --json printed, failing t on one that is not an event.
func jsonEvents(t *testing.T, stdout string) []jsonEvent {
	t.Helper()
	var evs []jsonEvent
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var ev jsonEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// eventTypes are the types of evs, a run of events of one type counted once.
func eventTypes(evs []jsonEvent) []string {
	var types []string
	for _, ev := range evs {
		if len(types) == 0 || types[len(types)-1] != ev.Type {
			types = append(types, ev.Type)
		}
	}
	return types
}

func TestChatModelFails(t *testing.T) {
	m := chattest.New(chattest.Fail(errors.New("the service is down")))
	stdout, stderr, code := run(t, keyEnv(t), m, "", "chat", "hi")
	if code != exitError || stdout != "" || !strings.Contains(stderr, "the service is down") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	m = chattest.New(chattest.Fail(errors.New("the service is down")))
	stdout, _, code = run(t, keyEnv(t), m, "", "chat", "--json", "hi")
	if code != exitError || !strings.Contains(stdout, `"type":"error"`) {
		t.Fatalf("--json: exit %d, stdout %q", code, stdout)
	}
}

func TestChatInteractive(t *testing.T) {
	m := chattest.New(chattest.Text("Hello, Ada."), chattest.Text("Your name is Ada."))
	stdout, stderr, code := run(t, keyEnv(t), m, "My name is Ada.\n\n  \nWhat is my name?\n/exit\nnever asked\n", "chat", "--lines")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if stdout != "Hello, Ada.\nYour name is Ada.\n" {
		t.Errorf("stdout %q", stdout)
	}
	prompts := m.Prompts()
	if len(prompts) != 2 {
		t.Fatalf("%d model calls", len(prompts))
	}
	var conv []string
	for _, msg := range prompts[1].Messages {
		conv = append(conv, string(msg.Role)+": "+msg.Content)
	}
	if got := strings.Join(conv, " | "); got != "user: My name is Ada. | assistant: Hello, Ada. | user: What is my name?" {
		t.Errorf("second turn sent %s", got)
	}
}

func TestChatPromptFromStdin(t *testing.T) {
	m := chattest.New(chattest.Text("Two lines read."))
	stdout, _, code := run(t, keyEnv(t), m, "first line\nsecond line\n", "chat", "-")
	if code != exitOK || stdout != "Two lines read.\n" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	if got := m.Prompts()[0].Messages[0].Content; got != "first line\nsecond line\n" {
		t.Errorf("prompt %q", got)
	}
}

func TestChatSessionResumes(t *testing.T) {
	env := keyEnv(t)
	m := chattest.New(chattest.Text("Noted: the code is 7."))
	if _, stderr, code := run(t, env, m, "", "chat", "--session", "work", "The code is 7."); code != exitOK {
		t.Fatalf("first run: exit %d, %s", code, stderr)
	}
	m2 := chattest.New(chattest.Text("The code is 7."))
	stdout, stderr, code := run(t, env, m2, "", "chat", "--session", "work", "What is the code?")
	if code != exitOK || stdout != "The code is 7.\n" {
		t.Fatalf("second run: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	msgs := m2.Prompts()[0].Messages
	if len(msgs) != 3 || msgs[0].Content != "The code is 7." || msgs[1].Content != "Noted: the code is 7." || msgs[2].Content != "What is the code?" {
		t.Fatalf("resumed conversation: %v", msgs)
	}
	// Another session starts empty.
	m3 := chattest.New(chattest.Text("Which code?"))
	run(t, env, m3, "", "chat", "--session", "other", "What is the code?")
	if msgs := m3.Prompts()[0].Messages; len(msgs) != 1 {
		t.Fatalf("a new session sent %v", msgs)
	}
}

func TestChatMaxToolCalls(t *testing.T) {
	m := chattest.New(
		chattest.Calls(chattest.Call("getCurrentDateTime", `{}`), chattest.Call("getCurrentDateTime", `{}`)),
		chattest.Text("Done."),
	)
	stdout, stderr, code := run(t, keyEnv(t), m, "", "chat", "--max-tool-calls", "1", "Twice, please")
	if code != exitOK || stdout != "Done.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	results := m.Prompts()[1].Messages[len(m.Prompts()[1].Messages)-1].ToolResults
	if len(results) != 2 || results[0].IsError || !results[1].IsError {
		t.Fatalf("results %+v: want the second call refused", results)
	}
}

func TestChatUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"chat", "--max-tool-calls", "-1", "hi"}, "--max-tool-calls must not be negative"},
		{[]string{"chat", "--model", "nosuch/model", "hi"}, `--model "nosuch/model": use PROVIDER/NAME`},
		{[]string{"chat", "--model", "openai/", "hi"}, "names no model"},
		{[]string{"chat", "--base-url", "http://127.0.0.1:1/v1", "hi"}, "--base-url needs --model NAME"},
		{[]string{"chat", "--model", "anthropic/claude", "--base-url", "http://x", "hi"}, "--base-url is for OpenAI-compatible servers"},
		{[]string{"chat", "--session", " x", "hi"}, "--session"},
		{[]string{"chat", "--session", "x", "--continue", "hi"}, "--session and --continue: choose one"},
		{[]string{"chat", "--json", "--raw", "hi"}, "--json and --raw: choose one"},
		{[]string{"chat", " ", " "}, "the prompt is empty"},
		{[]string{"chat", "--nope"}, "unknown flag: --nope"},
		{[]string{"chat", ""}, "the prompt is empty"},
	} {
		_, stderr, code := run(t, keyEnv(t), chattest.New(), "", tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, exitUsage, tt.want)
		}
	}
}

func TestChatInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	m := chattest.New(chattest.Respond(func(ctx context.Context, _ *chat.Prompt) (*chat.Response, error) {
		cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	var out, errw bytes.Buffer
	env := keyEnv(t)
	a := newApp(strings.NewReader(""), &out, &errw, func(k string) string { return env[k] })
	a.modelOverride = func(modelSpec) (chat.Model, error) { return m, nil }
	if code := a.run(ctx, []string{"chat", "hi"}); code != exitInterrupted {
		t.Fatalf("exit %d, stderr %q", code, errw.String())
	}
}

var tokyo = func() *time.Location {
	loc, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		panic(err)
	}
	return loc
}()

func TestChatToolSearch(t *testing.T) {
	m := chattest.New(
		chattest.Calls(chattest.Call("toolSearchTool", `{"query":"set an alarm"}`)),
		chattest.Calls(chattest.Call("setAlarm", `{"time":"2999-01-01T07:00:00"}`)),
		chattest.Text("Your alarm is set."),
	)
	stdout, stderr, code := run(t, keyEnv(t), m, "", "chat", "-v", "--tool-search", "Wake me up in the year 2999")
	if code != exitOK || stdout != "Your alarm is set.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	var offered []string
	for i, p := range m.Prompts() {
		var names []string
		for _, tl := range p.Options.Tools {
			names = append(names, tl.Definition().Name)
		}
		offered = append(offered, fmt.Sprintf("%d:%s", i+1, strings.Join(names, ",")))
	}
	if got := strings.Join(offered, " "); !strings.HasPrefix(got, "1:toolSearchTool 2:toolSearchTool,setAlarm") {
		t.Errorf("tools offered per request: %s", got)
	}
	if !strings.Contains(stderr, "tool toolSearchTool ") || !strings.Contains(stderr, "tool setAlarm done in") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestSessionsCommand(t *testing.T) {
	env := keyEnv(t)
	if out, _, code := run(t, env, nil, "", "sessions", "list"); code != 0 || out != "" {
		t.Fatalf("list before any session: %d %q", code, out)
	}
	for _, name := range []string{"work", "home"} {
		if _, stderr, code := run(t, env, chattest.New(chattest.Text("ok")), "", "chat", "--session", name, "hi"); code != 0 {
			t.Fatalf("chat: %s", stderr)
		}
	}
	if out, _, code := run(t, env, nil, "", "sessions", "list"); code != 0 || strings.Join(sessionNames(out), " ") != "home work" {
		t.Fatalf("list: %d %q", code, out)
	}
	if _, stderr, code := run(t, env, nil, "", "sessions", "delete", "work"); code != 0 {
		t.Fatalf("delete: %s", stderr)
	}
	if out, _, _ := run(t, env, nil, "", "sessions", "list"); strings.Join(sessionNames(out), " ") != "home" {
		t.Fatalf("list after delete: %q", out)
	}
	if _, stderr, code := run(t, env, nil, "", "sessions", "delete", "work"); code != exitError || !strings.Contains(stderr, `no session named "work"`) {
		t.Fatalf("delete twice: %d %q", code, stderr)
	}
	if _, _, code := run(t, env, nil, "", "sessions", "delete"); code != exitUsage {
		t.Fatalf("delete without a name: %d", code)
	}
}

// What is piped to a chat without a prompt is one prompt, as llm and aichat take it; --lines
// asks one question per line.
func TestChatPipedInputIsOnePrompt(t *testing.T) {
	srv := newFakeOpenAI(t, reply{text: "Summarised."})
	r := wield(t, cleanEnv(t), "buy milk\ncall Ada\n/exit\n", "chat", "--base-url", srv.v1(), "--model", "gpt-4o")
	if r.code != 0 || r.stdout != "Summarised.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if q := questions(srv); len(q) != 1 || q[0] != "buy milk\ncall Ada\n/exit" {
		t.Fatalf("questions sent %q, want the whole input as one", q)
	}
	srv = newFakeOpenAI(t, reply{text: "One."}, reply{text: "Two."})
	r = wield(t, cleanEnv(t), "buy milk\ncall Ada\n", "chat", "--lines", "--base-url", srv.v1(), "--model", "gpt-4o")
	if q := questions(srv); r.code != 0 || len(q) != 2 || q[0] != "buy milk" || q[1] != "call Ada" {
		t.Fatalf("--lines: exit %d, questions %q, %s", r.code, q, r.stderr)
	}
	r = wield(t, cleanEnv(t), "", "chat", "--lines", "--base-url", srv.v1(), "--model", "gpt-4o", "hi")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--lines reads the questions from standard input") {
		t.Fatalf("--lines with a prompt: exit %d, %s", r.code, r.stderr)
	}
}

// sessionNames are the names sessions list prints, the first column.
func sessionNames(out string) []string {
	var names []string
	for line := range strings.Lines(out) {
		if f := strings.Fields(line); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names
}
