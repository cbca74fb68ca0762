package toolcall

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/internal/workers"
	"github.com/wield-ai/wield/tool"
)

func TestExecuteParallelOrderedOneMessage(t *testing.T) {
	const n = 8
	b := newBarrier(n)
	// Each call waits until all n are running, so the test passes only if they run in parallel;
	// later calls finish first, and the results must still come back in the model's order.
	slow := newTool("slow", func(_ context.Context, args string) (string, error) {
		b.wait(t)
		var i int
		fmt.Sscanf(args, `{"i":%d}`, &i)
		time.Sleep(time.Duration(n-i) * time.Millisecond)
		return fmt.Sprintf("result %d", i), nil
	})
	var calls []chat.ToolCall
	for i := range n {
		calls = append(calls, call(fmt.Sprintf("c%d", i), "slow", fmt.Sprintf(`{"i":%d}`, i)))
	}
	p := prompt(slow)
	p.Messages = []chat.Message{chat.System("be brief"), chat.User("go")}
	resp := response(calls...)
	resp.Generations[0].Message.Content = "Let me check."

	res, err := New(Config{}).Execute(context.Background(), p, resp)
	if err != nil {
		t.Fatal(err)
	}
	results := toolResults(t, p, res)
	var want []chat.ToolResult
	for i := range n {
		want = append(want, chat.ToolResult{ID: fmt.Sprintf("c%d", i), Name: "slow", Content: fmt.Sprintf("result %d", i)})
	}
	if !reflect.DeepEqual(results, want) {
		t.Errorf("results = %+v\nwant %+v", results, want)
	}
	if !reflect.DeepEqual(res.History[:2], p.Messages) {
		t.Errorf("history does not start with the prompt's messages: %v", res.History[:2])
	}
	assistant := res.History[2]
	if assistant.Content != "Let me check." || !reflect.DeepEqual(assistant.ToolCalls, calls) {
		t.Errorf("assistant message = %v", assistant)
	}
	if res.ReturnDirect {
		t.Error("ReturnDirect set for tools that are not return-direct")
	}
	if !reflect.DeepEqual(res.ToolResults(), want) {
		t.Errorf("Result.ToolResults() = %+v", res.ToolResults())
	}
}

func TestExecuteConcurrencyBound(t *testing.T) {
	for _, limit := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			var peak testenv.Peak
			reached := make(chan struct{})
			var once sync.Once
			busy := newTool("busy", func(context.Context, string) (string, error) {
				r := peak.Enter()
				defer peak.Leave()
				if r == int64(limit) {
					once.Do(func() { close(reached) })
				}
				// Hold the first calls until the bound is reached, so the peak is exactly the bound
				// when the bound is honoured.
				waitFor(t, reached, "reaching the concurrency bound")
				return "ok", nil
			})
			var calls []chat.ToolCall
			for i := range 7 {
				calls = append(calls, call(fmt.Sprint(i), "busy", "{}"))
			}
			p := prompt(busy)
			res, err := New(Config{Concurrency: limit}).Execute(context.Background(), p, response(calls...))
			if err != nil {
				t.Fatal(err)
			}
			if got := len(toolResults(t, p, res)); got != 7 {
				t.Errorf("%d results, want 7", got)
			}
			if got := peak.Most(); got != int64(limit) {
				t.Errorf("peak concurrency %d, want %d", got, limit)
			}
		})
	}
}

func TestDefaultConcurrency(t *testing.T) {
	if got := DefaultConcurrency(); got < 8 {
		t.Errorf("DefaultConcurrency() = %d, want at least 8", got)
	}
	if got := New(Config{}).concurrency; got != DefaultConcurrency() {
		t.Errorf("zero Config concurrency = %d, want %d", got, DefaultConcurrency())
	}
	if got := New(Config{Concurrency: -3}).concurrency; got != DefaultConcurrency() {
		t.Errorf("negative Config concurrency = %d, want %d", got, DefaultConcurrency())
	}
}

func TestExecuteSequentialRunsAlone(t *testing.T) {
	var mu sync.Mutex
	var events []string
	var running atomic.Int32
	log := func(e string) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	pair := newBarrier(2)
	par := newTool("par", func(_ context.Context, args string) (string, error) {
		running.Add(1)
		defer running.Add(-1)
		log("start " + args)
		pair.wait(t) // the two calls before the sequential one run together
		log("end " + args)
		return "ok", nil
	})
	after := newTool("after", func(_ context.Context, args string) (string, error) {
		running.Add(1)
		defer running.Add(-1)
		log("start " + args)
		log("end " + args)
		return "ok", nil
	})
	seq := newTool("seq", func(_ context.Context, args string) (string, error) {
		if r := running.Add(1); r != 1 {
			t.Errorf("sequential tool started beside %d other calls", r-1)
		}
		defer running.Add(-1)
		log("start " + args)
		time.Sleep(5 * time.Millisecond) // give a wrongly started call the chance to overlap
		if r := running.Load(); r != 1 {
			t.Errorf("%d other calls ran beside the sequential tool", r-1)
		}
		log("end " + args)
		return "ok", nil
	}).WithMetadata(tool.Metadata{Sequential: true})

	p := prompt(par, seq, after)
	resp := response(
		call("1", "par", `"a1"`), call("2", "par", `"a2"`),
		call("3", "seq", `"s1"`), call("4", "seq", `"s2"`),
		call("5", "after", `"b1"`), call("6", "after", `"b2"`))
	// par and after take strings as arguments here; only objects are valid, so wrap them.
	for i := range resp.Generations[0].Message.ToolCalls {
		c := &resp.Generations[0].Message.ToolCalls[i]
		c.Arguments = `{"v":` + c.Arguments + `}`
	}
	res, err := New(Config{}).Execute(context.Background(), p, resp)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range toolResults(t, p, res) {
		if r.IsError {
			t.Errorf("call %s failed: %s", r.ID, r.Content)
		}
	}
	pos := func(e string) int {
		i := slices.Index(events, ``+e)
		if i < 0 {
			t.Fatalf("event %q missing from %v", e, events)
		}
		return i
	}
	s1, s2 := `{"v":"s1"}`, `{"v":"s2"}`
	if !(pos(`end {"v":"a1"}`) < pos("start "+s1) && pos(`end {"v":"a2"}`) < pos("start "+s1)) {
		t.Errorf("sequential call started before the earlier calls finished: %v", events)
	}
	if !(pos("end "+s1) < pos("start "+s2)) {
		t.Errorf("two sequential calls overlapped: %v", events)
	}
	if !(pos("end "+s2) < pos(`start {"v":"b1"}`) && pos("end "+s2) < pos(`start {"v":"b2"}`)) {
		t.Errorf("later calls started before the sequential call finished: %v", events)
	}
}

func TestExecuteCollectsEveryGeneration(t *testing.T) {
	p := prompt(echoTool("a"), echoTool("b"))
	resp := &chat.Response{Generations: []chat.Generation{
		{Message: chat.Message{Role: chat.RoleAssistant, Content: "I'll look both up.",
			Reasoning: []chat.Reasoning{{Provider: "anthropic", Text: "think", Signature: "sig"}}}},
		{Index: 1, Message: chat.Assistant("", call("1", "a", `{"x":1}`))},
		{Index: 2, Message: chat.Assistant("", call("2", "b", `{"y":2}`))},
	}}
	res, err := New(Config{}).Execute(context.Background(), p, resp)
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.ToolResult{
		{ID: "1", Name: "a", Content: `a:{"x":1}`},
		{ID: "2", Name: "b", Content: `b:{"y":2}`},
	}
	if got := toolResults(t, p, res); !reflect.DeepEqual(got, want) {
		t.Errorf("results = %+v, want %+v", got, want)
	}
	a := res.History[len(res.History)-2]
	if a.Content != "I'll look both up." || len(a.ToolCalls) != 2 || len(a.Reasoning) != 1 || a.Reasoning[0].Signature != "sig" {
		t.Errorf("assistant message = %+v", a)
	}
}

func TestExecuteContext(t *testing.T) {
	type seen struct {
		call tool.Call
		tc   tool.Context
	}
	var mu sync.Mutex
	got := map[string]seen{}
	probe := newTool("probe", func(ctx context.Context, _ string) (string, error) {
		c, ok := tool.CallFrom(ctx)
		if !ok {
			return "", errors.New("no call in context")
		}
		mu.Lock()
		got[c.ID] = seen{c, tool.ContextFrom(ctx)}
		mu.Unlock()
		return "ok", nil
	})
	p := prompt(probe)
	turn := &Turn{ToolContext: tool.Context{"tenant": "acme", "user": "per-call"}}
	ctx := tool.WithContext(context.Background(), tool.Context{"user": "default", "region": "eu"})
	res, err := New(Config{}).ExecuteTurn(ctx, turn, p, response(call("x1", "probe", "{}"), call("x2", "probe", "{}")))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range toolResults(t, p, res) {
		if r.IsError {
			t.Fatalf("call failed: %s", r.Content)
		}
	}
	wantTC := tool.Context{"tenant": "acme", "user": "per-call", "region": "eu"}
	for _, id := range []string{"x1", "x2"} {
		s := got[id]
		if s.call != (tool.Call{ID: id, Name: "probe", Parallel: 2}) {
			t.Errorf("call %s saw tool.Call %+v", id, s.call)
		}
		if !reflect.DeepEqual(s.tc, wantTC) {
			t.Errorf("call %s saw tool context %v, want %v", id, s.tc, wantTC)
		}
	}
}

func TestExecuteTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	honours := newTool("honours", func(ctx context.Context, _ string) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}).WithMetadata(tool.Metadata{Timeout: 20 * time.Millisecond})
	ignores := newTool("ignores", func(context.Context, string) (string, error) {
		<-release // never looks at its context
		return "too late", nil
	}).WithMetadata(tool.Metadata{Timeout: 30 * time.Millisecond})
	quick := newTool("quick", func(context.Context, string) (string, error) { return "fast", nil }).
		WithMetadata(tool.Metadata{Timeout: time.Minute})

	p := prompt(honours, ignores, quick)
	res, err := New(Config{}).Execute(context.Background(), p,
		response(call("1", "honours", "{}"), call("2", "ignores", "{}"), call("3", "quick", "{}")))
	if err != nil {
		t.Fatalf("a timeout ended the turn: %v", err)
	}
	want := []chat.ToolResult{
		{ID: "1", Name: "honours", Content: "tool call timed out after 20ms", IsError: true},
		{ID: "2", Name: "ignores", Content: "tool call timed out after 30ms", IsError: true},
		{ID: "3", Name: "quick", Content: "fast"},
	}
	if got := toolResults(t, p, res); !reflect.DeepEqual(got, want) {
		t.Errorf("results = %+v\nwant %+v", got, want)
	}
}

func TestExecuteFailuresGoBackToTheModel(t *testing.T) {
	logs := &testenv.Buffer{}
	boom := newTool("boom", func(context.Context, string) (string, error) {
		var m map[string]int
		m["x"] = 1 // panics: assignment to entry in nil map
		return "", nil
	})
	failing := newTool("failing", func(context.Context, string) (string, error) {
		return "", errors.New("city \"Atlantis\" not found; try a real city")
	})
	silent := newTool("silent", func(context.Context, string) (string, error) { return "", errors.New("  ") })
	var gotArgs atomic.Value
	noargs := newTool("noargs", func(_ context.Context, args string) (string, error) {
		gotArgs.Store(args)
		return "done", nil
	})
	weather := weatherFunc()
	tests := []struct {
		name string
		call chat.ToolCall
		want string
	}{
		{"unknown tool", call("1", "forecast", "{}"),
			`unknown tool "forecast"; the available tools are: boom, failing, silent, noargs, weather`},
		// Invalid arguments: the validating tool's own text, which tells the model what to fix.
		{"malformed JSON", call("2", "weather", `{"city": "Paris"`),
			"arguments are not valid JSON: unexpected end of input in object at offset 16"},
		{"bad JSON token", call("9", "weather", `{"city": Paris}`),
			"arguments are not valid JSON: invalid character 'P' looking for the beginning of a value at offset 9"},
		{"array arguments", call("3", "weather", `[1,2]`), "invalid arguments: /: expected object, got an array"},
		{"wrong type", call("4", "weather", `{"city":1}`), "invalid arguments: /city: expected string, got 1"},
		{"missing property", call("10", "weather", `{}`), `invalid arguments: /: missing required property "city"`},
		{"tool error", call("5", "failing", "{}"), `city "Atlantis" not found; try a real city`},
		{"blank tool error", call("6", "silent", "{}"), "The tool failed without saying why."},
		{"panic", call("7", "boom", "{}"), "the tool panicked: assignment to entry in nil map"},
	}
	var calls []chat.ToolCall
	for _, tt := range tests {
		calls = append(calls, tt.call)
	}
	calls = append(calls, call("8", "noargs", ""))
	p := prompt(boom, failing, silent, noargs, weather)
	res, err := New(Config{Logger: debugLogger(logs)}).Execute(context.Background(), p, response(calls...))
	if err != nil {
		t.Fatal(err)
	}
	results := toolResults(t, p, res)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := chat.ToolResult{ID: tt.call.ID, Name: tt.call.Name, Content: tt.want, IsError: true}
			if !reflect.DeepEqual(results[i], want) {
				t.Errorf("result = %+v\nwant %+v", results[i], want)
			}
		})
	}
	t.Run("empty arguments", func(t *testing.T) {
		if r := results[len(results)-1]; r.IsError || r.Content != "done" || gotArgs.Load() != "{}" {
			t.Errorf("result %+v, tool got arguments %q; want success with {}", r, gotArgs.Load())
		}
	})
	t.Run("panic stack logged", func(t *testing.T) {
		out := logs.String()
		if !strings.Contains(out, "level=ERROR") || !strings.Contains(out, "tool panicked") ||
			!strings.Contains(out, "goroutine ") || !strings.Contains(out, "execute_test.go") {
			t.Errorf("panic not logged with its stack:\n%s", out)
		}
	})
	if res.ReturnDirect {
		t.Error("ReturnDirect set")
	}
}

func TestExecuteUnknownToolWithoutTools(t *testing.T) {
	p := &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}
	res, err := New(Config{}).Execute(context.Background(), p, response(call("1", "ghost", "{}")))
	if err != nil {
		t.Fatal(err)
	}
	want := chat.ToolResult{ID: "1", Name: "ghost", Content: `unknown tool "ghost": no tools are available`, IsError: true}
	if got := toolResults(t, p, res); len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Errorf("results = %+v, want %+v", got, want)
	}
}

func TestErrorProcessor(t *testing.T) {
	cause := errors.New("database is down")
	failing := newTool("failing", func(context.Context, string) (string, error) { return "", cause })
	tests := []struct {
		name      string
		processor ErrorProcessor
		call      chat.ToolCall
		want      string // the result's text when the turn goes on
		wantErr   func(t *testing.T, err error)
	}{
		{
			name: "custom text",
			processor: ErrorProcessorFunc(func(_ context.Context, err *tool.ExecutionError) (string, error) {
				return fmt.Sprintf("%s failed (%s): please retry later", err.Tool, err.CallID), nil
			}),
			call: call("c1", "failing", "{}"),
			want: "failing failed (c1): please retry later",
		},
		{
			name: "custom text for an unknown tool",
			processor: ErrorProcessorFunc(func(_ context.Context, err *tool.ExecutionError) (string, error) {
				if errors.Is(err, ErrUnknownTool) {
					return "no such tool", nil
				}
				return "other", nil
			}),
			call: call("c1", "nope", "{}"),
			want: "no such tool",
		},
		{
			name:      "always fail on a tool error",
			processor: AlwaysFail(),
			call:      call("c2", "failing", "{}"),
			wantErr: func(t *testing.T, err error) {
				var ee *tool.ExecutionError
				if !errors.As(err, &ee) || ee.Tool != "failing" || ee.CallID != "c2" || !errors.Is(err, cause) {
					t.Errorf("error %v (%T) is not the tool's ExecutionError", err, err)
				}
			},
		},
		{
			name:      "always fail on invalid arguments",
			processor: AlwaysFail(),
			call:      call("c3", "weather", `{"city":true}`),
			wantErr: func(t *testing.T, err error) {
				var ee *tool.ExecutionError
				var ae *tool.ArgumentError
				if !errors.As(err, &ee) || !errors.As(err, &ae) || len(ae.Issues) != 1 || ae.Issues[0].Path != "/city" {
					t.Errorf("error %v is not an ExecutionError for invalid arguments", err)
				}
			},
		},
		{
			name: "processor error ends the turn",
			processor: ErrorProcessorFunc(func(context.Context, *tool.ExecutionError) (string, error) {
				return "", errBudget
			}),
			call: call("c4", "failing", "{}"),
			wantErr: func(t *testing.T, err error) {
				if err != errBudget {
					t.Errorf("error = %v, want the processor's error", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := prompt(failing, weatherFunc())
			res, err := New(Config{ErrorProcessor: tt.processor}).Execute(context.Background(), p, response(tt.call))
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("Execute succeeded with %+v, want an error", res.ToolResults())
				}
				if res != nil {
					t.Errorf("Execute returned a result with its error")
				}
				tt.wantErr(t, err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := chat.ToolResult{ID: tt.call.ID, Name: tt.call.Name, Content: tt.want, IsError: true}
			if got := toolResults(t, p, res); !reflect.DeepEqual(got[0], want) {
				t.Errorf("result = %+v, want %+v", got[0], want)
			}
		})
	}
}

var errBudget = errors.New("error budget exhausted")

// blockingTool returns a tool that reports each call's start on started, blocks until its context
// ends, then reports its exit on exited.
func blockingTool(started, exited chan<- string) *chattest.Tool {
	return newTool("block", func(ctx context.Context, args string) (string, error) {
		started <- args
		<-ctx.Done()
		exited <- args
		return "", ctx.Err()
	})
}

func TestExecuteFatalEndsTurnAndCancelsOthers(t *testing.T) {
	started, exited := make(chan string, 8), make(chan string, 8)
	block := blockingTool(started, exited)
	cause := errors.New("credentials revoked")
	fatal := newTool("fatal", func(context.Context, string) (string, error) {
		// Fail only once the blocking calls run, so they must be cancelled.
		<-started
		<-started
		return "", tool.Fatal(cause)
	})
	var obs recorder
	ctx := context.Background()
	p := prompt(block, fatal)
	before := stableGoroutines()
	res, err := New(Config{}).ExecuteTurn(ctx, &Turn{Observer: &obs}, p,
		response(call("1", "block", `{"n":1}`), call("2", "fatal", "{}"), call("3", "block", `{"n":3}`)))
	if err == nil {
		t.Fatalf("Execute succeeded: %+v", res.ToolResults())
	}
	var ee *tool.ExecutionError
	if !errors.As(err, &ee) || ee.Tool != "fatal" || ee.CallID != "2" {
		t.Errorf("error %v (%T) is not the fatal tool's ExecutionError", err, err)
	}
	if !tool.IsFatal(err) || !errors.Is(err, cause) {
		t.Errorf("error %v lost its cause or its fatal mark", err)
	}
	got := []string{<-exited, <-exited}
	slices.Sort(got)
	if want := []string{`{"n":1}`, `{"n":3}`}; !slices.Equal(got, want) {
		t.Errorf("cancelled calls = %v, want %v", got, want)
	}
	if after := waitGoroutines(before); after > before {
		t.Errorf("%d goroutines after Execute, %d before: calls leaked", after, before)
	}
	// The observer saw all three calls finish, the cancelled ones with an error result.
	fin := obs.finishedByID()
	if len(fin) != 3 || !fin["1"].IsError || !strings.HasPrefix(fin["1"].Content, "The call was cancelled") ||
		fin["2"].Content != "credentials revoked" || !fin["2"].IsError {
		t.Errorf("observer saw %+v", fin)
	}
}

func TestExecuteContextCancellation(t *testing.T) {
	tests := []struct {
		name string
		// ctx returns the caller's context and a function run once both blocking calls started.
		ctx func() (context.Context, context.CancelFunc, func())
		is  error
	}{
		{"canceled", func() (context.Context, context.CancelFunc, func()) {
			ctx, cancel := context.WithCancel(context.Background())
			return ctx, cancel, cancel
		}, context.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc, func()) {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			return ctx, cancel, func() {}
		}, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			started, exited := make(chan string, 8), make(chan string, 8)
			block := blockingTool(started, exited)
			var later atomic.Bool
			seq := newTool("seq", func(context.Context, string) (string, error) {
				later.Store(true)
				return "", nil
			}).WithMetadata(tool.Metadata{Sequential: true})
			ctx, cancel, trigger := tt.ctx()
			defer cancel()
			before := stableGoroutines()
			var nStarted atomic.Int32
			go func() {
				for range 2 {
					select {
					case <-started:
						nStarted.Add(1)
					case <-ctx.Done():
						return
					}
				}
				trigger()
			}()
			p := prompt(block, seq)
			res, err := New(Config{}).Execute(ctx, p,
				response(call("1", "block", `{"n":1}`), call("2", "block", `{"n":2}`), call("3", "seq", "{}")))
			if !errors.Is(err, tt.is) {
				t.Fatalf("Execute = %v, %v; want an error matching %v", res, err, tt.is)
			}
			if !strings.HasPrefix(err.Error(), "toolcall: tool calls interrupted") {
				t.Errorf("error text %q", err)
			}
			if later.Load() {
				t.Error("a call after the cancellation was started")
			}
			if after := waitGoroutines(before); after > before {
				t.Errorf("%d goroutines after Execute, %d before: calls leaked", after, before)
			}
			// Every call that started saw its context end and returned.
			if n, m := len(exited), int(nStarted.Load())+len(started); n != m {
				t.Errorf("%d calls returned, %d started", n, m)
			}
		})
	}
}

func TestExecuteCancellationCause(t *testing.T) {
	started, exited := make(chan string, 1), make(chan string, 1)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		<-started
		cancel(errBudget)
	}()
	_, err := New(Config{}).Execute(ctx, prompt(blockingTool(started, exited)), response(call("1", "block", "{}")))
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errBudget) {
		t.Errorf("error %v does not match both context.Canceled and the cause", err)
	}
}

// stableGoroutines counts the goroutines at work (not idle workers kept for later calls) once
// the runtime's own have settled.
func stableGoroutines() int {
	runtime.GC()
	return workingGoroutines()
}

func workingGoroutines() int { return runtime.NumGoroutine() - workers.Idle() }

// waitGoroutines waits, within a generous delay, for the count of goroutines at work to come
// back to before, and returns the count.
func waitGoroutines(before int) int {
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := workingGoroutines()
		if n <= before || time.Now().After(deadline) {
			return n
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestExecuteReturnDirect(t *testing.T) {
	direct := echoTool("direct").WithMetadata(tool.Metadata{ReturnDirect: true})
	directFunc := tool.Must(tool.Func("directFunc", "a validating return-direct tool",
		func(_ context.Context, in struct{ N int }) (int, error) { return in.N, nil }, tool.ReturnDirect()))
	direct2 := echoTool("direct2").WithMetadata(tool.Metadata{ReturnDirect: true})
	plain := echoTool("plain")
	failingDirect := newTool("failingDirect", func(context.Context, string) (string, error) {
		return "", errors.New("no")
	}).WithMetadata(tool.Metadata{ReturnDirect: true})
	tests := []struct {
		name  string
		calls []chat.ToolCall
		want  bool
	}{
		{"one direct", []chat.ToolCall{call("1", "direct", "{}")}, true},
		{"all direct", []chat.ToolCall{call("1", "direct", "{}"), call("2", "direct2", "{}"), call("3", "direct", "{}")}, true},
		{"one not direct", []chat.ToolCall{call("1", "direct", "{}"), call("2", "plain", "{}")}, false},
		{"not direct", []chat.ToolCall{call("1", "plain", "{}")}, false},
		{"direct tool failed", []chat.ToolCall{call("1", "direct", "{}"), call("2", "failingDirect", "{}")}, false},
		{"unknown tool beside direct", []chat.ToolCall{call("1", "direct", "{}"), call("2", "ghost", "{}")}, false},
		{"direct, validated", []chat.ToolCall{call("1", "directFunc", `{"N":1}`), call("2", "direct", "{}")}, true},
		{"direct with invalid arguments", []chat.ToolCall{call("1", "directFunc", `{"N":"one"}`)}, false},
	}
	m := New(Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := prompt(direct, direct2, plain, failingDirect, directFunc)
			res, err := m.Execute(context.Background(), p, response(tt.calls...))
			if err != nil {
				t.Fatal(err)
			}
			if res.ReturnDirect != tt.want {
				t.Errorf("ReturnDirect = %v, want %v (results %+v)", res.ReturnDirect, tt.want, res.ToolResults())
			}
		})
	}
}

func TestExecuteInputErrors(t *testing.T) {
	m := New(Config{})
	a := echoTool("a")
	tests := []struct {
		name string
		p    *chat.Prompt
		resp *chat.Response
		is   error
		text string
	}{
		{"nil prompt", nil, response(call("1", "a", "{}")), nil, "toolcall: Execute needs a prompt"},
		{"nil response", prompt(a), nil, ErrNoToolCalls, ""},
		{"no tool calls", prompt(a), &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("hello")}}}, ErrNoToolCalls, ""},
		{"duplicate tools", prompt(a, echoTool("a")), response(call("1", "a", "{}")), ErrDuplicateTool, `toolcall: duplicate tool name "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := m.Execute(context.Background(), tt.p, tt.resp)
			if err == nil || res != nil {
				t.Fatalf("Execute = %v, %v; want an error", res, err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not match %v", err, tt.is)
			}
			if tt.text != "" && err.Error() != tt.text {
				t.Errorf("error text %q, want %q", err, tt.text)
			}
		})
	}
}

func TestExecuteDoesNotAliasPrompt(t *testing.T) {
	msgs := make([]chat.Message, 1, 10) // spare capacity an append would write into
	msgs[0] = chat.User("hi")
	p := &chat.Prompt{Messages: msgs, Options: &chat.Options{Tools: []tool.Tool{echoTool("a")}}}
	m := New(Config{})
	res1, err := m.Execute(context.Background(), p, response(call("1", "a", `{"r":1}`)))
	if err != nil {
		t.Fatal(err)
	}
	res2, err := m.Execute(context.Background(), p, response(call("2", "a", `{"r":2}`)))
	if err != nil {
		t.Fatal(err)
	}
	if res1.ToolResults()[0].Content != `a:{"r":1}` || res2.ToolResults()[0].Content != `a:{"r":2}` {
		t.Errorf("histories share storage: %v / %v", res1.ToolResults(), res2.ToolResults())
	}
	if len(p.Messages) != 1 {
		t.Errorf("prompt changed: %v", p.Messages)
	}
}

// recorder is an Observer keeping what it saw.
type recorder struct {
	mu       sync.Mutex
	started  []chat.ToolCall
	finished []chat.ToolResult
	calls    []tool.Call
	elapsed  []time.Duration
}

func (r *recorder) ToolStarted(ctx context.Context, c chat.ToolCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, c)
	tc, _ := tool.CallFrom(ctx)
	r.calls = append(r.calls, tc)
}

func (r *recorder) ToolFinished(_ context.Context, _ chat.ToolCall, res chat.ToolResult, elapsed time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished = append(r.finished, res)
	r.elapsed = append(r.elapsed, elapsed)
}

func (r *recorder) finishedByID() map[string]chat.ToolResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]chat.ToolResult{}
	for _, res := range r.finished {
		out[res.ID] = res
	}
	return out
}

func TestObserver(t *testing.T) {
	var first recorder
	ctx := context.Background()
	failing := newTool("failing", func(context.Context, string) (string, error) { return "", errors.New("bad") })
	p := prompt(echoTool("ok"), failing)
	p.Messages = append(p.Messages, chat.ToolMessage(chat.ToolResult{Name: "ok"}))
	calls := []chat.ToolCall{call("1", "ok", "{}"), call("2", "failing", "{}"), call("3", "ghost", "{}"), call("4", "ok", "[")}
	m := New(Config{Limits: Limits{Tools: map[string]int{"ok": 2}, OnExceeded: LimitTellModel}})
	res, err := m.ExecuteTurn(ctx, &Turn{Observer: &first}, p, response(calls...))
	if err != nil {
		t.Fatal(err)
	}
	want := res.ToolResults()
	if !want[3].IsError || !strings.Contains(want[3].Content, "limit (2)") {
		t.Fatalf("the fourth call was not refused by the limit: %+v", want[3])
	}
	for name, r := range map[string]*recorder{"first": &first} {
		started := slices.Clone(r.started)
		slices.SortFunc(started, func(a, b chat.ToolCall) int { return strings.Compare(a.ID, b.ID) })
		if !reflect.DeepEqual(started, calls) {
			t.Errorf("%s observer saw starts %+v", name, started)
		}
		fin := r.finishedByID()
		for _, w := range want {
			if !reflect.DeepEqual(fin[w.ID], w) {
				t.Errorf("%s observer saw %+v for call %s, want %+v", name, fin[w.ID], w.ID, w)
			}
		}
		for i, c := range r.calls {
			if c.ID == "" || c.Name == "" {
				t.Errorf("%s observer's context %d has no tool.Call", name, i)
			}
		}
		for _, e := range r.elapsed {
			if e <= 0 {
				t.Errorf("%s observer saw elapsed %v", name, e)
			}
		}
	}
}

// goroutineObserver notes the goroutines it is called on.
type goroutineObserver struct{ ids []string }

func goroutineID() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(b), "goroutine "), " ")
	return id
}

func (o *goroutineObserver) ToolStarted(context.Context, chat.ToolCall) {
	o.ids = append(o.ids, goroutineID())
}

func (o *goroutineObserver) ToolFinished(context.Context, chat.ToolCall, chat.ToolResult, time.Duration) {
	o.ids = append(o.ids, goroutineID())
}

// A round of one call is observed on the goroutine that executes it, whether or not the call
// itself runs elsewhere (a cancellable context, a timeout): streams emit its events there.
func TestLoneCallObservedOnTheCallersGoroutine(t *testing.T) {
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	timed := echoTool("timed").WithMetadata(tool.Metadata{Timeout: time.Minute})
	for name, ctx := range map[string]context.Context{"background": context.Background(), "cancellable": cancellable} {
		for _, tl := range []string{"a", "timed"} {
			var obs goroutineObserver
			if _, err := New(Config{}).ExecuteTurn(ctx, &Turn{Observer: &obs}, prompt(echoTool("a"), timed), response(call("1", tl, "{}"))); err != nil {
				t.Fatal(err)
			}
			if me := goroutineID(); len(obs.ids) != 2 || obs.ids[0] != me || obs.ids[1] != me {
				t.Errorf("%s, %s: observed on goroutines %v, the caller is %s", name, tl, obs.ids, me)
			}
		}
	}
}

func TestExecuteNeverLogsToolContext(t *testing.T) {
	logs := &testenv.Buffer{}
	const secret = "s3cr3t-t0ken"
	p := prompt(echoTool("a"), newTool("bad", func(context.Context, string) (string, error) {
		return "", errors.New("nope")
	}))
	turn := &Turn{ToolContext: tool.Context{"apiKey": secret}}
	m := New(Config{Logger: debugLogger(logs), RecordContent: true})
	if _, err := m.ExecuteTurn(context.Background(), turn, p, response(call("1", "a", `{"q":"weather"}`), call("2", "bad", "{}"))); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	for _, want := range []string{
		"toolcall: executing tool calls", "calls=2",
		"toolcall: call finished", "tool=a", "call_id=1", "is_error=false", `arguments="{\"q\":\"weather\"}"`,
		"tool=bad", "error.type=tool_error", "error=nope",
		"toolcall: tool calls executed", "return_direct=false",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("debug log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, secret) || strings.Contains(out, "apiKey") {
		t.Errorf("the tool context was logged:\n%s", out)
	}
}

func TestExecuteLogsNoContentByDefault(t *testing.T) {
	logs := &testenv.Buffer{}
	m := New(Config{Logger: debugLogger(logs)})
	if _, err := m.Execute(context.Background(), prompt(echoTool("a")), response(call("1", "a", `{"q":"private"}`))); err != nil {
		t.Fatal(err)
	}
	if out := logs.String(); strings.Contains(out, "private") || !strings.Contains(out, "call finished") {
		t.Errorf("debug log without RecordContent:\n%s", out)
	}
}

func TestNestedExecuteSeesCancellation(t *testing.T) {
	// A tool that runs its own tool calls (an agent as a tool): when the outer turn ends with a
	// fatal error, the inner Execute reports a cancellation, not the outer turn's error as its own.
	m := New(Config{})
	started, exited := make(chan string, 1), make(chan string, 1)
	innerErr := make(chan error, 1)
	agent := newTool("agent", func(ctx context.Context, _ string) (string, error) {
		_, err := m.Execute(ctx, prompt(blockingTool(started, exited)), response(call("i1", "block", "{}")))
		innerErr <- err
		return "", err
	})
	fatal := newTool("fatal", func(context.Context, string) (string, error) {
		<-started
		return "", tool.Fatal(errors.New("outer failure"))
	})
	_, err := m.Execute(context.Background(), prompt(agent, fatal), response(call("1", "agent", "{}"), call("2", "fatal", "{}")))
	if !tool.IsFatal(err) {
		t.Fatalf("outer error %v, want the fatal error", err)
	}
	inner := <-innerErr
	if !errors.Is(inner, context.Canceled) {
		t.Errorf("inner error %v does not match context.Canceled", inner)
	}
	if !strings.HasPrefix(inner.Error(), "toolcall: tool calls interrupted: context canceled") {
		t.Errorf("inner error text %q", inner)
	}
}

// TestPanicValueIsContent: a panic whose value quotes an argument is logged without the value
// unless RecordContent, as an error with the same text would be.
func TestPanicValueIsContent(t *testing.T) {
	boom := newTool("boom", func(_ context.Context, args string) (string, error) {
		panic("bad ssn " + args)
	})
	for _, record := range []bool{false, true} {
		var logs testenv.Buffer
		p := prompt(boom)
		if _, err := New(Config{Logger: debugLogger(&logs), RecordContent: record}).Execute(context.Background(), p, response(call("1", "boom", `{"ssn":"SSN-078-05-1120"}`))); err != nil {
			t.Fatal(err)
		}
		out := logs.String()
		if !strings.Contains(out, "tool panicked") || strings.Contains(out, "SSN-078-05-1120") != record {
			t.Errorf("RecordContent %v: the log quotes the value: %v\n%s", record, strings.Contains(out, "SSN-078-05-1120"), out)
		}
	}
}
