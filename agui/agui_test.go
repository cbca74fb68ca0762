package agui_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wield-ai/wield/agui"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
)

const writeSchema = `{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"}},"required":["path"],"additionalProperties":false}`

// fixture is a handler over a client with memory, a "write" tool needing approval and a "read"
// tool that does not.
type fixture struct {
	srv   *httptest.Server
	h     *agui.Handler
	model *chattest.Model
	write *chattest.Tool
	read  *chattest.Tool
	repo  *memory.InMemory
}

func newFixture(t *testing.T, cfg agui.Config, replies ...chattest.Reply) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewInMemory()}
	f.model = chattest.New(replies...).WithChunkSize(5)
	f.write = chattest.NewTool("write", func(context.Context, string) (string, error) { return "written", nil }).
		WithMetadata(tool.Metadata{RequiresApproval: true})
	f.write.Def.InputSchema = []byte(writeSchema)
	f.read = chattest.NewTool("read", func(context.Context, string) (string, error) { return "the notes", nil })
	c := clienttest.New(t, f.model, client.WithTools(f.write, f.read),
		client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(f.repo, 100), memory.AdvisorConfig{})))
	return f.serve(t, cfg, c)
}

// serve makes f's handler, with cfg over client c, and its test server.
func (f *fixture) serve(t *testing.T, cfg agui.Config, c *client.Client) *fixture {
	t.Helper()
	cfg.Client = c
	h, err := agui.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.h = h
	f.srv = newServer(t, h)
	return f
}

func newServer(t *testing.T, h *agui.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); h.Wait() })
	return srv
}

// event is one AG-UI event as sent.
type event map[string]any

func (e event) kind() string { return e["type"].(string) }

func post(t *testing.T, url string, body any, header ...string) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func readEvents(t *testing.T, r io.Reader) []event {
	t.Helper()
	var out []event
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("event %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

func run(t *testing.T, f *fixture, in map[string]any) []event {
	t.Helper()
	resp := post(t, f.srv.URL, in)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return readEvents(t, resp.Body)
}

func input(thread, run, text string) map[string]any {
	return map[string]any{"threadId": thread, "runId": run, "state": map[string]any{}, "tools": []any{}, "context": []any{},
		"messages": []any{map[string]any{"id": "u-" + run, "role": "user", "content": text}}}
}

// kinds lists the event types, runs of the same type folded into one.
func kinds(evs []event) string {
	var out []string
	for _, e := range evs {
		if k := e.kind(); len(out) == 0 || out[len(out)-1] != k {
			out = append(out, k)
		}
	}
	return strings.Join(out, " ")
}

func TestRunStreamsTextAndToolCalls(t *testing.T) {
	f := newFixture(t, agui.Config{},
		chattest.Calls(chat.ToolCall{ID: "c1", Name: "read", Arguments: `{"path":"/notes/a-rather-long-path.txt"}`}).WithText("Reading."),
		chattest.Text("The notes say hello."))
	evs := run(t, f, input("t1", "r1", "read my notes"))
	want := "RUN_STARTED STATE_SNAPSHOT TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END TOOL_CALL_START TOOL_CALL_ARGS CUSTOM TOOL_CALL_END TOOL_CALL_RESULT TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END CUSTOM RUN_FINISHED"
	if got := kinds(evs); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	var args strings.Builder
	n := 0
	for _, e := range evs {
		if e.kind() == "TOOL_CALL_ARGS" {
			n++
			args.WriteString(e["delta"].(string))
		}
		if e.kind() == "TOOL_CALL_START" && (e["toolCallId"] != "c1" || e["toolCallName"] != "read") {
			t.Fatalf("start %v", e)
		}
	}
	if n < 3 || args.String() != `{"path":"/notes/a-rather-long-path.txt"}` {
		t.Fatalf("%d argument fragments: %q", n, args.String())
	}
	last := evs[len(evs)-1]
	if last["result"] != "The notes say hello." || last["outcome"].(map[string]any)["type"] != "success" {
		t.Fatalf("finished %v", last)
	}
	// The thread is the memory's conversation.
	msgs, _ := f.repo.Messages(context.Background(), "t1")
	if len(msgs) != 2 || msgs[1].Text() != "The notes say hello." {
		t.Fatalf("stored %v", msgs)
	}
}

func TestApprovalAsInterrupt(t *testing.T) {
	f := newFixture(t, agui.Config{},
		chattest.Calls(chat.ToolCall{ID: "w1", Name: "write", Arguments: `{"path":"/notes","text":"hi"}`}),
		chattest.Text("Written."))
	evs := run(t, f, input("t2", "r1", "write hi"))
	last := evs[len(evs)-1]
	outcome := last["outcome"].(map[string]any)
	if last.kind() != "RUN_FINISHED" || outcome["type"] != "interrupt" {
		t.Fatalf("last event %v", last)
	}
	in := outcome["interrupts"].([]any)[0].(map[string]any)
	if in["id"] != "w1" || in["toolCallId"] != "w1" || in["reason"] != agui.ReasonApproval {
		t.Fatalf("interrupt %v", in)
	}
	if len(f.write.Args()) != 0 {
		t.Fatal("the tool ran before approval")
	}
	delta := evs[len(evs)-2]
	if delta.kind() != "STATE_DELTA" || len(delta["delta"].([]any)[0].(map[string]any)["value"].([]any)) != 1 {
		t.Fatalf("state delta %v", delta)
	}

	// An edited argument the schema refuses fails the run; nothing runs, the turn still waits.
	bad := input("t2", "r2", "")
	bad["messages"] = []any{}
	bad["resume"] = []any{map[string]any{"interruptId": "w1", "status": "resolved", "payload": map[string]any{"approved": true, "arguments": map[string]any{"path": 3}}}}
	evs = run(t, f, bad)
	if last := evs[len(evs)-1]; last.kind() != "RUN_ERROR" || last["code"] != "invalid_decision" {
		t.Fatalf("last event %v", last)
	}

	ok := input("t2", "r3", "")
	ok["messages"] = []any{}
	ok["resume"] = []any{map[string]any{"interruptId": "w1", "status": "resolved", "payload": map[string]any{"approved": true, "arguments": map[string]any{"path": "/notes2", "text": "hi"}}}}
	evs = run(t, f, ok)
	if last := evs[len(evs)-1]; last.kind() != "RUN_FINISHED" || last["result"] != "Written." {
		t.Fatalf("last event %v", last)
	}
	if got := f.write.Args(); len(got) != 1 || got[0] != `{"path":"/notes2","text":"hi"}` {
		t.Fatalf("write ran with %v", got)
	}
	if snap := evs[1]; snap.kind() != "STATE_SNAPSHOT" || len(snap["snapshot"].(map[string]any)["pending"].([]any)) != 1 {
		t.Fatalf("snapshot %v", snap)
	}
	// Answered once: the same answer again is refused before the run starts.
	resp := post(t, f.srv.URL, ok)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("second resume: %d", resp.StatusCode)
	}
}

func TestRejectWithReason(t *testing.T) {
	f := newFixture(t, agui.Config{},
		chattest.Calls(chat.ToolCall{ID: "w1", Name: "write", Arguments: `{"path":"/etc/passwd"}`}),
		chattest.Text("I will not write there."))
	run(t, f, input("t3", "r1", "write"))
	in := input("t3", "r2", "")
	in["resume"] = []any{map[string]any{"interruptId": "w1", "status": "resolved", "payload": map[string]any{"approved": false, "reason": "not that file"}}}
	evs := run(t, f, in)
	if last := evs[len(evs)-1]; last["result"] != "I will not write there." || len(f.write.Args()) != 0 {
		t.Fatalf("last %v, runs %v", last, f.write.Args())
	}
	if res := f.model.ToolResults(t, 1); len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Content, "not that file") {
		t.Fatalf("the model read %v", res)
	}
}

func TestBadRequests(t *testing.T) {
	f := newFixture(t, agui.Config{MaxRequestBytes: 2048, AllowedOrigins: []string{"https://app.example.com"},
		Authorize: func(r *http.Request) error {
			if r.Header.Get("Authorization") != "Bearer s3cret" {
				return errors.New("no")
			}
			return nil
		}}, chattest.Text("hi"), chattest.Text("hi"))
	auth := []string{"Authorization", "Bearer s3cret"}
	cases := []struct {
		name   string
		body   any
		header []string
		status int
	}{
		{"no token", input("t", "r", "hi"), nil, http.StatusUnauthorized},
		{"other origin", input("t", "r", "hi"), append([]string{"Origin", "https://evil.example.com"}, auth...), http.StatusForbidden},
		{"oversized", input("t", "r", strings.Repeat("x", 4096)), auth, http.StatusRequestEntityTooLarge},
		{"not JSON", "[1,2", auth, http.StatusBadRequest},
		{"no thread", map[string]any{"runId": "r", "messages": []any{}}, auth, http.StatusBadRequest},
		{"no user message", map[string]any{"threadId": "t", "runId": "r", "messages": []any{map[string]any{"id": "a", "role": "assistant", "content": "x"}}}, auth, http.StatusBadRequest},
		{"resume without a stopped turn", map[string]any{"threadId": "t", "runId": "r", "messages": []any{},
			"resume": []any{map[string]any{"interruptId": "x", "status": "resolved"}}}, auth, http.StatusBadRequest},
		{"image part", map[string]any{"threadId": "t", "runId": "r", "messages": []any{map[string]any{"id": "u", "role": "user",
			"content": []any{map[string]any{"type": "binary", "mimeType": "image/png"}}}}}, auth, http.StatusBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, f.srv.URL, tc.body, tc.header...)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, b)
			}
			if strings.Contains(string(b), "goroutine") || strings.Contains(string(b), ".go:") {
				t.Fatalf("internals in the answer: %s", b)
			}
		})
	}
	if f.model.Requests() != 0 {
		t.Fatalf("the model was called %d times", f.model.Requests())
	}
	// A listed origin, and the server's own, pass.
	for _, origin := range []string{"https://app.example.com", f.srv.URL} {
		resp := post(t, f.srv.URL, input("t-"+origin, "r", "hi"), append([]string{"Origin", origin}, auth...)...)
		evs := readEvents(t, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || evs[len(evs)-1].kind() != "RUN_FINISHED" || resp.Header.Get("Access-Control-Allow-Origin") != origin {
			t.Fatalf("origin %s: status %d, events %s", origin, resp.StatusCode, kinds(evs))
		}
	}
}

// A client gone in the middle of a turn does not stop it: the turn finishes, stored whole, and
// the thread goes on.
func TestClientGoneMidTurn(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	started := make(chan struct{})
	f := newFixture(t, agui.Config{},
		chattest.Calls(chat.ToolCall{ID: "s1", Name: "slow", Arguments: `{}`}),
		chattest.Text("Slow done."),
		chattest.Text("Second answer."))
	slow := chattest.NewTool("slow", func(context.Context, string) (string, error) {
		once.Do(func() { close(started) })
		<-release
		return "slept", nil
	})
	c := clienttest.New(t, f.model, client.WithTools(slow),
		client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(f.repo, 100), memory.AdvisorConfig{})))
	h, err := agui.New(agui.Config{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	b, _ := json.Marshal(input("t4", "r1", "be slow"))
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, bytes.NewReader(b))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the tool never started")
	}
	cancel() // the tab closes
	resp.Body.Close()
	close(release)
	h.Wait()
	msgs, _ := f.repo.Messages(context.Background(), "t4")
	if len(msgs) != 2 || msgs[1].Text() != "Slow done." {
		t.Fatalf("stored %v", msgs)
	}
	resp2 := post(t, srv.URL, input("t4", "r2", "again"))
	evs := readEvents(t, resp2.Body)
	resp2.Body.Close()
	if last := evs[len(evs)-1]; last["result"] != "Second answer." {
		t.Fatalf("last %v", last)
	}
	if p := f.model.Prompt(2); len(p.Messages) != 3 || p.Messages[1].Text() != "Slow done." {
		t.Fatalf("the next turn saw %d messages", len(p.Messages))
	}
}

func TestServeRefusesRemoteWithoutAuth(t *testing.T) {
	h, err := agui.New(agui.Config{Client: clienttest.New(t, chattest.New())})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	remote := fakeAddrListener{ln}
	if err := h.Serve(context.Background(), remote); !errors.Is(err, agui.ErrUnauthenticatedRemote) {
		t.Fatalf("err = %v", err)
	}
	if _, err := agui.New(agui.Config{}); err == nil {
		t.Fatal("a handler without a client")
	}
	if _, err := agui.New(agui.Config{Client: clienttest.New(t, chattest.New()), AllowedOrigins: []string{"app.example.com"}}); err == nil {
		t.Fatal("an origin without a scheme")
	}
}

// fakeAddrListener claims a public address.
type fakeAddrListener struct{ net.Listener }

func (fakeAddrListener) Addr() net.Addr { return &net.TCPAddr{IP: net.ParseIP("192.0.2.1"), Port: 80} }
