package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/compact"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/tool"
)

// shared is the one Chromium of the test binary; each test opens a tab of its own. Starting a browser per test was what made the tests flaky
// on a loaded machine: Chromium's start can take longer than chromedp's 20 s wait for its
// DevTools address ("websocket url timeout reached"), and it came out of each test's budget.
var shared struct {
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.cancel != nil {
		shared.cancel()
	}
	os.Exit(code)
}

// browser opens a headless Chromium tab of width×height; $WIELD_CHROMIUM (set by
// scripts/setup/40-chromium.sh) names the browser. What the page logs and throws is kept for
// a failure to show.
func browser(t *testing.T, width, height int) context.Context {
	t.Helper()
	path := testenv.Env(t, "WIELD_CHROMIUM")
	shared.once.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
			chromedp.DisableGPU, chromedp.WindowSize(1280, 800), chromedp.WSURLReadTimeout(3*time.Minute))
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, cancelBrowser := chromedp.NewContext(actx)
		shared.ctx, shared.cancel = bctx, func() { cancelBrowser(); cancelAlloc() }
		shared.err = chromedp.Run(bctx) // starts the browser, with no test's deadline on it
	})
	if shared.err != nil {
		t.Fatalf("starting Chromium: %v", shared.err)
	}
	// Tabs share the cookie jar; each test's page sets its own token's cookie as it opens.
	ctx, cancelTab := chromedp.NewContext(shared.ctx)
	t.Cleanup(cancelTab)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelTime)
	pl := &pageLog{}
	ctx = context.WithValue(ctx, pageLogKey{}, pl)
	chromedp.ListenTarget(ctx, pl.listen)
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// pageLog keeps what the page said on its console, threw, and failed to load.
type pageLog struct {
	mu    sync.Mutex
	lines []string
}

type pageLogKey struct{}

func (l *pageLog) add(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, time.Now().Format("15:04:05.000 ")+fmt.Sprintf(format, a...))
}

func (l *pageLog) listen(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		var args []string
		for _, a := range ev.Args {
			args = append(args, string(a.Value)+a.Description)
		}
		l.add("console.%s %s", ev.Type, strings.Join(args, " "))
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		l.add("exception %s", msg)
	case *page.EventFrameNavigated:
		if ev.Frame.ParentID == "" {
			l.add("navigated %s", ev.Frame.URL)
		}
	case *page.EventLoadEventFired:
		l.add("load event")
	case *network.EventLoadingFailed:
		l.add("loading failed %s %s", ev.ErrorText, ev.BlockedReason)
	case *network.EventResponseReceived:
		l.add("response %d %s", ev.Response.Status, ev.Response.URL)
	case *inspector.EventTargetCrashed:
		l.add("the page crashed")
	}
}

func (l *pageLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func must(t *testing.T, ctx context.Context, actions ...chromedp.Action) {
	t.Helper()
	for i, a := range actions {
		if err := chromedp.Run(ctx, a); err != nil {
			fail(t, ctx, fmt.Errorf("step %d (%T): %w", i, a, err))
		}
	}
}

// fail ends t with err, what the page shows and what it logged.
func fail(t *testing.T, ctx context.Context, err error) {
	t.Helper()
	var state string
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if e := chromedp.Run(sctx, chromedp.Evaluate(`location.href + " · " + document.readyState + " · ready=" + document.body?.dataset.ready + " · status: " + document.getElementById("status")?.textContent + " · log: " + document.getElementById("log")?.innerText`, &state)); e != nil {
		state = "(cannot read the page: " + e.Error() + ")"
	}
	var png []byte
	if chromedp.Run(sctx, chromedp.CaptureScreenshot(&png)) == nil {
		if dir := os.Getenv("WIELD_SCREENSHOTS"); dir != "" {
			os.MkdirAll(dir, 0o755)
			p := filepath.Join(dir, "failed-"+strings.ReplaceAll(t.Name(), "/", "_")+".png")
			os.WriteFile(p, png, 0o644)
			t.Logf("screenshot %s", p)
		}
	}
	pl, _ := ctx.Value(pageLogKey{}).(*pageLog)
	t.Fatalf("%v; the page says: %s\nthe page's log:\n%v", err, state, pl)
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
	if got := f.records(); len(got) != 1 || got[0].InputTokens != 11 || got[0].OutputTokens != 7 || got[0].Question != 0 {
		t.Fatalf("the turn log holds %+v", got)
	}

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

// askToDelete opens a page that asks to delete path, which the model does by calling the
// destructive delete_file with args; after the call it says final.
func askToDelete(t *testing.T, path, args, final string) (*fixture, context.Context) {
	t.Helper()
	f := newFixture(t, nil, chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete_file", Arguments: args}), chattest.Text(final))
	ctx := browser(t, 1280, 800)
	must(t, ctx, chromedp.Navigate(f.url()), ask("Delete "+path))
	return f, ctx
}

// A destructive tool waits for the button; Enter on the focused Approve runs it once.
func TestPageApprove(t *testing.T) {
	f, ctx := askToDelete(t, "/tmp/x", `{"path":"/tmp/x"}`, "Deleted it.")
	must(t, ctx, waitText(".approval", "Run delete_file?"), waitText(`.call[data-tool="delete_file"] .state`, "waiting for approval"))
	if n := len(f.tools["delete_file"].Args()); n != 0 {
		t.Fatalf("ran %d times before approval", n)
	}
	screenshot(t, ctx, "approval")
	var focused string
	must(t, ctx, chromedp.Evaluate(`document.activeElement.textContent`, &focused))
	if focused != "Approve" {
		t.Fatalf("focus is on %q, not Approve", focused)
	}
	// The keypress of the Enter that sent the question, arriving once the turn stopped, does not
	// approve: a loaded run of this test once approved that way.
	var status string
	must(t, ctx, input.DispatchKeyEvent(input.KeyChar).WithText("\r").WithUnmodifiedText("\r"),
		chromedp.Text("#status", &status, chromedp.ByQuery))
	if status != "Waiting for your decision." || len(f.tools["delete_file"].Args()) != 0 {
		t.Fatalf("a keypress without its keydown approved: status %q", status)
	}
	must(t, ctx, chromedp.KeyEvent(kb.Enter), waitText("#log", "Deleted it."),
		waitText(`.call[data-tool="delete_file"] .result`, "deleted"))
	if got := f.tools["delete_file"].Args(); len(got) != 1 || got[0] != `{"path":"/tmp/x"}` {
		t.Fatalf("the tool ran with %q", got)
	}
}

// Rejecting with a reason tells the model why, and the tool does not run.
func TestPageRejectWithReason(t *testing.T) {
	f, ctx := askToDelete(t, "/etc", `{"path":"/etc"}`, "I will not delete it.")
	must(t, ctx, chromedp.WaitVisible(".approval .reason", chromedp.ByQuery),
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
	f, ctx := askToDelete(t, "/tmp/a", `{"path":"/tmp/a","copies":2}`, "Done as edited.")
	must(t, ctx, chromedp.WaitVisible(".approval .edit", chromedp.ByQuery),
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

// A session opened from the list whose turn stopped for approval (in an earlier page, or wield
// chat) shows the buttons; approving runs the call once and the turn continues to its answer.
func TestPageOldSessionApprove(t *testing.T) {
	f := newFixture(t, nil,
		chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete_file", Arguments: `{"path":"/tmp/old"}`}),
		chattest.Text("Deleted the old file."))
	const id = "chat-20250102-090000-beef"
	resp, err := f.client.Prompt("Delete /tmp/old").Param(client.ParamConversationID, id).Call(context.Background()).Response()
	if err != nil || resp.Pending == nil {
		t.Fatalf("the turn did not stop for approval: %v %v", resp, err)
	}
	c := browser(t, 1280, 800)
	must(t, c, chromedp.Navigate(f.url()),
		chromedp.Click("#tab-sessions", chromedp.ByQuery),
		chromedp.WaitVisible(`[data-session="`+id+`"]`, chromedp.ByQuery),
		chromedp.Click(`[data-session="`+id+`"]`, chromedp.ByQuery),
		waitText(".approval", "Run delete_file?"), waitText("#status", "waits for your decision"))
	if n := len(f.tools["delete_file"].Args()); n != 0 {
		t.Fatalf("ran %d times before approval", n)
	}
	screenshot(t, c, "old-session-approval")
	must(t, c, chromedp.Click(".approval .approve", chromedp.ByQuery),
		waitText(".msg.assistant", "Deleted the old file."), waitText("#status", "Done"))
	if got := f.tools["delete_file"].Args(); len(got) != 1 || got[0] != `{"path":"/tmp/old"}` {
		t.Fatalf("the tool ran with %q", got)
	}
	var cards int
	must(t, c, chromedp.Evaluate(`document.querySelectorAll('.call[data-call="c1"]').length`, &cards))
	if cards > 1 {
		t.Fatalf("the call shows in %d cards", cards)
	}
	msgs, _ := f.repo.Messages(context.Background(), id)
	if len(msgs) == 0 || msgs[len(msgs)-1].Content != "Deleted the old file." {
		t.Fatalf("the session holds %v", msgs)
	}
}

// The turn's timeline shows each model call and tool call on a time axis with its duration: two
// calls the model asked for at once ran side by side, between the two model calls.
func TestPageTimeline(t *testing.T) {
	const delay = 150 * time.Millisecond
	var started sync.WaitGroup
	started.Add(2)
	both := make(chan struct{})
	go func() { started.Wait(); close(both) }()
	parallel := func(name string) tool.Tool {
		return chattest.NewTool(name, func(ctx context.Context, _ string) (string, error) {
			started.Done()
			select { // each waits for the other: they ran at once or not at all
			case <-both:
			case <-time.After(30 * time.Second):
				return "", fmt.Errorf("%s ran alone", name)
			}
			time.Sleep(delay)
			return name + " done", nil
		}).WithMetadata(tool.Metadata{ReadOnly: true})
	}
	f := newFixture(t, []tool.Tool{parallel("fetch_a"), parallel("fetch_b")},
		chattest.Calls(chat.ToolCall{ID: "a", Name: "fetch_a", Arguments: `{}`}, chat.ToolCall{ID: "b", Name: "fetch_b", Arguments: `{}`}).WithUsage(20, 5),
		chattest.Text("Both fetched.").WithUsage(30, 4))
	f.model.delay = delay
	c := browser(t, 1280, 800)
	must(t, c, chromedp.Navigate(f.url()), ask("Fetch both"),
		waitText(".msg.assistant", "Both fetched."), waitText(".timeline summary", "2 model calls, 2 tool calls"))
	screenshot(t, c, "timeline")
	type span struct {
		Kind, Label, Dur string
		Start, End       float64
	}
	var spans []span
	must(t, c, chromedp.Evaluate(`[...document.querySelectorAll(".timeline li")].map((li) => ({kind: li.dataset.kind, label: li.dataset.label,
		start: +li.dataset.start, end: +li.dataset.end, dur: li.querySelector(".dur").textContent}))`, &spans))
	if len(spans) != 4 || spans[0].Kind != "model" || spans[1].Kind != "tool" || spans[2].Kind != "tool" || spans[3].Kind != "model" {
		t.Fatalf("the timeline shows %+v", spans)
	}
	a, b := spans[1], spans[2]
	if !(a.Start < b.End && b.Start < a.End) {
		t.Errorf("the calls that ran at once do not overlap: %+v %+v", a, b)
	}
	const ms = 2 // timestamps and durations are whole milliseconds
	for _, m := range []span{spans[0], spans[3]} {
		if m.End-m.Start < float64(delay.Milliseconds()) {
			t.Errorf("a model call that took at least %v shows %+v", delay, m)
		}
	}
	if first := min(a.Start, b.Start); spans[0].End > first+ms {
		t.Errorf("the first model call ends at %v, after a tool started at %v", spans[0].End, first)
	}
	if last := max(a.End, b.End); spans[3].Start < last-ms {
		t.Errorf("the second model call starts at %v, before the tools ended at %v", spans[3].Start, last)
	}
	// A tool's duration is the one its card shows, the call's own measure.
	for _, s := range []span{a, b} {
		var state string
		must(t, c, chromedp.Text(`.call[data-tool="`+s.Label+`"] .state`, &state, chromedp.ByQuery))
		if !strings.HasSuffix(state, "in "+s.Dur) {
			t.Errorf("%s: the card says %q, the timeline %q", s.Label, state, s.Dur)
		}
	}
	var summary string
	must(t, c, chromedp.Text(".timeline summary", &summary, chromedp.ByQuery))
	if !strings.Contains(summary, "50 in, 9 out tokens") {
		t.Errorf("the summary says %q", summary)
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
	id := strings.TrimPrefix(thread, "Session ")
	msgs, err := f.repo.Messages(context.Background(), id)
	if err != nil || len(msgs) == 0 || msgs[len(msgs)-1].Content != "Finished anyway." {
		t.Fatalf("the session holds %v (%v)", msgs, err)
	}
	if got := f.records(); len(got) != 1 || got[0].Conversation != id {
		t.Fatalf("the turn log holds %+v", got)
	}
}

// The timeline shows each model call the server measured, with its tokens, and a note where a
// small context budget made the conversation compacted before a model call.
func TestPageTimelineTokensAndCompaction(t *testing.T) {
	big := strings.Repeat("a long line of the file that fills the context; ", 200)
	read := chattest.NewTool("read_file", func(context.Context, string) (string, error) { return big, nil }).
		WithMetadata(tool.Metadata{ReadOnly: true})
	cp := compact.New(compact.Config{Budget: 3000, DisableCalibration: true})
	f := newFixtureWith(t, []tool.Tool{read},
		[]client.Option{client.WithAdvisors(client.NewToolLoop(client.ToolLoopConfig{Hooks: cp.Hooks()}), cp)},
		chattest.Calls(chat.ToolCall{ID: "r1", Name: "read_file", Arguments: `{}`}).WithUsage(40, 6),
		chattest.Calls(chat.ToolCall{ID: "r2", Name: "read_file", Arguments: `{}`}).WithUsage(700, 6),
		chattest.Text("Read it twice.").WithUsage(1900, 4))
	f.model.delay = 30 * time.Millisecond
	c := browser(t, 1280, 800)
	must(t, c, chromedp.Navigate(f.url()), ask("Read the file twice"),
		waitText(".msg.assistant", "Read it twice."), waitText(".timeline summary", "3 model calls, 2 tool calls"))
	screenshot(t, c, "timeline-compaction")
	type row struct{ Kind, Label, Tokens, Text string }
	var rows []row
	must(t, c, chromedp.Evaluate(`[...document.querySelectorAll(".timeline li")].map((li) => ({kind: li.dataset.kind, label: li.dataset.label,
		tokens: li.dataset.tokens || "", text: li.textContent}))`, &rows))
	var models, notes []row
	for _, r := range rows {
		switch r.Kind {
		case "model":
			models = append(models, r)
		case "compaction":
			notes = append(notes, r)
		}
	}
	if len(models) != 3 || models[0].Tokens != "40 in, 6 out" || models[1].Tokens != "700 in, 6 out" || models[2].Tokens != "1,900 in, 4 out" ||
		!strings.Contains(models[2].Text, "1,900 in, 4 out tokens") {
		t.Fatalf("model calls in the timeline: %+v", models)
	}
	if len(notes) == 0 || !strings.Contains(notes[0].Label, "tokens of 3,000") || !strings.Contains(notes[0].Label, "capped") {
		t.Fatalf("compactions in the timeline: %+v (all rows %+v)", notes, rows)
	}
	// Each note stands after the tool call whose result was cut, before the model call it
	// shortened.
	for i, r := range rows {
		if r.Kind == "compaction" && (i == 0 || i+1 == len(rows) || rows[i-1].Kind != "tool" || rows[i+1].Kind != "model") {
			t.Errorf("a compaction at row %d is out of place: %+v", i, rows)
		}
	}
	var summary string
	must(t, c, chromedp.Text(".timeline summary", &summary, chromedp.ByQuery))
	if !strings.Contains(summary, "compaction") || !strings.Contains(summary, "2640 in, 16 out tokens") {
		t.Errorf("the summary says %q", summary)
	}
}
