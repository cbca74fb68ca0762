package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// wield web serves the page with a token in its URL, runs a turn of the configured model
// through its AG-UI endpoint into the session store, and lists that session.
func TestBinaryWeb(t *testing.T) {
	srv := newFakeOpenAI(t, reply{chunks: []string{"Hello ", "from the page."}})
	base, token, page, env := startWeb(t, "--builtin=false", "--base-url", srv.v1(), "--model", "gpt-4o")
	get := func(url string) (int, string) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get(base + "/"); code != http.StatusUnauthorized {
		t.Fatalf("without the token: %d", code)
	}
	if code, body := get(page); code != 200 || !strings.Contains(body, "app.js") {
		t.Fatalf("the page: %d %q", code, body)
	}
	run := `{"threadId":"chat-20250102-030405-beef","runId":"r1","messages":[{"id":"m1","role":"user","content":"Hi"}]}`
	resp, err := http.Post(base+"/agui?token="+token, "application/json", strings.NewReader(run))
	if err != nil {
		t.Fatal(err)
	}
	events, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(events), `"delta":"from the page."`) || !strings.Contains(string(events), `"RUN_FINISHED"`) {
		t.Fatalf("the run's events:\n%s", events)
	}
	if code, body := get(base + "/api/sessions/chat-20250102-030405-beef?token=" + token); code != 200 || !strings.Contains(body, "Hello from the page.") {
		t.Fatalf("the session: %d %q", code, body)
	}
	// The page's turn is in the turn log, as a chat's is: sessions show gives its model and time.
	show := exec.Command(wieldBin, "sessions", "show", "chat-20250102-030405-beef")
	show.Env = env
	shown, err := show.CombinedOutput()
	if err != nil || !strings.Contains(string(shown), "gpt-4o ·") {
		t.Fatalf("sessions show: %v\n%s", err, shown)
	}
}

// startWeb starts wield web with args until t ends, and returns the page's base address, token,
// address with the token, and the command's environment.
func startWeb(t *testing.T, args ...string) (base, token, page string, env []string) {
	t.Helper()
	cmd := exec.Command(wieldBin, append([]string{"web"}, args...)...)
	cmd.Env = cleanEnv(t)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Error("wield web did not stop on an interrupt")
		}
	})
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "Open "); ok {
			page = u
			break
		}
	}
	go io.Copy(io.Discard, out)
	base, token, ok := strings.Cut(page, "/?token=")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") || len(token) < 32 {
		t.Fatalf("the page's address is %q", page)
	}
	return base, token, page, cmd.Env
}

// wield web lets MCP servers ask the user: server-everything's elicitation tool stops the turn
// with its question, and the answer sent to the AG-UI endpoint resumes it.
func TestBinaryWebElicitation(t *testing.T) {
	srv := newFakeOpenAI(t, reply{calls: [][2]string{{"trigger-elicitation-request", "{}"}}}, reply{text: "Asked."})
	base, token, _, _ := startWeb(t, "--builtin=false", "--base-url", srv.v1(), "--model", "gpt-4o", "--mcp-config", everythingConfig(t), "-T", "trigger-elicitation-request")
	const thread = "chat-20250102-030405-e11c"
	in := map[string]any{"threadId": thread, "runId": "r0", "messages": []any{map[string]any{"id": "m1", "role": "user", "content": "Ask me"}}}
	var asked map[string]any
	for i := 1; ; i++ {
		if i > 4 {
			t.Fatal("the turn did not end")
		}
		in["runId"] = fmt.Sprintf("r%d", i)
		body, _ := json.Marshal(in)
		resp, err := http.Post(base+"/agui?token="+token, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		events, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var last struct {
			Type    string
			Result  string
			Outcome struct {
				Type       string
				Interrupts []map[string]any
			}
		}
		lines := strings.Split(strings.TrimSpace(string(events)), "\n")
		if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[len(lines)-1], "data: ")), &last); err != nil || last.Type != "RUN_FINISHED" {
			t.Fatalf("run %d ended with %s", i, events)
		}
		if last.Outcome.Type != "interrupt" {
			if asked == nil || last.Result != "Asked." || !strings.Contains(strings.ToLower(string(events)), "decline") {
				t.Fatalf("the turn ended without the question: asked %v, events %s", asked, events)
			}
			return
		}
		var resume []any
		for _, q := range last.Outcome.Interrupts {
			switch q["reason"] {
			case "tool_approval": // the server's tools are destructive unless they say otherwise
				resume = append(resume, map[string]any{"interruptId": q["id"], "status": "resolved", "payload": map[string]any{"approved": true}})
			case "mcp_elicitation":
				asked = q
				md, _ := q["metadata"].(map[string]any)
				if md["server"] != "everything" || md["requestedSchema"] == nil || q["message"] == "" {
					t.Fatalf("the question %v", q)
				}
				resume = append(resume, map[string]any{"interruptId": q["id"], "status": "resolved", "payload": map[string]any{"action": "decline"}})
			default:
				t.Fatalf("interrupt %v", q)
			}
		}
		in = map[string]any{"threadId": thread, "resume": resume}
	}
}
