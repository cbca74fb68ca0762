package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
)

const keyTab = "\t"

// The commands of an interactive chat: /help lists them, Tab completes them and their arguments,
// an unknown one is refused and never sent, /model, /clear and /session change the chat.
func TestPTYSlashCommands(t *testing.T) {
	srv := newFakeOpenAI(t, reply{text: "Hello."})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes-for-wield.txt"), []byte("buy milk"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startPTY(t, cleanEnv(t), "chat", "--base-url", srv.v1(), "--model", "gpt-4o")
	m := s.waitFor(0, "/help lists commands", "> ")
	// Tab completes a command; Enter runs it.
	m = s.typed(m, "/he"+keyTab, "/help ")
	m = s.typed(m, "\r", "/model [NAME]", "/session [NAME]", "/attach FILE", "> ")
	// Several candidates are listed.
	m = s.typed(m, "/"+keyTab, "/help  /model  /clear  /session  /tools  /role  /attach  /prompt  /compact  /exit")
	s.send("\x15") // Ctrl-U: the line is emptied
	m = s.typed(m, "/nope\r", "wield: unknown command /nope; the commands are /help /model", "> ")
	m = s.typed(m, "/to"+keyTab+"\r", "getCurrentDateTime", "> ")
	// A path after /attach.
	m = s.typed(m, "/attach "+dir+"/notes-f"+keyTab, "notes-for-wield.txt")
	m = s.typed(m, "\r", "attached", "> ")
	m = s.typed(m, "what is this?\r", "Hello.", "> ")
	// A model name, from the server's list.
	m = s.typed(m, "/model openai/gpt-4o-m"+keyTab, "/model openai/gpt-4o-mini")
	m = s.typed(m, "\r", "model openai/gpt-4o-mini from now on", "> ")
	m = s.typed(m, "/model\r", "model openai/gpt-4o-mini", "> ")
	m = s.typed(m, "and now?\r", "Hello.", "> ")
	// /clear starts afresh: the next question goes without the ones before.
	m = s.typed(m, "/clear\r", "a new conversation", "> ")
	m = s.typed(m, "fresh?\r", "Hello.", "> ")
	// /session names the chat's session and goes to another; Tab completes the names kept.
	m = s.typed(m, "/session planning\r", "session planning (0 messages)", "> ")
	m = s.typed(m, "plan it\r", "Hello.", "> ")
	m = s.typed(m, "/session pla"+keyTab, "/session planning ")
	s.typed(m, "\r", "session planning (2 messages)", "> ")
	s.typed(m, "//etc/hosts holds what?\r", "Hello.", "> ")
	s.quit()

	reqs := srv.chatRequests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5 (no command sent): %q", len(reqs), questions(srv))
	}
	if q := questions(srv); q[4] != "/etc/hosts holds what?" {
		t.Errorf("a question starting with // sent as %q", q[4])
	}
	if !strings.Contains(text(reqs[0].Messages[len(reqs[0].Messages)-1].Content), "buy milk") && !strings.Contains(string(srv.requests()[0].Body), "buy milk") {
		t.Errorf("the file attached with /attach was not sent")
	}
	if reqs[0].Model != "gpt-4o" || reqs[1].Model != "gpt-4o-mini" || reqs[2].Model != "gpt-4o-mini" {
		t.Errorf("models %s, %s, %s", reqs[0].Model, reqs[1].Model, reqs[2].Model)
	}
	users := func(r sentRequest) int {
		n := 0
		for _, m := range r.Messages {
			if m.Role == "user" {
				n++
			}
		}
		return n
	}
	if users(reqs[1]) != 2 || users(reqs[2]) != 1 || users(reqs[3]) != 1 {
		t.Errorf("user messages sent: %d, %d, %d; want 2, then 1 after /clear and 1 in a new session", users(reqs[1]), users(reqs[2]), users(reqs[3]))
	}
}

// Without a terminal (--lines) the commands work too, and an unknown one is not sent.
func TestChatSlashCommandsLines(t *testing.T) {
	m := chattest.New(chattest.Text("ok"))
	_, stderr, code := run(t, keyEnv(t), m, "/nope\n/help\nhi\n", "chat", "--lines")
	if code != 0 || m.Requests() != 1 || !strings.Contains(stderr, "unknown command /nope") || !strings.Contains(stderr, "/model [NAME]") {
		t.Fatalf("exit %d, %d requests, stderr %q", code, m.Requests(), stderr)
	}
}

// --show-results (--td) prints each tool's result under its call, shortened; a Markdown answer
// taller than the terminal is rendered whole.
func TestPTYShowResultsAndTallMarkdown(t *testing.T) {
	var tall strings.Builder
	tall.WriteString("Here:\n\n")
	for i := range 60 {
		tall.WriteString("- entry **" + strings.Repeat("x", i%7+1) + "**\n")
	}
	tall.WriteString("\n```\ncode line\n```\n\nDone.\n")
	srv := newFakeOpenAI(t, reply{calls: [][2]string{{"getCurrentDateTime", `{}`}}}, reply{text: tall.String()})
	s := startPTY(t, envWith(cleanEnv(t), "TZ=Asia/Tokyo"), "chat", "--td", "--base-url", srv.v1(), "--model", "gpt-4o", "list")
	if code := s.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	out := s.output()
	if !strings.Contains(out, "← ") || !strings.Contains(out, "Asia/Tokyo") {
		t.Fatalf("no tool result shown:\n%s", s.screen())
	}
	got := screen(out, ptyWidth)
	if strings.Contains(got, "**") || strings.Contains(got, "```") || strings.Count(got, "• entry") != 60 || !strings.Contains(got, "Done.") {
		t.Fatalf("the tall answer is not rendered whole:\n%s", got)
	}
}

// Without a terminal --show-results prints the results too, long ones shortened.
func TestShowResultsShortened(t *testing.T) {
	long := strings.Repeat("line of a long result\n", 20)
	m := chattest.New(chattest.Calls(chattest.Call("getCurrentDateTime", `{}`)), chattest.Text("ok"))
	_, stderr, code := run(t, keyEnv(t), m, "", "chat", "--show-results", "what time?")
	if code != 0 || !strings.Contains(stderr, "tool getCurrentDateTime") || !strings.Contains(stderr, "← ") || !strings.Contains(stderr, "Asia/Tokyo") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var b strings.Builder
	d := newTextDisplay(io.Discard, &b, textOptions{showResults: true})
	d.showResult(chat.ToolResult{Name: "x", Content: long + strings.Repeat("y", 500)})
	if n := strings.Count(b.String(), "\n"); n != shownResultLines+1 || !strings.Contains(b.String(), "… 13 more lines") {
		t.Fatalf("shortened to %d lines:\n%s", n, b.String())
	}
}
