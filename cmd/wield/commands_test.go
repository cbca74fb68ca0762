package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/version"
)

func httptestServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// runApp runs the command in process like run, after setup adjusts the app (terminals, ...).
func runApp(t *testing.T, env map[string]string, model chat.Model, stdin string, setup func(*app), args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errw bytes.Buffer
	a := newApp(strings.NewReader(stdin), &out, &errw, func(k string) string { return env[k] })
	if model != nil {
		a.modelOverride = func(modelSpec) (chat.Model, error) { return model, nil }
	}
	if setup != nil {
		setup(a)
	}
	code = a.run(t.Context(), args)
	return out.String(), errw.String(), code
}

// terminals makes the app believe stdout and stderr are terminals.
func terminals(a *app) { a.stdoutTTY, a.stderrTTY = true, true }

func TestChatWordsArePrompt(t *testing.T) {
	m := chattest.New(chattest.Text("Tuesday."))
	if _, stderr, code := run(t, keyEnv(t), m, "", "chat", "what", "day", "is", "it"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := m.Prompts()[0].Messages[0].Content; got != "what day is it" {
		t.Fatalf("prompt %q", got)
	}
}

func TestChatPipedInputJoinsPrompt(t *testing.T) {
	m := chattest.New(chattest.Text("Two notes."))
	if _, stderr, code := run(t, keyEnv(t), m, "buy milk\ncall Ada\n", "chat", "summarise"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := m.Prompts()[0].Messages[0].Content; got != "summarise\n\nbuy milk\ncall Ada" {
		t.Fatalf("prompt %q", got)
	}
}

// On a terminal: a usage line after each answer, the Markdown rendered; --raw prints it as is.
func TestChatTerminalRendering(t *testing.T) {
	answer := "# Plan\n\nSome **bold** words.\n\n- one\n- two\n"
	m := chattest.New(chattest.Text(answer).WithUsage(1234, 56))
	env := keyEnv(t)
	stdout, stderr, code := runApp(t, env, m, "", terminals, "chat", "make a plan")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	shown := screen(stdout, 80)
	if strings.Contains(shown, "**bold**") || strings.Contains(shown, "# Plan") || !strings.Contains(shown, "Some bold words.") || !strings.Contains(shown, "• one") {
		t.Errorf("not rendered:\n%s\n%q", shown, stdout)
	}
	if !strings.Contains(stderr, "tokens: 1,234 in, 56 out") {
		t.Errorf("no usage line: %q", stderr)
	}
	// NO_COLOR: rendered without colors.
	env["NO_COLOR"] = "1"
	stdout, stderr, _ = runApp(t, env, chattest.New(chattest.Text(answer)), "", terminals, "chat", "make a plan")
	if shown := screen(stdout, 80); strings.Contains(stdout+stderr, "\x1b[3") || !strings.Contains(shown, "Plan\n\n  Some") || !strings.Contains(shown, "• one") {
		t.Errorf("NO_COLOR: %q %q\n%s", stdout, stderr, shown)
	}
	stdout, _, _ = runApp(t, env, chattest.New(chattest.Text(answer)), "", terminals, "chat", "--raw", "make a plan")
	if stdout != answer {
		t.Errorf("--raw: %q", stdout)
	}
	// Not a terminal: raw, and nothing on stderr.
	stdout, stderr, _ = run(t, env, chattest.New(chattest.Text(answer).WithUsage(1, 1)), "", "chat", "make a plan")
	if stdout != answer || stderr != "" {
		t.Errorf("piped: %q %q", stdout, stderr)
	}
}

func TestUsageLine(t *testing.T) {
	for _, tt := range []struct {
		u     chat.Usage
		calls int
		want  string
	}{
		{chat.Usage{}, 1, ""},
		{chat.Usage{InputTokens: 10, OutputTokens: 2}, 1, "tokens: 10 in, 2 out"},
		{chat.Usage{InputTokens: 12000, CachedInputTokens: 8000, OutputTokens: 1500, ReasoningTokens: 900}, 3,
			"tokens: 12,000 in (8,000 cached), 1,500 out (900 reasoning), 3 model calls"},
	} {
		if got := usageLine(&client.Response{Usage: tt.u, ModelCalls: tt.calls}); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.u, got, tt.want)
		}
	}
}

func TestVersionCommand(t *testing.T) {
	stdout, _, code := run(t, keyEnv(t), nil, "", "version")
	if code != 0 || stdout != "wield "+version.Get().String()+"\n" || !strings.HasPrefix(stdout, "wield devel (") {
		t.Fatalf("exit %d: %q", code, stdout)
	}
	r := wield(t, cleanEnv(t), "", "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "wield devel (") || !strings.Contains(r.stdout, "go1.") {
		t.Fatalf("binary: %+v", r)
	}
	// wield mcp serve names the same version to its clients, with the commit of a working-tree
	// build.
	cmd := exec.Command(wieldBin, "mcp", "serve")
	cmd.Env = cleanEnv(t)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	info := cs.InitializeResult().ServerInfo
	want := "devel"
	if _, after, ok := strings.Cut(r.stdout, "(commit "); ok {
		commit, _, _ := strings.Cut(after, " ")
		want += "+" + strings.TrimSuffix(commit, ",")
	}
	if info.Name != "wield" || !strings.HasPrefix(info.Version, want) {
		t.Errorf("serverInfo %+v, want version %s (wield version says %q)", info, want, r.stdout)
	}
}

func TestModelsCommand(t *testing.T) {
	srv := newFakeOpenAI(t)
	srv.models = []string{"qwen3-8b", "llama-3.1-8b"}
	stdout, stderr, code := run(t, keyEnv(t), nil, "", "models", "--base-url", srv.v1())
	if code != 0 || stdout != "openai/llama-3.1-8b\nopenai/qwen3-8b\n" {
		t.Fatalf("exit %d: %q %s", code, stdout, stderr)
	}
	stdout, _, code = run(t, keyEnv(t), nil, "", "models", "--json", "--base-url", srv.v1())
	var list []struct{ Model, Provider, Name string }
	if code != 0 || json.Unmarshal([]byte(stdout), &list) != nil || len(list) != 2 || list[0].Name != "llama-3.1-8b" || list[0].Model != "openai/llama-3.1-8b" {
		t.Fatalf("--json: %q", stdout)
	}
	// OpenAI itself, through OPENAI_BASE_URL (which the user pairs with OPENAI_API_KEY).
	env := keyEnv(t)
	env["OPENAI_BASE_URL"] = srv.v1()
	if stdout, stderr, code := run(t, env, nil, "", "models", "openai"); code != 0 || stdout != "openai/llama-3.1-8b\nopenai/qwen3-8b\n" {
		t.Fatalf("models openai: %d %q %s", code, stdout, stderr)
	}
	if h := srv.authorization(); h[len(h)-1] != "Bearer test-key" {
		t.Fatalf("Authorization %q", h)
	}
	// Ollama's tags.
	ol := fakeOllama(t, []string{"qwen3:4b", "gemma3:1b"}, nil)
	if stdout, stderr, code := run(t, map[string]string{"OLLAMA_HOST": ol.URL}, nil, "", "models"); code != 0 || stdout != "ollama/gemma3:1b\nollama/qwen3:4b\n" {
		t.Fatalf("ollama: %d %q %s", code, stdout, stderr)
	}
	if _, stderr, code := run(t, keyEnv(t), nil, "", "models", "mistral"); code != exitUsage || !strings.Contains(stderr, `unknown provider "mistral"`) {
		t.Fatalf("unknown provider: %d %s", code, stderr)
	}
	if _, stderr, code := run(t, map[string]string{}, nil, "", "models", "anthropic"); code != exitConfig || !strings.Contains(stderr, "set ANTHROPIC_API_KEY") {
		t.Fatalf("anthropic without a key: %d %s", code, stderr)
	}
}

func TestModelsOtherProviders(t *testing.T) {
	var paths []string
	srv := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path+" "+r.Header.Get("X-Api-Key")+r.Header.Get("X-Goog-Api-Key"))
		switch {
		case r.URL.Path == "/v1/models":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"data":[{"id":"claude-haiku-4-5","type":"model","display_name":"Haiku","created_at":"2025-01-01T00:00:00Z"}],"has_more":false,"first_id":"a","last_id":"a"}`))
		case strings.HasSuffix(r.URL.Path, "/models"):
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"models":[{"name":"models/gemini-2.5-flash","supportedGenerationMethods":["generateContent"]},{"name":"models/text-embedding-004","supportedGenerationMethods":["embedContent"]}]}`))
		default:
			http.NotFound(w, r)
		}
	})
	env := map[string]string{"ANTHROPIC_API_KEY": "ak", "ANTHROPIC_BASE_URL": srv.URL, "GEMINI_API_KEY": "gk", "GOOGLE_GEMINI_BASE_URL": srv.URL}
	if stdout, stderr, code := run(t, env, nil, "", "models", "anthropic"); code != 0 || stdout != "anthropic/claude-haiku-4-5\n" {
		t.Fatalf("anthropic: %d %q %s", code, stdout, stderr)
	}
	if stdout, stderr, code := run(t, env, nil, "", "models", "gemini"); code != 0 || stdout != "gemini/gemini-2.5-flash\n" {
		t.Fatalf("gemini: %d %q %s %v", code, stdout, stderr, paths)
	}
	if len(paths) < 2 || !strings.HasSuffix(paths[0], " ak") || !strings.HasSuffix(paths[len(paths)-1], " gk") {
		t.Fatalf("requests %q", paths)
	}
}

func TestConfigFile(t *testing.T) {
	env := keyEnv(t)
	dir := t.TempDir()
	env["XDG_CONFIG_HOME"] = dir
	srv := newFakeOpenAI(t, reply{text: "from the configured server"})
	cfg := `{
  "model": "openai/qwen3-8b",
  "providers": {"openai": {"baseURL": "` + srv.v1() + `", "apiKeyEnv": "MY_SERVER_KEY"}},
  "mcpServers": {},
  "approval": {"policy": "ask", "approve": ["getCurrentDateTime"]}
}`
	os.MkdirAll(filepath.Join(dir, "wield"), 0o700)
	os.WriteFile(filepath.Join(dir, "wield", "config.json"), []byte(cfg), 0o600)
	env["MY_SERVER_KEY"] = "server-key"
	stdout, stderr, code := run(t, env, nil, "", "config")
	if code != 0 {
		t.Fatalf("config: %d %s", code, stderr)
	}
	for _, want := range []string{
		"config file  " + filepath.Join(dir, "wield", "config.json"),
		"model        openai/qwen3-8b",
		"the configuration file",
		"base URL     " + srv.v1(),
		"API key      $MY_SERVER_KEY (set)",
		"approval     ask; approved: getCurrentDateTime",
		"sessions     " + filepath.Join(env["XDG_DATA_HOME"], "wield", "sessions.db") + "  $XDG_DATA_HOME",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("config lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "server-key") || strings.Contains(stdout, "test-key") {
		t.Errorf("config shows a key:\n%s", stdout)
	}
	// A chat uses it: the model, the server and the key the file names.
	stdout, stderr, code = run(t, env, nil, "", "chat", "hi")
	if code != 0 || stdout != "from the configured server\n" {
		t.Fatalf("chat: %d %q %s", code, stdout, stderr)
	}
	if h := srv.authorization(); len(h) != 1 || h[0] != "Bearer server-key" {
		t.Fatalf("Authorization %q", h)
	}
	if reqs := srv.chatRequests(); reqs[0].Model != "qwen3-8b" {
		t.Fatalf("model %q", reqs[0].Model)
	}
	// Flags win.
	stdout, _, _ = run(t, env, nil, "", "config", "--json", "--model", "openai/gpt-5")
	var settings []setting
	json.Unmarshal([]byte(stdout), &settings)
	if len(settings) < 2 || settings[1] != (setting{"model", "openai/gpt-5", "--model"}) {
		t.Fatalf("config --json --model: %+v", settings)
	}
	// Broken files are named.
	for bad, want := range map[string]string{
		`{"model": 3}`:                                     "config.json: json: cannot unmarshal number",
		`{"modle": "x"}`:                                   `unknown field "modle"`,
		`{"providers": {"mistral": {}}}`:                   `unknown provider "mistral"`,
		`{"approval": {"policy": "sometimes"}}`:            `approval.policy is "sometimes"`,
		`{"providers": {"openai": {"apiKeyEnv": "$KEY"}}}`: "give the name of an environment variable",
	} {
		os.WriteFile(filepath.Join(dir, "wield", "config.json"), []byte(bad), 0o600)
		if _, stderr, code := run(t, env, nil, "", "config"); code != exitError || !strings.Contains(stderr, want) {
			t.Errorf("%s: %d %q, want %q", bad, code, stderr, want)
		}
	}
	// A variable the file names for a key must be set.
	os.WriteFile(filepath.Join(dir, "wield", "config.json"), []byte(cfg), 0o600)
	delete(env, "MY_SERVER_KEY")
	if _, stderr, code := run(t, env, nil, "", "chat", "hi"); code != exitConfig || !strings.Contains(stderr, "$MY_SERVER_KEY, which is not set") {
		t.Fatalf("unset key variable: %d %s", code, stderr)
	}
}

func TestSessionsShowAndContinue(t *testing.T) {
	env := keyEnv(t)
	env["XDG_STATE_HOME"] = t.TempDir()
	if _, _, code := run(t, env, chattest.New(chattest.Text("Hello")), "", "chat", "--continue", "hi"); code != exitError {
		t.Fatalf("--continue before any chat: exit %d", code)
	}
	m := chattest.New(chattest.Calls(chattest.Call("getCurrentDateTime", `{}`)), chattest.Text("It is Tuesday."))
	if _, stderr, code := run(t, env, m, "", "chat", "What day is it?"); code != 0 {
		t.Fatal(stderr)
	}
	m2 := chattest.New(chattest.Text("Wednesday."))
	if _, stderr, code := run(t, env, m2, "", "chat", "--continue", "And tomorrow?"); code != 0 {
		t.Fatal(stderr)
	}
	// The model reads again what its tools returned.
	if msgs := m2.Prompts()[0].Messages; len(msgs) != 5 || msgs[1].ToolCalls[0].Name != "getCurrentDateTime" ||
		msgs[2].Role != chat.RoleTool || !strings.Contains(msgs[2].ToolResults[0].Content, "Asia/Tokyo") || msgs[3].Content != "It is Tuesday." {
		t.Fatalf("--continue sent %v", msgs)
	}
	stdout, _, _ := run(t, env, nil, "", "sessions", "list")
	ids := sessionNames(stdout)
	if len(ids) != 1 || !unnamedID.MatchString(ids[0]) {
		t.Fatalf("sessions %q", stdout)
	}
	stdout, stderr, code := run(t, env, nil, "", "sessions", "show", ids[0])
	want := regexp.MustCompile(`^— \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · openai/gpt-4.1-mini · \d+ in, \d+ out tokens · [\d.]+s\nyou:\nWhat day is it\?\n\nassistant:\n→ getCurrentDateTime \{\}\n\n← getCurrentDateTime: .*Asia/Tokyo\)\n\nassistant:\nIt is Tuesday.\n\n— .*\nyou:\nAnd tomorrow\?\n\nassistant:\nWednesday.\n$`)
	if code != 0 || !want.MatchString(stdout) {
		t.Fatalf("show: %d %q %s", code, stdout, stderr)
	}
	stdout, _, _ = run(t, env, nil, "", "sessions", "show", "--json", ids[0])
	var msgs []chat.Message
	if json.Unmarshal([]byte(stdout), &msgs) != nil || len(msgs) != 6 || msgs[5].Content != "Wednesday." {
		t.Fatalf("show --json: %q", stdout)
	}
	var turns []struct {
		Role string
		Turn *turnInfo
	}
	json.Unmarshal([]byte(stdout), &turns)
	if turns[0].Turn == nil || turns[0].Turn.Model != "openai/gpt-4.1-mini" || turns[4].Turn == nil || turns[1].Turn != nil {
		t.Fatalf("show --json: turns %q", stdout)
	}
	if _, stderr, code := run(t, env, nil, "", "sessions", "show", "nosuch"); code != exitError || !strings.Contains(stderr, `no session named "nosuch"`) {
		t.Fatalf("show nosuch: %d %s", code, stderr)
	}
	// A named session is the last chat too.
	run(t, env, chattest.New(chattest.Text("ok")), "", "chat", "--session", "trip", "hi")
	m3 := chattest.New(chattest.Text("again"))
	run(t, env, m3, "", "chat", "-c", "more")
	if msgs := m3.Prompts()[0].Messages; len(msgs) != 3 || msgs[0].Content != "hi" {
		t.Fatalf("--continue after a named session sent %v", msgs)
	}
}

func TestUnnamedChatsArePruned(t *testing.T) {
	env := keyEnv(t)
	env["XDG_STATE_HOME"] = t.TempDir()
	for range keptUnnamed + 3 {
		if _, stderr, code := run(t, env, chattest.New(chattest.Text("ok")), "", "chat", "hi"); code != 0 {
			t.Fatal(stderr)
		}
	}
	stdout, _, _ := run(t, env, nil, "", "sessions", "list")
	if n := len(sessionNames(stdout)); n != keptUnnamed {
		t.Fatalf("%d unnamed chats kept, want %d", n, keptUnnamed)
	}
}

func TestErrorHints(t *testing.T) {
	for _, tt := range []struct {
		name    string
		rep     reply
		baseURL func(*fakeOpenAI) string
		env     map[string]string
		want    []string
	}{
		{"base URL without /v1", reply{}, func(s *fakeOpenAI) string { return s.URL }, nil,
			[]string{"answered HTTP 404", "hint: OpenAI-compatible servers serve their API under a version path: try --base-url "}},
		{"unknown model", reply{status: 404, body: `{"error":{"message":"The model 'gpt-9' does not exist","type":"invalid_request_error","code":"model_not_found"}}`}, nil, nil,
			[]string{`has no model "gpt-4o"`, "hint: run 'wield models --base-url "}},
		{"rejected key", reply{status: 401, body: `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`}, nil, map[string]string{"WIELD_API_KEY": "bad-key"},
			[]string{"refused the API key from $WIELD_API_KEY", "hint: check $WIELD_API_KEY"}},
		{"missing key", reply{status: 401, body: `{"error":{"message":"You must provide an API key"}}`}, nil, nil,
			[]string{"wants an API key", "hint: pass --api-key KEY or set WIELD_API_KEY"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeOpenAI(t, tt.rep)
			srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/v1/") {
					srv.serve(w, r)
					return
				}
				http.NotFound(w, r)
			})
			base := srv.v1()
			if tt.baseURL != nil {
				base = tt.baseURL(srv)
			}
			env := keyEnv(t)
			for k, v := range tt.env {
				env[k] = v
			}
			_, stderr, code := run(t, env, nil, "", "chat", "--base-url", base, "--model", "gpt-4o", "hi")
			if code != exitError {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "bad-key") || strings.Contains(stderr, "test-key") {
				t.Errorf("a key is shown:\n%s", stderr)
			}
		})
	}
	_, stderr, _ := run(t, keyEnv(t), nil, "", "chat", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "hi")
	if !strings.Contains(stderr, "nothing answers at http://127.0.0.1:1/v1 (connection refused)\nhint: is the server running?") {
		t.Errorf("connection refused: %s", stderr)
	}
}

func TestExplainKeyFromProviderVariable(t *testing.T) {
	a := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(string) string { return "" })
	s := modelSpec{provider: "anthropic", name: "claude-haiku-4-5", apiKey: "k", keyFrom: "$ANTHROPIC_API_KEY"}
	err := a.explain(&chat.ProviderError{Provider: "anthropic", StatusCode: 401, Type: "authentication_error", Message: "invalid x-api-key"}, s)
	if err.Error() != "anthropic refused the API key from $ANTHROPIC_API_KEY (HTTP 401: invalid x-api-key)\nhint: check $ANTHROPIC_API_KEY: it may be mistyped, revoked, or for another provider" {
		t.Fatalf("%v", err)
	}
	err = a.explain(&chat.ProviderError{Provider: "anthropic", StatusCode: 404, Type: "not_found_error", Message: "model: claude-nope"}, s)
	if !strings.HasPrefix(err.Error(), `anthropic has no model "claude-haiku-4-5"`) || !strings.HasSuffix(err.Error(), "hint: run 'wield models anthropic' to list the models it serves") {
		t.Fatalf("%v", err)
	}
	var pe *chat.ProviderError
	if !errors.As(err, &pe) {
		t.Fatal("the provider error is not kept")
	}
}

func TestDebugShowsExchangesRedacted(t *testing.T) {
	srv := newFakeOpenAI(t, reply{text: "hi there"})
	env := keyEnv(t)
	env["WIELD_API_KEY"] = "sk-very-secret-key"
	stdout, stderr, code := run(t, env, nil, "", "--debug", "chat", "--base-url", srv.v1(), "--model", "gpt-4o", "hello")
	if code != 0 || stdout != "hi there\n" {
		t.Fatalf("exit %d: %q %s", code, stdout, stderr)
	}
	for _, want := range []string{"> POST " + srv.v1() + "/chat/completions", "> Authorization: [redacted]", `"content":"hello"`, "< HTTP/1.1 200 OK", "< data: [DONE]"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("--debug lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "sk-very-secret-key") {
		t.Errorf("--debug shows the key:\n%s", stderr)
	}
}

func TestCompletion(t *testing.T) {
	env := keyEnv(t)
	run(t, env, chattest.New(chattest.Text("ok")), "", "chat", "--session", "planning", "hi")
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "sessions", "show", ""}, []string{"planning"}},
		{[]string{"__complete", "sessions", "delete", ""}, []string{"planning"}},
		{[]string{"__complete", "chat", "--session", ""}, []string{"planning"}},
		{[]string{"__complete", "tools", "call", ""}, []string{"getCurrentDateTime\t", "setAlarm\t"}},
		{[]string{"__complete", "chat", "--approve", ""}, []string{"getCurrentDateTime\t", "setAlarm\t"}},
		{[]string{"__complete", "chat", "--model", ""}, []string{"openai/\t", "anthropic/\t", "ollama/\t"}},
		{[]string{"__complete", "models", ""}, []string{"openai", "gemini"}},
		{[]string{"completion", "bash"}, []string{"bash completion V2 for wield"}},
	} {
		stdout, stderr, code := run(t, env, nil, "", tt.args...)
		if code != 0 {
			t.Errorf("%q: exit %d %s", tt.args, code, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%q lacks %q:\n%s", tt.args, w, stdout)
			}
		}
	}
	// Models after PROVIDER/ come from the provider.
	srv := newFakeOpenAI(t)
	env["OPENAI_BASE_URL"] = srv.v1()
	stdout, _, _ := run(t, env, nil, "", "__complete", "chat", "--model", "openai/")
	if !strings.Contains(stdout, "openai/gpt-4o\n") || !strings.Contains(stdout, "openai/gpt-4o-mini\n") {
		t.Errorf("model completion:\n%s", stdout)
	}
}
