package main

import (
	"bufio"
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
	cmd := exec.Command(wieldBin, "web", "--builtin=false", "--base-url", srv.v1(), "--model", "gpt-4o")
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
	var page string
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
	show.Env = cmd.Env
	shown, err := show.CombinedOutput()
	if err != nil || !strings.Contains(string(shown), "gpt-4o ·") {
		t.Fatalf("sessions show: %v\n%s", err, shown)
	}
}
