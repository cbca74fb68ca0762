package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSafeLine(t *testing.T) {
	for _, tt := range []struct{ in, line, text string }{
		{"plain text", "plain text", "plain text"},
		{"two\nlines\tand tab", `two\nlines\tand tab`, "two\nlines\tand tab"},
		{"\x1b[2Jclear", `\x1b[2Jclear`, `\x1b[2Jclear`},
		{"title\x1b]0;pwned\x07", `title\x1b]0;pwned\x07`, `title\x1b]0;pwned\x07`},
		{"carriage\rreturn", `carriage\rreturn`, `carriage\rreturn`},
		{"c1 \u009b31m", `c1 \x9b31m`, `c1 \x9b31m`},
		{"bidi \u202eevil", `bidi \u202eevil`, `bidi \u202eevil`},
		{"zero\u200bwidth", `zero\u200bwidth`, `zero\u200bwidth`},
		{"bad \xff utf-8", `bad \ufffd utf-8`, `bad \ufffd utf-8`},
		{"ünïcødé ✓ 日本", "ünïcødé ✓ 日本", "ünïcødé ✓ 日本"},
	} {
		if got := safeLine(tt.in); got != tt.line {
			t.Errorf("safeLine(%q) = %q, want %q", tt.in, got, tt.line)
		}
		if got := safeText(tt.in); got != tt.text {
			t.Errorf("safeText(%q) = %q, want %q", tt.in, got, tt.text)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"},
		{"https://user:secret@host/v1", "https://xxxxx@host/v1"},
		{"https://ghp_token@host/v1", "https://xxxxx@host/v1"},
		{"http://user:secret@bad host/v1", "http://xxxxx@bad host/v1"},
		{"https://host/v1beta?key=AIzaSecret&alt=sse", "https://host/v1beta?alt=sse&key=xxxxx"},
		{"https://host/v1?access_token=abc", "https://host/v1?access_token=xxxxx"},
		{"not a url at all", "not a url at all"},
	} {
		if got := redactURL(tt.in); got != tt.want {
			t.Errorf("redactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGuardTransport(t *testing.T) {
	var got []http.Header
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Clone())
		queries = append(queries, r.URL.RawQuery)
	}))
	defer srv.Close()
	env := map[string]string{"OPENAI_API_KEY": "sk-openai", "GEMINI_API_KEY": "gm-key", "ANTHROPIC_AUTH_TOKEN": "ant-token"}
	a := newApp(strings.NewReader(""), nil, nil, func(k string) string { return env[k] })
	send := func(c *http.Client, header, value, query string) {
		req, _ := http.NewRequest("GET", srv.URL+"/x?"+query, nil)
		req.Header.Set(header, value)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	c := a.httpClient(modelSpec{provider: "openai"})
	send(c, "Authorization", "Bearer sk-openai", "")
	send(c, "X-Goog-Api-Key", "gm-key", "key=gm-key&alt=sse")
	send(c, "Authorization", "Bearer ant-token", "")
	send(c, "Authorization", "Bearer something-else", "")
	if got[0].Get("Authorization") != "" || got[1].Get("X-Goog-Api-Key") != "" || queries[1] != "alt=sse" || got[2].Get("Authorization") != "" {
		t.Fatalf("environment keys reached 127.0.0.1: %v %q", got[:3], queries[1])
	}
	if got[3].Get("Authorization") != "Bearer something-else" {
		t.Fatalf("a key not from the environment was stripped: %v", got[3])
	}
	// The key given for the server passes, even when the environment has it too.
	c = a.httpClient(modelSpec{provider: "openai", apiKey: "sk-openai"})
	send(c, "Authorization", "Bearer sk-openai", "")
	if got[4].Get("Authorization") != "Bearer sk-openai" {
		t.Fatalf("the key given was stripped: %v", got[4])
	}
	// The provider's base URL variable names a host the key may go to.
	env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	c = a.httpClient(modelSpec{provider: "openai"})
	send(c, "Authorization", "Bearer sk-openai", "")
	if got[5].Get("Authorization") != "Bearer sk-openai" {
		t.Fatalf("OPENAI_BASE_URL's host lost the key: %v", got[5])
	}
}

func TestFileHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "history")
	var h fileHistory
	h.load(path)
	h.Add("ignored: the Terminal's own additions")
	h.keep("first")
	h.keep("two\nlines")
	h.keep("two\nlines") // repeated: kept once
	if h.Len() != 2 || h.At(0) != "two lines" || h.At(1) != "first" {
		t.Fatalf("entries %q", h.entries)
	}
	// Another chat, running meanwhile, adds its own; both are kept.
	var other fileHistory
	other.load(path)
	other.keep("from the other chat")
	h.keep("third")
	b, _ := os.ReadFile(path)
	if string(b) != "\"first\"\n\"two\\nlines\"\n\"from the other chat\"\n\"third\"\n" {
		t.Fatalf("file %q", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("history file mode %v", fi.Mode())
	}
	// The file keeps the newest historyLimit entries.
	var long strings.Builder
	for i := range historyLimit + 10 {
		fmt.Fprintf(&long, "\"q%d\"\n", i)
	}
	os.WriteFile(path, []byte(long.String()), 0o600)
	var again fileHistory
	again.load(path)
	again.keep("newest")
	if again.Len() != historyLimit || again.At(0) != "newest" || again.At(historyLimit-1) != "q11" {
		t.Fatalf("%d entries, newest %q, oldest %q", again.Len(), again.At(0), again.At(again.Len()-1))
	}
	b, _ = os.ReadFile(path)
	if n := strings.Count(string(b), "\n"); n != historyLimit {
		t.Fatalf("the file has %d entries", n)
	}
	// A line starting with a space is not kept.
	e := &lineEditor{hist: &fileHistory{}}
	e.keep(" secret")
	e.keep("   ")
	if e.hist.Len() != 0 {
		t.Fatalf("kept %q", e.hist.entries)
	}
}

func TestKeyFilter(t *testing.T) {
	interrupted := false
	k := &keyFilter{r: strings.NewReader("ab\x03c"), pending: func() bool { return interrupted }}
	buf := make([]byte, 10)
	n, _ := k.Read(buf)
	if string(buf[:n]) != "ab\x1cc" {
		t.Fatalf("read %q", buf[:n])
	}
	interrupted = true
	if _, err := k.Read(buf); err != errCtrlC {
		t.Fatalf("after Ctrl-C: %v", err)
	}
}
