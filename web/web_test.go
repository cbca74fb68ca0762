package web_test

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
	"github.com/wield-ai/wield/web"
)

// fixture is a page server over a scripted model, a memory store and a few tools.
type fixture struct {
	srv    *web.Server
	http   *httptest.Server
	model  *gatedModel
	script *chattest.Model
	repo   *memory.InMemory
	tools  map[string]*chattest.Tool
	client *client.Client

	mu    sync.Mutex
	turns []web.TurnRecord // what OnTurn learnt
}

// records returns the turn records once the server's runs have ended.
func (f *fixture) records() []web.TurnRecord {
	f.srv.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.turns)
}

func newFixture(t *testing.T, extra []tool.Tool, replies ...chattest.Reply) *fixture {
	t.Helper()
	return newFixtureWith(t, extra, nil, replies...)
}

// newFixtureWith is newFixture with more options for the client.
func newFixtureWith(t *testing.T, extra []tool.Tool, opts []client.Option, replies ...chattest.Reply) *fixture {
	t.Helper()
	destructive := true
	f := &fixture{script: chattest.New(replies...).WithChunkSize(6), repo: memory.NewInMemory(), tools: map[string]*chattest.Tool{}}
	f.model = &gatedModel{Model: f.script}
	// A destructive tool, as an MCP server would mark one: it waits for approval.
	del := chattest.NewTool("delete_file", func(_ context.Context, args string) (string, error) { return "deleted", nil }).
		WithMetadata(tool.Metadata{Destructive: &destructive})
	del.Def.InputSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","minLength":1},"copies":{"type":"integer","minimum":1,"maximum":10}},"required":["path"]}`)
	write := chattest.NewTool("write_note", func(_ context.Context, args string) (string, error) { return "written", nil }).
		WithMetadata(tool.Metadata{ReadOnly: true})
	write.Def.InputSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	f.tools["delete_file"], f.tools["write_note"] = del, write
	tools := append([]tool.Tool{del, write}, extra...)
	opts = append([]client.Option{client.WithTools(tools), client.WithApproval(toolcall.AskDestructive()), client.WithTurnStore(memory.Turns(f.repo)),
		client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(f.repo, 100), memory.AdvisorConfig{}))}, opts...)
	c := clienttest.New(t, f.model, opts...)
	f.client = c
	s, err := web.New(web.Config{Client: c, Turns: memory.Turns(f.repo), Sessions: f.repo, Tools: tools,
		Sources: map[string]string{"delete_file": "files", "write_note": "notes"}, Title: "scripted", MaxFormBytes: 64 << 10,
		OnTurn: func(_ context.Context, r web.TurnRecord) { f.mu.Lock(); f.turns = append(f.turns, r); f.mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	f.srv = s
	f.http = httptest.NewServer(s)
	t.Cleanup(func() { f.http.Close(); s.Wait() })
	return f
}

// url is the page's address with its token.
func (f *fixture) url() string { return f.http.URL + "/?token=" + f.srv.Token() }

// gatedModel streams the scripted model's replies, holding the first stream after hold chunks
// until release is closed, so that a test sees a reply part way.
type gatedModel struct {
	*chattest.Model
	hold    int
	release chan struct{}
	once    sync.Once
	delay   time.Duration // before each reply, as a model takes time to answer
}

func (g *gatedModel) Stream(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error] {
	gate := false
	if g.release != nil {
		g.once.Do(func() { gate = true })
	}
	inner := g.Model.Stream(ctx, p)
	return func(yield func(*chat.Response, error) bool) {
		if g.delay > 0 {
			select {
			case <-time.After(g.delay):
			case <-ctx.Done():
				yield(nil, ctx.Err())
				return
			}
		}
		n := 0
		for r, err := range inner {
			if gate && n == g.hold {
				select {
				case <-g.release:
				case <-ctx.Done():
					yield(nil, ctx.Err())
					return
				}
			}
			n++
			if !yield(r, err) {
				return
			}
		}
	}
}

func do(t *testing.T, method, url, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Every request needs the token; other origins and other host names are refused; a form over
// the limit is refused before its tool runs.
func TestBadInput(t *testing.T) {
	f := newFixture(t, nil)
	base, tok := f.http.URL, f.srv.Token()
	run := `{"threadId":"t1","runId":"r1","messages":[{"id":"m","role":"user","content":"hi"}]}`
	wrong := strings.Repeat("0", len(tok))
	for _, c := range []struct {
		name, method, path, body string
		header                   []string
		want                     int
	}{
		{"page without token", "GET", "/", "", nil, 401},
		{"page with a wrong token", "GET", "/?token=" + wrong, "", nil, 401},
		{"page with a short token", "GET", "/?token=" + tok[:8], "", nil, 401},
		{"run without token", "POST", "/agui", run, nil, 401},
		{"run with a wrong bearer", "POST", "/agui", run, []string{"Authorization", "Bearer " + wrong}, 401},
		{"run with a wrong cookie", "POST", "/agui", run, []string{"Cookie", "wield_token=" + wrong}, 401},
		{"tools without token", "GET", "/api/tools", "", nil, 401},
		{"call without token", "POST", "/api/tools/write_note/call", `{"text":"x"}`, nil, 401},
		{"sessions without token", "GET", "/api/sessions", "", nil, 401},
		{"another origin", "POST", "/agui?token=" + tok, run, []string{"Origin", "https://evil.example"}, 403},
		{"another origin's call", "POST", "/api/tools/write_note/call?token=" + tok, `{"text":"x"}`, []string{"Origin", "http://evil.example"}, 403},
		{"another host name (DNS rebinding)", "GET", "/?token=" + tok, "", []string{"Host", "evil.example:80"}, 403},
		{"oversized form", "POST", "/api/tools/write_note/call?token=" + tok, `{"text":"` + strings.Repeat("x", 70<<10) + `"}`, nil, 413},
		{"oversized run", "POST", "/agui?token=" + tok, `{"threadId":"t","runId":"r","messages":[{"role":"user","content":"` + strings.Repeat("x", 70<<10) + `"}]}`, nil, 413},
		{"arguments not an object", "POST", "/api/tools/write_note/call?token=" + tok, `[1]`, nil, 400},
		{"unknown tool", "POST", "/api/tools/nope/call?token=" + tok, `{}`, nil, 404},
		{"call by GET", "GET", "/api/tools/write_note/call?token=" + tok, "", nil, 405},
		{"bad session name", "GET", "/api/sessions/%00?token=" + tok, "", nil, 400},
	} {
		if status, body := do(t, c.method, base+c.path, c.body, c.header...); status != c.want {
			t.Errorf("%s: %d %q, want %d", c.name, status, body, c.want)
		}
	}
	if n := len(f.tools["write_note"].Args()); n != 0 || f.script.Requests() != 0 {
		t.Fatalf("refused requests ran %d calls and %d model requests", n, f.script.Requests())
	}
	// The token works in each place it may be; the URL's sets the cookie the page then uses.
	status, body := do(t, "GET", base+"/?token="+tok, "")
	if status != 200 || !strings.Contains(body, "app.js") {
		t.Fatalf("page: %d %q", status, body)
	}
	if status, body := do(t, "POST", base+"/api/tools/write_note/call", `{"text":"x"}`, "Authorization", "Bearer "+tok, "Origin", base); status != 200 || !strings.Contains(body, "written") {
		t.Fatalf("call by hand: %d %q", status, body)
	}
	if status, _ := do(t, "GET", base+"/api/tools", "", "Cookie", "wield_token="+tok); status != 200 {
		t.Fatalf("cookie: %d", status)
	}
}

func TestServeRefusesNonLoopback(t *testing.T) {
	f := newFixture(t, nil)
	err := f.srv.Serve(context.Background(), fakeListener{})
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("Serve on a public address: %v", err)
	}
}

// A session's name is unescaped once: names with a slash or a percent sign open.
func TestSessionNames(t *testing.T) {
	f := newFixture(t, nil)
	for _, id := range []string{"work/plans", "100%", "chat-20250101-000000-abcd"} {
		if err := f.repo.Append(context.Background(), id, chat.User("q of "+id)); err != nil {
			t.Fatal(err)
		}
		status, body := do(t, "GET", f.http.URL+"/api/sessions/"+url.PathEscape(id)+"?token="+f.srv.Token(), "")
		if status != 200 || !strings.Contains(body, "q of "+id) {
			t.Errorf("session %q: %d %q", id, status, body)
		}
	}
	status, body := do(t, "GET", f.http.URL+"/api/sessions?token="+f.srv.Token(), "")
	var ids []string
	if status != 200 || json.Unmarshal([]byte(body), &ids) != nil || len(ids) != 3 || ids[0] != "work/plans" {
		t.Fatalf("sessions: %d %q", status, body)
	}
}

// Serve serves the page through httpguard's server on loopback: the page answers with its
// guards, and the server stops when its context ends.
func TestServeOnLoopback(t *testing.T) {
	f := newFixture(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- f.srv.Serve(ctx, ln) }()
	resp, err := http.Get(f.srv.URL(ln.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Fatalf("page: %d, CSP %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}
	base := "http://" + ln.Addr().String()
	if status, _ := do(t, "GET", base+"/api/tools?token="+f.srv.Token(), "", "Origin", "http://evil.example"); status != 403 {
		t.Fatalf("another origin: %d", status)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := http.Get(base + "/"); err == nil {
		t.Fatal("the server still answers after its context ended")
	}
}

// A turn that stopped for approval is recorded once, when its resume answers: from its first
// run's start, with the usage of both runs, and the index of its question in the session.
func TestTurnRecord(t *testing.T) {
	f := newFixture(t, nil,
		chattest.Text("Hello."),
		chattest.Calls(chat.ToolCall{ID: "c1", Name: "delete_file", Arguments: `{"path":"/tmp/x"}`}).WithUsage(5, 1),
		chattest.Text("Deleted.").WithUsage(7, 2))
	agui := f.http.URL + "/agui?token=" + f.srv.Token()
	run := func(body string) string {
		t.Helper()
		status, out := do(t, "POST", agui, body)
		if status != 200 {
			t.Fatalf("run: %d %q", status, out)
		}
		return out
	}
	run(`{"threadId":"s1","runId":"r0","messages":[{"id":"m0","role":"user","content":"Hi"}]}`)
	if got := f.records(); len(got) != 1 || got[0].Question != 0 || got[0].Conversation != "s1" {
		t.Fatalf("after the first turn: %+v", got)
	}
	before := time.Now()
	out := run(`{"threadId":"s1","runId":"r1","messages":[{"id":"m1","role":"user","content":"Delete /tmp/x"}]}`)
	if !strings.Contains(out, `"interrupt"`) {
		t.Fatalf("the run did not stop: %s", out)
	}
	if got := f.records(); len(got) != 1 {
		t.Fatalf("a stopped turn was recorded: %+v", got)
	}
	time.Sleep(20 * time.Millisecond) // the decision takes a while
	run(`{"threadId":"s1","runId":"r2","resume":[{"interruptId":"c1","status":"resolved","payload":{"approved":true}}]}`)
	got := f.records()
	if len(got) != 2 {
		t.Fatalf("records: %+v", got)
	}
	r := got[1]
	if r.Conversation != "s1" || r.Question != 1 || r.InputTokens != 12 || r.OutputTokens != 3 ||
		r.At.Before(before) || r.At.After(before.Add(r.Elapsed)) || r.Elapsed < 20*time.Millisecond {
		t.Fatalf("the record of the resumed turn: %+v (first run sent at %v)", r, before)
	}
}
