package providertest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/replay"
)

func TestSSE(t *testing.T) {
	got := string(SSE(`{"type":"message_start","x":1}`, `ping|{"broken"`, `{"no":"type"}|data`))
	want := "event: message_start\ndata: {\"type\":\"message_start\",\"x\":1}\n\n" +
		"event: ping\ndata: {\"broken\"\n\n" +
		"event: {\"no\":\"type\"}\ndata: data\n\n"
	if got != want {
		t.Errorf("SSE = %q, want %q", got, want)
	}
}

func TestJSONError(t *testing.T) {
	ex := JSONError(429, `{"error":"slow down"}`, "Retry-After", "2", "X-Other")
	if ex.Status != 429 || string(ex.Body) != `{"error":"slow down"}` || ex.Header.Get("Content-Type") != "application/json" ||
		ex.Header.Get("Retry-After") != "2" || len(ex.Header) != 2 {
		t.Errorf("JSONError = %+v", ex)
	}
}

func TestSameRequests(t *testing.T) {
	srv := replay.NewServer(t, replay.Exchange{}, replay.Exchange{}, replay.Exchange{}, replay.Exchange{})
	for _, body := range []string{"a", "a"} {
		post(t, srv.URL, body)
	}
	if failed, msg := check(t, func(t testing.TB) { SameRequests(t, srv) }); failed {
		t.Errorf("equal requests: %s", msg)
	}
	post(t, srv.URL, "b")
	if failed, _ := check(t, func(t testing.TB) { SameRequests(t, srv) }); !failed {
		t.Error("a different request passed")
	}
}

// TestVariantError: the check passes an error of the wanted type that ok accepts after the text
// "Hel", and fails any other error, none, or other text before it.
func TestVariantError(t *testing.T) {
	hel := &chat.Response{Generations: []chat.Generation{{Message: chat.Message{Role: chat.RoleAssistant, Content: "Hel"}}}}
	overloaded := fmt.Errorf("stream: %w", &chat.ProviderError{Type: "overloaded_error"})
	isOverloaded := func(pe *chat.ProviderError) bool { return pe.Type == "overloaded_error" }
	for _, tc := range []struct {
		name  string
		got   *chat.Response
		err   error
		fails bool
	}{
		{name: "wanted", got: hel, err: overloaded},
		{name: "no error", got: hel, fails: true},
		{name: "another type", got: hel, err: fmt.Errorf("overloaded_error"), fails: true},
		{name: "refused by ok", got: hel, err: &chat.ProviderError{Type: "api_error"}, fails: true},
		{name: "other text", got: &chat.Response{}, err: overloaded, fails: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectCaught(t, tc.fails, func(t testing.TB) { VariantError(t, tc.got, tc.err, "an overloaded_error", isOverloaded) })
		})
	}
}

func post(t *testing.T, url, body string) {
	t.Helper()
	res, err := http.Post(url, "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
}

// TestTargetChecks runs the shared checks on a model that does everything right, and on models
// with one flaw each, which the checks must catch.
func TestTargetChecks(t *testing.T) {
	checks := map[string]func(Target, testing.TB){
		"CancelCall":       Target.CancelCall,
		"CancelStream":     Target.CancelStream,
		"CancelBeforeSend": Target.CancelBeforeSend,
		"StopEarly":        Target.StopEarly,
		"StreamCut": func(tg Target, t testing.TB) {
			tg.StreamCut(t, replay.Exchange{Body: []byte("one\ntwo\nthree\n"), CutAfter: 6}, 0)
		},
		"ConsumerPanic": func(tg Target, t testing.TB) {
			srv := replay.NewServer(t, replay.Exchange{Body: []byte("one\ntwo\n")})
			ConsumerPanic(t, tg.New(t, srv.URL), tg.Prompt)
		},
	}
	toys := []toy[lineModel]{
		{name: "sound"},
		{name: "loses the cancellation", flaw: lineModel{hideCause: true}, fails: []string{"CancelCall", "CancelStream", "CancelBeforeSend", "StreamCut"}},
		{name: "ends silently when cut", flaw: lineModel{ignoreReadErrors: true}, fails: []string{"StreamCut"}},
		{name: "reports a stream error twice", flaw: lineModel{errorTwice: true}, fails: []string{"CancelStream"}},
		{name: "swallows the consumer's panic", flaw: lineModel{swallowPanics: true}, fails: []string{"ConsumerPanic"}},
		{name: "yields nothing for the head", flaw: lineModel{skipFirst: true}, fails: []string{"CancelStream", "StopEarly"}},
	}
	target := func(model lineModel) Target {
		return Target{
			New: func(_ testing.TB, url string) chat.Model {
				m := model
				m.url = url
				return &m
			},
			Prompt:      &chat.Prompt{Messages: []chat.Message{chat.User("hi")}},
			ContentType: "text/plain",
			Head:        "Hel\n",
		}
	}
	catchFlaws(t, toys, target, checks)
}

// toy is a toy implementation with one flaw (the zero F: none), and the checks there to catch it.
type toy[F any] struct {
	name  string
	flaw  F
	fails []string // the checks that must catch the flaw; all others must pass
}

// catchFlaws runs every check on the target of every toy, in subtests toy/check, and fails t
// unless each check fails exactly on the toys whose flaw it is there to catch.
func catchFlaws[F, T any](t *testing.T, toys []toy[F], target func(F) T, checks map[string]func(T, testing.TB)) {
	for _, tt := range toys {
		for name, run := range checks {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				expectCaught(t, slices.Contains(tt.fails, name), func(t testing.TB) { run(target(tt.flaw), t) })
			})
		}
	}
}

// expectCaught runs run, a shared check on a toy, and fails t unless the check fails exactly when
// caught says it must: the toy has a flaw the check is there to catch.
func expectCaught(t *testing.T, caught bool, run func(testing.TB)) {
	t.Helper()
	if caught {
		// A flaw can leave a check waiting for what never happens.
		defer func(p time.Duration) { patience = p }(patience)
		patience = 500 * time.Millisecond
	}
	failed, msg := check(t, run)
	if failed != caught {
		t.Errorf("check failed = %v, want %v (%s)", failed, caught, msg)
	} else if failed {
		t.Log("caught:", msg)
	}
}

// TestConcurrently: every call runs, all of them at once (each waits for the others to start),
// and each error fails the test.
func TestConcurrently(t *testing.T) {
	const n = 6
	var started sync.WaitGroup
	started.Add(n)
	var mu sync.Mutex
	seen := map[int]int{}
	failed, msg := check(t, func(tb testing.TB) {
		Concurrently(tb, n, func(i int) error {
			started.Done()
			started.Wait()
			mu.Lock()
			defer mu.Unlock()
			seen[i]++
			if i%2 == 1 {
				return fmt.Errorf("call %d failed", i)
			}
			return nil
		})
	})
	if len(seen) != n || !failed || msg != "call 1 failed; call 3 failed; call 5 failed" {
		t.Errorf("calls %v; failed %v with %q", seen, failed, msg)
	}
	for i, times := range seen {
		if times != 1 {
			t.Errorf("call %d ran %d times", i, times)
		}
	}
	if failed, msg := check(t, func(tb testing.TB) { Concurrently(tb, n, func(int) error { return nil }) }); failed {
		t.Errorf("calls without errors failed: %s", msg)
	}
}

// check runs fn with a testing.TB that records failures instead of failing t.
func check(t *testing.T, fn func(testing.TB)) (failed bool, msg string) {
	f := &fakeT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed, strings.Join(f.msgs, "; ")
}

// fakeT records failures; Fatal and FailNow end the goroutine, as they do in a test. Cleanups
// go to the real test.
type fakeT struct {
	testing.TB
	mu     sync.Mutex
	failed bool
	msgs   []string
}

func (f *fakeT) Helper() {}

func (f *fakeT) fail(msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
	f.msgs = append(f.msgs, msg)
}

func (f *fakeT) Error(args ...any)                 { f.fail(fmt.Sprint(args...)) }
func (f *fakeT) Errorf(format string, args ...any) { f.fail(fmt.Sprintf(format, args...)) }
func (f *fakeT) Fail()                             { f.fail("Fail") }
func (f *fakeT) FailNow()                          { f.fail("FailNow"); runtime.Goexit() }
func (f *fakeT) Fatal(args ...any)                 { f.fail(fmt.Sprint(args...)); runtime.Goexit() }
func (f *fakeT) Fatalf(format string, args ...any) {
	f.fail(fmt.Sprintf(format, args...))
	runtime.Goexit()
}

func (f *fakeT) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

// lineModel is a minimal chat.Model over HTTP: it posts to its URL and reads the answer, one chunk
// a line when streaming. Each flag gives it one flaw.
type lineModel struct {
	url           string
	hideCause     bool // report errors without wrapping their cause
	errorTwice    bool // yield a stream's error twice
	swallowPanics bool // recover the panics of the caller's loop
	skipFirst     bool // yield nothing for the first line
	// end a stream without an error when reading its body fails
	ignoreReadErrors bool
}

func (m *lineModel) post(ctx context.Context) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url, strings.NewReader("hi"))
	if err != nil {
		return nil, err
	}
	return http.DefaultClient.Do(req)
}

func (m *lineModel) wrap(err error) error {
	if m.hideCause {
		return fmt.Errorf("line model: %v", err)
	}
	return fmt.Errorf("line model: %w", err)
}

func (m *lineModel) Call(ctx context.Context, _ *chat.Prompt) (*chat.Response, error) {
	res, err := m.post(ctx)
	if err != nil {
		return nil, m.wrap(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, m.wrap(err)
	}
	return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant(string(b))}}}, nil
}

func (m *lineModel) Stream(ctx context.Context, _ *chat.Prompt) iter.Seq2[*chat.Response, error] {
	return func(yield func(*chat.Response, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		fail := func(err error) {
			if yield(nil, m.wrap(err)) && m.errorTwice {
				yield(nil, m.wrap(err))
			}
		}
		res, err := m.post(ctx)
		if err != nil {
			fail(err)
			return
		}
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		for first := true; sc.Scan(); first = false {
			if first && m.skipFirst {
				continue
			}
			if !m.yield(yield, &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant(sc.Text())}}}) {
				return
			}
		}
		if err := sc.Err(); err != nil && !m.ignoreReadErrors {
			fail(err)
		} else if ctx.Err() != nil {
			fail(ctx.Err())
		}
	}
}

func (m *lineModel) yield(yield func(*chat.Response, error) bool, r *chat.Response) (more bool) {
	if m.swallowPanics {
		defer func() {
			if recover() != nil {
				more = false
			}
		}()
	}
	return yield(r, nil)
}

func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.golden.json")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if failed, msg := check(t, func(t testing.TB) { Golden(t, path, []byte("{}\n")) }); failed {
		t.Errorf("same content: %s", msg)
	}
	if failed, _ := check(t, func(t testing.TB) { Golden(t, path, []byte("{\"a\":1}\n")) }); !failed {
		t.Error("different content passed")
	}
	if failed, _ := check(t, func(t testing.TB) { Golden(t, filepath.Join(t.TempDir(), "missing.json"), nil) }); !failed {
		t.Error("a missing golden file passed")
	}
}

// refusing is a lineModel that refuses native tool search before sending anything.
type refusing struct{ lineModel }

func (m *refusing) Call(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
	if err := chat.RefuseToolSearch("toy", p.Options); err != nil {
		return nil, err
	}
	return m.lineModel.Call(ctx, p)
}

func (m *refusing) Stream(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error] {
	if err := chat.RefuseToolSearch("toy", p.Options); err != nil {
		return func(yield func(*chat.Response, error) bool) { yield(nil, err) }
	}
	return m.lineModel.Stream(ctx, p)
}

// TestToolSearchRefusedCheck: the check passes a model that refuses tool search, and catches one
// that sends the request.
func TestToolSearchRefusedCheck(t *testing.T) {
	for _, refuses := range []bool{true, false} {
		tg := Target{New: func(_ testing.TB, url string) chat.Model {
			if refuses {
				return &refusing{lineModel{url: url}}
			}
			return &lineModel{url: url}
		}}
		expectCaught(t, !refuses, tg.ToolSearchRefused)
	}
}

func TestRecorded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "answer.json")
	if err := os.WriteFile(file, []byte(`{"ok":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := Recorded(file, "application/json")
	defer srv.Close()
	for range 2 {
		res, err := http.Post(srv.URL, "text/plain", strings.NewReader("anything"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if string(body) != `{"ok":true}` || res.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("answer %s %q", res.Header.Get("Content-Type"), body)
		}
	}
}

// TestVariant: the file is served whole, with the content type its extension names.
func TestVariant(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll(filepath.Join("testdata", "variants"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file, ct string
		stream   bool
	}{{"a.sse", "text/event-stream", true}, {"b.ndjson", "application/x-ndjson", true}, {"c.json", "application/json", false}} {
		if err := os.WriteFile(filepath.Join("testdata", "variants", tc.file), []byte("body of "+tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		url, stream := Variant(t, tc.file)
		resp, err := http.Post(url, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if stream != tc.stream || resp.Header.Get("Content-Type") != tc.ct || string(body) != "body of "+tc.file {
			t.Errorf("%s: stream %v, content type %q, body %q", tc.file, stream, resp.Header.Get("Content-Type"), body)
		}
	}
}

// TestOneGeneration: the one generation comes back; none or two fail at once.
func TestOneGeneration(t *testing.T) {
	g := chat.Generation{Message: chat.Assistant("hi")}
	var got chat.Generation
	if failed, msg := check(t, func(tb testing.TB) { got = OneGeneration(tb, &chat.Response{Generations: []chat.Generation{g}}) }); failed || got.Message.Content != "hi" {
		t.Errorf("one generation: %+v, failed with %q", got, msg)
	}
	for _, r := range []*chat.Response{nil, {}, {Generations: []chat.Generation{g, g}}} {
		if failed, msg := check(t, func(tb testing.TB) { OneGeneration(tb, r) }); !failed || !strings.HasSuffix(msg, "generations, want 1") {
			t.Errorf("%+v: failed %v with %q", r, failed, msg)
		}
	}
}
