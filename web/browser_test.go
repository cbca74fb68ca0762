package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/tool"
)

// browser opens a headless Chromium tab of width×height; $WIELD_CHROMIUM (set by
// scripts/setup/40-chromium.sh) names the browser.
func browser(t *testing.T, width, height int) context.Context {
	t.Helper()
	path := testenv.Env(t, "WIELD_CHROMIUM")
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(width, height))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelTime)
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatal(err)
	}
	return ctx
}

func must(t *testing.T, ctx context.Context, actions ...chromedp.Action) {
	t.Helper()
	for i, a := range actions {
		if err := chromedp.Run(ctx, a); err != nil {
			fail(t, ctx, fmt.Errorf("step %d (%T): %w", i, a, err))
		}
	}
}

// fail ends t with err and what the page shows.
func fail(t *testing.T, ctx context.Context, err error) {
	t.Helper()
	{
		var state string
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		chromedp.Run(sctx, chromedp.Evaluate(`document.getElementById("status").textContent + " | " + document.getElementById("log").innerText`, &state))
		t.Fatalf("%v; the page says: %s", err, state)
	}
}

// waitText waits until the element's text contains want.
func waitText(sel, want string) chromedp.Action {
	js := `(() => { const e = document.querySelector(` + jsString(sel) + `); return !!e && e.textContent.includes(` + jsString(want) + `); })()`
	return chromedp.Poll(js, nil, chromedp.WithPollingInterval(20*time.Millisecond))
}

// setValue sets a field's value as typing would leave it.
func setValue(sel, v string) chromedp.Action {
	return chromedp.Evaluate(`document.querySelector(`+jsString(sel)+`).value = `+jsString(v), nil)
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// screenshot keeps the page as name.png in $WIELD_SCREENSHOTS, or the test's temporary
// directory.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("WIELD_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var png []byte
	must(t, ctx, chromedp.FullScreenshot(&png, 100))
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", p)
}

func ask(q string) chromedp.Action {
	return chromedp.Tasks{chromedp.WaitVisible("body[data-ready]", chromedp.ByQuery), chromedp.SendKeys("#question", q, chromedp.ByQuery), chromedp.KeyEvent(kb.Enter)}
}

// A question typed and sent with Enter streams its answer into the page; the page fits a
// phone-width window as well as 1280×800.
func TestPageStreamsAnswer(t *testing.T) {
	answer := "Forty-two, said in many small pieces so that it streams."
	f := newFixture(t, nil, chattest.Text(answer).WithUsage(11, 7))
	ctx := browser(t, 1280, 800)
	must(t, ctx, chromedp.Navigate(f.url()), ask("What is the answer?"),
		waitText(".msg.assistant", answer), waitText("#status", "11 in, 7 out"))
	var url string
	must(t, ctx, chromedp.Location(&url))
	if strings.Contains(url, "token") {
		t.Fatalf("the token stayed in the address bar: %s", url)
	}
	if p := f.script.Prompt(0); p == nil || !strings.Contains(p.Messages[len(p.Messages)-1].Content, "What is the answer?") {
		t.Fatalf("the model read %v", p)
	}
	screenshot(t, ctx, "answer-1280x800")

	must(t, ctx, chromedp.EmulateViewport(390, 844))
	var overflow bool
	must(t, ctx, chromedp.Evaluate(`document.documentElement.scrollWidth > document.documentElement.clientWidth`, &overflow))
	if overflow {
		t.Fatal("the page is wider than a phone's window")
	}
	screenshot(t, ctx, "answer-390x844")
}

// A long argument appears in the call's card while the model is still writing it.
func TestPageArgumentsInPieces(t *testing.T) {
	long := strings.Repeat("a line of the note being written; ", 20)
	args, _ := json.Marshal(map[string]string{"text": long})
	f := newFixture(t, nil,
		chattest.Calls(chat.ToolCall{ID: "c1", Name: "write_note", Arguments: string(args)}),
		chattest.Text("Noted."))
	f.model.hold, f.model.release = 40, make(chan struct{})
	ctx := browser(t, 1280, 800)
	must(t, ctx, chromedp.Navigate(f.url()), ask("Write a long note"),
		waitText(`.call[data-tool="write_note"] .state`, "writing arguments"))
	// The stream holds at its 40th chunk: part of the argument is shown, not all of it.
	var part string
	must(t, ctx, chromedp.Poll(`(() => { const e = document.querySelector(".call .args"); return e && e.textContent.length > 20 ? e.textContent : false })()`, &part))
	if !strings.HasPrefix(string(args), part) || len(part) >= len(args) {
		t.Fatalf("part way, the page shows %q", part)
	}
	screenshot(t, ctx, "arguments-streaming")
	close(f.model.release)
	must(t, ctx, waitText(".call .result", "written"), waitText(".msg.assistant", "Noted."),
		waitText(".call .args", strings.TrimSpace(long)))
	if got := f.tools["write_note"].Args(); len(got) != 1 || got[0] != string(args) {
		t.Fatalf("the tool ran with %q", got)
	}
}

// A destructive tool waits for the button; Enter on the focused Approve runs it once.
func TestPageApprove(t *testing.T) {
	f := newFixture(t, nil,
		chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete_file", Arguments: `{"path":"/tmp/x"}`}),
		chattest.Text("Deleted it."))
	ctx := browser(t, 1280, 800)
	must(t, ctx, chromedp.Navigate(f.url()), ask("Delete /tmp/x"),
		waitText(".approval", "Run delete_file?"), waitText(`.call[data-tool="delete_file"] .state`, "waiting for approval"))
	if n := len(f.tools["delete_file"].Args()); n != 0 {
		t.Fatalf("ran %d times before approval", n)
	}
	screenshot(t, ctx, "approval")
	var focused string
	must(t, ctx, chromedp.Evaluate(`document.activeElement.textContent`, &focused))
	if focused != "Approve" {
		t.Fatalf("focus is on %q, not Approve", focused)
	}
	must(t, ctx, chromedp.KeyEvent(kb.Enter), waitText("#log", "Deleted it."),
		waitText(`.call[data-tool="delete_file"] .result`, "deleted"))
	if got := f.tools["delete_file"].Args(); len(got) != 1 || got[0] != `{"path":"/tmp/x"}` {
		t.Fatalf("the tool ran with %q", got)
	}
}

// Rejecting with a reason tells the model why, and the tool does not run.
func TestPageRejectWithReason(t *testing.T) {
	f := newFixture(t, nil,
		chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete_file", Arguments: `{"path":"/etc"}`}),
		chattest.Text("I will not delete it."))
	ctx := browser(t, 1280, 800)
	must(t, ctx, chromedp.Navigate(f.url()), ask("Delete /etc"),
		chromedp.WaitVisible(".approval .reason", chromedp.ByQuery),
		chromedp.SendKeys(".approval .reason", "that is the system's configuration", chromedp.ByQuery),
		chromedp.Click(".approval .reject", chromedp.ByQuery),
		waitText(".msg.assistant", "I will not delete it."))
	if n := len(f.tools["delete_file"].Args()); n != 0 {
		t.Fatalf("a rejected call ran %d times", n)
	}
	res := f.script.ToolResults(t, 1)
	if len(res) != 1 || !strings.Contains(res[0].Content, "that is the system's configuration") {
		t.Fatalf("the model read %v", res)
	}
}

// The arguments are edited in a form made from the tool's schema; a value the schema refuses is
// refused in the page, and nothing is sent until it is right.
func TestPageEditArguments(t *testing.T) {
	f := newFixture(t, nil,
		chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete_file", Arguments: `{"path":"/tmp/a","copies":2}`}),
		chattest.Text("Done as edited."))
	ctx := browser(t, 1280, 800)
	must(t, ctx, chromedp.Navigate(f.url()), ask("Delete /tmp/a"),
		chromedp.WaitVisible(".approval .edit", chromedp.ByQuery),
		chromedp.Click(".approval .edit", chromedp.ByQuery),
		chromedp.WaitVisible(`.schema-form [name="copies"]`, chromedp.ByQuery),
		setValue(`.schema-form [name="copies"]`, "99"),
		chromedp.Click(`.schema-form button[type="submit"]`, chromedp.ByQuery),
		waitText(".schema-form", "At most 10."))
	screenshot(t, ctx, "edit-refused")
	var status string
	must(t, ctx, chromedp.Text("#status", &status, chromedp.ByQuery))
	if status != "Waiting for your decision." || f.script.Requests() != 1 || len(f.tools["delete_file"].Args()) != 0 {
		t.Fatalf("an invalid form went on: status %q, %d requests", status, f.script.Requests())
	}
	must(t, ctx,
		setValue(`.schema-form [name="copies"]`, ""),
		setValue(`.schema-form [name="path"]`, ""),
		chromedp.Click(`.schema-form button[type="submit"]`, chromedp.ByQuery),
		waitText(".schema-form", "Required."),
		setValue(`.schema-form [name="path"]`, "/tmp/b"),
		setValue(`.schema-form [name="copies"]`, "3"),
		chromedp.Click(`.schema-form button[type="submit"]`, chromedp.ByQuery),
		waitText(".msg.assistant", "Done as edited."))
	got := f.tools["delete_file"].Args()
	var a map[string]any
	if len(got) != 1 || json.Unmarshal([]byte(got[0]), &a) != nil || a["path"] != "/tmp/b" || a["copies"] != float64(3) {
		t.Fatalf("the tool ran with %q", got)
	}
}

// An old session opens with its messages and continues with its history.
func TestPageOpenOldSession(t *testing.T) {
	f := newFixture(t, nil, chattest.Text("Five, one more."))
	ctx0 := context.Background()
	if err := f.repo.Append(ctx0, "chat-20250101-120000-abcd", chat.User("What is two and two?"), chat.Assistant("Four.")); err != nil {
		t.Fatal(err)
	}
	c := browser(t, 1280, 800)
	must(t, c, chromedp.Navigate(f.url()),
		chromedp.Click("#tab-sessions", chromedp.ByQuery),
		chromedp.WaitVisible(`[data-session="chat-20250101-120000-abcd"]`, chromedp.ByQuery),
		chromedp.Click(`[data-session="chat-20250101-120000-abcd"]`, chromedp.ByQuery),
		waitText("#log", "Four."), waitText("#thread", "chat-20250101-120000-abcd"),
		ask("And one more?"), waitText("#log", "Five, one more."))
	screenshot(t, c, "session-continued")
	p := f.script.Prompt(0)
	var history []string
	for _, m := range p.Messages {
		history = append(history, m.Content)
	}
	if !strings.Contains(strings.Join(history, "|"), "What is two and two?|Four.|And one more?") {
		t.Fatalf("the model read %q", history)
	}
	msgs, _ := f.repo.Messages(ctx0, "chat-20250101-120000-abcd")
	if len(msgs) != 4 || msgs[3].Content != "Five, one more." {
		t.Fatalf("the session holds %v", msgs)
	}
}

// A tool found by search is called by hand through its form.
func TestPageToolCatalog(t *testing.T) {
	f := newFixture(t, nil)
	c := browser(t, 1280, 800)
	must(t, c, chromedp.Navigate(f.url()),
		chromedp.Click("#tab-tools", chromedp.ByQuery),
		chromedp.SendKeys("#tool-search", "notes", chromedp.ByQuery),
		waitText("#tool-list", "write_note"))
	var n int
	must(t, c, chromedp.Evaluate(`document.querySelectorAll("#tool-list [data-tool]").length`, &n))
	if n != 1 {
		t.Fatalf("the search for notes shows %d tools", n)
	}
	must(t, c, chromedp.Click(`#tool-list [data-tool="write_note"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#tool-call [name="text"]`, chromedp.ByQuery),
		chromedp.SendKeys(`#tool-call [name="text"]`, "by hand", chromedp.ByQuery),
		chromedp.Click(`#tool-call button[type="submit"]`, chromedp.ByQuery),
		waitText("#tool-call .result", "written"))
	screenshot(t, c, "tools")
	if got := f.tools["write_note"].Args(); len(got) != 1 || got[0] != `{"text":"by hand"}` {
		t.Fatalf("the tool ran with %q", got)
	}
}

// A tab closed in the middle of a turn does not stop it: the turn finishes and its answer is
// in the session.
func TestPageClosedTabMidTurn(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	slow := chattest.NewTool("slow", func(ctx context.Context, _ string) (string, error) {
		close(started)
		<-release
		return "slow done", nil
	}).WithMetadata(tool.Metadata{ReadOnly: true})
	f := newFixture(t, []tool.Tool{slow},
		chattest.Calls(chat.ToolCall{ID: "c1", Name: "slow", Arguments: `{}`}),
		chattest.Text("Finished anyway."))
	c := browser(t, 1280, 800)
	var thread string
	must(t, c, chromedp.Navigate(f.url()), chromedp.Text("#thread", &thread, chromedp.ByQuery), ask("Run the slow one"))
	<-started
	if err := chromedp.Cancel(c); err != nil { // closes the tab
		t.Fatal(err)
	}
	close(release)
	f.srv.Wait()
	msgs, err := f.repo.Messages(context.Background(), strings.TrimPrefix(thread, "Session "))
	if err != nil || len(msgs) == 0 || msgs[len(msgs)-1].Content != "Finished anyway." {
		t.Fatalf("the session holds %v (%v)", msgs, err)
	}
}
