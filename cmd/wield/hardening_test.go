package main

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/memory/sqlstore"
)

// The tests here are the command's part of an attack review: each failed before its fix.

// A provider's key from the environment goes only to the provider's own host: a --base-url
// server gets the key given for it, or none.
func TestKeyStaysWithItsProvider(t *testing.T) {
	const secret = "sk-env-secret-for-openai"
	for _, tt := range []struct {
		name string
		env  []string
		args []string
		want string // the Authorization header the server gets
	}{
		{"no key for the server", nil, nil, ""},
		{"WIELD_API_KEY", []string{"WIELD_API_KEY=local-key"}, nil, "Bearer local-key"},
		{"--api-key", []string{"WIELD_API_KEY=local-key"}, []string{"--api-key", "flag-key"}, "Bearer flag-key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeOpenAI(t, reply{text: "hi"})
			env := envWith(cleanEnv(t), append([]string{"OPENAI_API_KEY=" + secret}, tt.env...)...)
			args := append([]string{"chat", "--base-url", srv.v1(), "--model", "gpt-4o"}, tt.args...)
			r := wield(t, env, "", append(args, "hello")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			for _, h := range srv.authorization() {
				if strings.Contains(h, secret) || h != tt.want {
					t.Errorf("Authorization %q, want %q", h, tt.want)
				}
			}
		})
	}
	// OPENAI_BASE_URL beside OPENAI_API_KEY is the user pairing them, as the SDK reads them.
	srv := newFakeOpenAI(t, reply{text: "hi"})
	r := wield(t, envWith(cleanEnv(t), "OPENAI_API_KEY="+secret, "OPENAI_BASE_URL="+srv.v1()), "", "chat", "--model", "openai/gpt-4o", "hello")
	if h := srv.authorization(); r.code != 0 || len(h) != 1 || h[0] != "Bearer "+secret {
		t.Fatalf("with OPENAI_BASE_URL: exit %d, %q, %s", r.code, h, r.stderr)
	}
}

// A password in a base URL is never echoed, whether the URL parses or not.
func TestBaseURLPasswordNotEchoed(t *testing.T) {
	const password = "hunter2secret"
	for _, url := range []string{
		"http://user:" + password + "@bad host/v1",
		"http://user:" + password + "@127.0.0.1:1/v1",
		"ftp://user:" + password + "@example.com/v1",
	} {
		for _, args := range [][]string{
			{"chat", "--base-url", url, "--model", "m", "hi"},
			{"chat", "--base-url", url, "hi"},
			{"models", "--base-url", url},
			{"config", "--base-url", url, "--model", "m"},
		} {
			r := wield(t, cleanEnv(t), "", args...)
			if strings.Contains(r.stderr+r.stdout, password) {
				t.Errorf("%q echoed the password:\n%s%s", args, r.stdout, r.stderr)
			}
		}
	}
}

// Control characters in model-supplied tool names and arguments, and in session names, are
// escaped when printed.
func TestControlCharactersEscaped(t *testing.T) {
	const evil = "\x1b]0;pwned\x07\x1b[2J\u202e"
	m := chattest.New(
		chattest.Calls(chattest.Call("getCurrentDateTime"+evil, `{"x":"`+evil+`"}`)),
		chattest.Text("done"),
	)
	stdout, stderr, code := run(t, keyEnv(t), m, "", "chat", "--verbose", "hi")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{stdout, stderr} {
		if strings.ContainsAny(s, "\x1b\x07\u202e") {
			t.Errorf("a control character reached the terminal: %q", s)
		}
	}
	if !strings.Contains(stderr, `getCurrentDateTime\x1b]0;pwned\x07\x1b[2J\u202e`) {
		t.Errorf("the tool name is not shown escaped: %q", stderr)
	}

	// A session whose name another program stored with control characters.
	env := keyEnv(t)
	dir := filepath.Join(env["XDG_DATA_HOME"], "wield")
	os.MkdirAll(dir, 0o700)
	store, err := sqlstore.OpenSQLite(t.Context(), filepath.Join(dir, "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	// The store refuses such names now; an older program may have written one, as here.
	if err := store.Append(context.Background(), "red", chat.User("hi")); err != nil {
		t.Fatal(err)
	}
	store.Close()
	db, err := sql.Open("sqlite", filepath.Join(dir, "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA foreign_keys = OFF;
		UPDATE wield_messages SET conversation_id = ?1 WHERE conversation_id = 'red';
		UPDATE wield_conversations SET id = ?1 WHERE id = 'red'`, "red"+evil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	stdout, stderr, code = run(t, env, nil, "", "sessions", "list")
	if code != 0 || strings.ContainsAny(stdout+stderr, "\x1b\x07\u202e") || !strings.HasPrefix(stdout, `red\x1b]0;pwned`) {
		t.Fatalf("sessions list: %d %q %q", code, stdout, stderr)
	}
}

// The help of --max-tool-calls says what happens at the limit, and it happens: the model is told
// and answers, also with the default limits.
func TestMaxToolCallsHelpMatches(t *testing.T) {
	stdout, _, _ := run(t, keyEnv(t), nil, "", "chat", "--help")
	var help string
	for _, line := range strings.Split(stdout, "\n") {
		if strings.Contains(line, "--max-tool-calls") {
			help = line
		}
	}
	for _, want := range []string{"150", "40", "told"} {
		if !strings.Contains(help, want) {
			t.Errorf("--max-tool-calls help lacks %q: %s", want, help)
		}
	}
	// 41 calls of one tool in one response: one more than the default per-tool limit.
	var calls []chat.ToolCall
	for range 41 {
		calls = append(calls, chattest.Call("getCurrentDateTime", `{}`))
	}
	m := chattest.New(chattest.Calls(calls...), chattest.Text("Here is the time."))
	stdout, stderr, code := run(t, keyEnv(t), m, "", "chat", "What time is it?")
	if code != 0 || stdout != "Here is the time.\n" {
		t.Fatalf("over the default limit: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	last := m.Prompts()[1].Messages
	results := last[len(last)-1].ToolResults
	if len(results) != 41 || !results[40].IsError || results[0].IsError {
		t.Fatalf("results sent back: %d", len(results))
	}
	// With the flag, its number is the total.
	m = chattest.New(chattest.Calls(calls[:3]...), chattest.Text("ok"))
	if _, stderr, code := run(t, keyEnv(t), m, "", "chat", "--max-tool-calls", "2", "hi"); code != 0 {
		t.Fatalf("--max-tool-calls 2: %s", stderr)
	}
	last = m.Prompts()[1].Messages
	if rs := last[len(last)-1].ToolResults; len(rs) != 3 || rs[1].IsError || !rs[2].IsError {
		t.Fatalf("--max-tool-calls 2: results %+v", rs)
	}
}

// Reaching the tool loop's iteration cap is said in text mode.
func TestIterationCapSaid(t *testing.T) {
	var script []chattest.Reply
	for range 25 {
		script = append(script, chattest.Calls(chattest.Call("getCurrentDateTime", `{}`)))
	}
	m := chattest.New(append(script, chattest.Text("I kept checking the time."))...)
	stdout, stderr, code := run(t, keyEnv(t), m, "", "chat", "What time is it?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "the answer may be incomplete") {
		t.Fatalf("stdout %q, stderr %q: the cap is not said", stdout, stderr)
	}
}

// endless is standard input that never ends: a pipe from /dev/zero or a runaway program. It ends
// after limit bytes all the same, so that a command reading it whole fails the test rather than
// the machine.
type endless struct{ read, limit int64 }

func (r *endless) Read(p []byte) (int, error) {
	if r.read >= r.limit {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), r.limit-r.read))
	for i := range n {
		p[i] = 'a'
	}
	r.read += int64(n)
	return n, nil
}

// Standard input longer than any prompt or arguments can be is refused with a clear error once
// past the limit, instead of being read into memory to its end.
func TestEndlessStdin(t *testing.T) {
	for _, args := range [][]string{{"chat", "-"}, {"chat", "summarise", "this"}, {"tools", "call", "getCurrentDateTime", "-"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			in := &endless{limit: 3 * maxStdinBytes}
			var out, errw bytes.Buffer
			a := newApp(in, &out, &errw, func(k string) string { return keyEnv(t)[k] })
			m := chattest.New(chattest.Text("Summarised."))
			a.modelOverride = func(modelSpec) (chat.Model, error) { return m, nil }
			code := a.run(t.Context(), args)
			if code == exitOK {
				t.Fatalf("exit 0 after reading %d bytes of standard input", in.read)
			}
			if in.read > maxStdinBytes+64<<10 {
				t.Errorf("read %d bytes of standard input; want it to stop near %d", in.read, maxStdinBytes)
			}
			if !strings.Contains(errw.String(), "standard input is over") {
				t.Errorf("stderr = %q", errw.String())
			}
		})
	}
}

// A provider's environment key goes to its own host only over HTTPS on the default port: a
// --base-url of http://api.openai.com:18080 (or plain http) gets no key, from wield or from the
// SDK reading the environment itself; the address $OPENAI_BASE_URL names exactly is the user's own.
func TestKeyOnlyOverHTTPSToItsHost(t *testing.T) {
	const secret = "sk-env-secret-for-openai"
	env := map[string]string{"OPENAI_API_KEY": secret, "OPENAI_BASE_URL": "http://proxy.internal:8080/v1"}
	a := newApp(strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return env[k] })
	p := providerNamed("openai")
	for url, want := range map[string]bool{
		"":                                  true,
		"https://api.openai.com/v1":         true,
		"https://API.OpenAI.com:443/v1":     true,
		"http://api.openai.com/v1":          false,
		"http://api.openai.com:18080/v1":    false,
		"https://api.openai.com:8443/v1":    false,
		"https://api.openai.com.evil/v1":    false,
		"http://proxy.internal:8080/v1":     true,
		"http://proxy.internal/v1":          false,
		"https://proxy.internal:8080/v1":    false,
		"not a url at all ::":               false,
		"https://user:pw@api.openai.com/v1": true,
	} {
		if got := a.ownHost(p, url); got != want {
			t.Errorf("ownHost(%q) = %v, want %v", url, got, want)
		}
	}
	for _, tt := range []struct {
		flags modelFlags
		key   string
	}{
		{modelFlags{model: "openai/gpt-5", baseURL: "http://api.openai.com:18080/v1"}, ""},
		{modelFlags{model: "openai/gpt-5", baseURL: "http://api.openai.com/v1"}, ""},
		{modelFlags{model: "openai/gpt-5", baseURL: "https://api.openai.com/v1"}, secret},
	} {
		s, err := a.resolveModel(t.Context(), tt.flags)
		if err != nil {
			t.Fatal(err)
		}
		if s.apiKey != tt.key {
			t.Errorf("%s: key %q, want %q", tt.flags.baseURL, s.apiKey, tt.key)
		}
	}
	// The transport strips the key an SDK found in the environment on its own.
	var got []string
	rec := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		got = append(got, r.Header.Get("Authorization"))
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
	})
	g := &guardTransport{base: rec, secrets: a.envSecrets()}
	for _, u := range []string{"http://api.openai.com:18080/v1/x", "http://api.openai.com/v1/x", "https://api.openai.com/v1/x", "http://proxy.internal:8080/v1/x"} {
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set("Authorization", "Bearer "+secret)
		if _, err := g.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"", "", "Bearer " + secret, "Bearer " + secret}
	if !slices.Equal(got, want) {
		t.Fatalf("Authorization sent %q, want %q", got, want)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
