package client_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

func TestLoopOneToolCall(t *testing.T) {
	var tenant atomic.Value
	weather := newTool("weather", func(ctx context.Context, args string) (string, error) {
		tenant.Store(tool.ContextFrom(ctx)["tenant"])
		return "sunny, 25°C", nil
	})
	m := chattest.New(
		chattest.Calls(chattest.Call("weather", `{"city":"Paris"}`)).WithUsage(10, 5),
		chattest.Text("It is sunny in Paris.").WithUsage(30, 7),
	)
	c := clienttest.New(t, m, client.WithSystem("be brief"))
	resp, err := c.Prompt("Weather in Paris?").Tools(weather).ToolContext(tool.Context{"tenant": "acme"}).
		Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "It is sunny in Paris." || resp.Outcome != client.OutcomeAnswer || resp.ModelCalls != 2 {
		t.Fatalf("response: %q %v %d", resp.Text(), resp.Outcome, resp.ModelCalls)
	}
	if want := (chat.Usage{InputTokens: 40, OutputTokens: 12, TotalTokens: 52}); resp.Usage != want {
		t.Fatalf("usage = %+v, want %+v", resp.Usage, want)
	}
	if tenant.Load() != "acme" {
		t.Fatalf("tool saw tenant %v", tenant.Load())
	}
	p := m.Prompt(1)
	if n := len(p.Messages); n != 4 {
		t.Fatalf("second prompt has %d messages: %v", n, p.Messages)
	}
	call, res := p.Messages[2], p.Messages[3]
	if call.Role != chat.RoleAssistant || len(call.ToolCalls) != 1 || call.ToolCalls[0].ID != "call_1" {
		t.Fatalf("assistant message = %v", call)
	}
	if res.Role != chat.RoleTool || !reflect.DeepEqual(res.ToolResults[0], chat.ToolResult{ID: "call_1", Name: "weather", Content: "sunny, 25°C"}) {
		t.Fatalf("tool message = %v", res)
	}
	for i, p := range m.Prompts() {
		if strings.Contains(fmt.Sprint(p.Messages), "acme") {
			t.Fatalf("prompt %d carries the tool context", i)
		}
		if !slices.Equal(toolNames(p), []string{"weather"}) {
			t.Fatalf("prompt %d tools = %v", i, toolNames(p))
		}
	}
}

func TestInnerAdvisorRunsEveryIteration(t *testing.T) {
	j := &journal{}
	m := chattest.New(
		chattest.Calls(chattest.Call("a", `{}`)),
		chattest.Calls(chattest.Call("a", `{}`), chattest.Call("a", `{}`)),
		chattest.Text("done"),
	)
	c := clienttest.New(t, m, client.WithAdvisors(
		&recorder{"inner", client.OrderToolCalling + 100, j},
		&recorder{"outer", client.OrderMemory, j},
		&recorder{"innermost", client.LowestPrecedence, j},
	))
	if err := c.Prompt("go").Tools(constTool("a", "A")).Call(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	want := "outer>1 inner>1 innermost>1 <innermost <inner inner>3 innermost>3 <innermost <inner inner>5 innermost>5 <innermost <inner <outer"
	if got := j.String(); got != want {
		t.Fatalf("journal:\n got %s\nwant %s", got, want)
	}
}

func TestReturnDirect(t *testing.T) {
	direct := constTool("lookup", `{"customer":42}`)
	direct.Meta.ReturnDirect = true
	normal := constTool("normal", "n")

	t.Run("all direct", func(t *testing.T) {
		m := chattest.New(chattest.Calls(chattest.Call("lookup", `{}`)).WithUsage(3, 1))
		resp, err := clienttest.New(t, m).Prompt("who?").Tools(direct, normal).Call(context.Background()).Response()
		if err != nil {
			t.Fatal(err)
		}
		if resp.Outcome != client.OutcomeReturnDirect || resp.Text() != `{"customer":42}` || resp.ModelCalls != 1 || m.Requests() != 1 {
			t.Fatalf("%v %q %d", resp.Outcome, resp.Text(), resp.ModelCalls)
		}
		if len(resp.ToolResults) != 1 || resp.ToolResults[0].Name != "lookup" || resp.Usage.InputTokens != 3 {
			t.Fatalf("results %v usage %+v", resp.ToolResults, resp.Usage)
		}
	})
	t.Run("direct and normal continue", func(t *testing.T) {
		m := chattest.New(
			chattest.Calls(chattest.Call("lookup", `{}`), chattest.Call("normal", `{}`)),
			chattest.Text("the model saw both"),
		)
		resp, err := clienttest.New(t, m).Prompt("who?").Tools(direct, normal).Call(context.Background()).Response()
		if err != nil {
			t.Fatal(err)
		}
		if resp.Outcome != client.OutcomeAnswer || resp.Text() != "the model saw both" || m.Requests() != 2 {
			t.Fatalf("%v %q", resp.Outcome, resp.Text())
		}
		if rs := m.Prompt(1).Messages[2].ToolResults; len(rs) != 2 || rs[0].Content != `{"customer":42}` || rs[1].Content != "n" {
			t.Fatalf("results sent back = %v", rs)
		}
	})
	t.Run("stream", func(t *testing.T) {
		m := chattest.New(chattest.Calls(chattest.Call("lookup", `{}`)))
		s := clienttest.New(t, m).Prompt("who?").Tools(direct).Stream(context.Background())
		var text string
		for chunk, err := range s.Text() {
			if err != nil {
				t.Fatal(err)
			}
			text += chunk
		}
		if text != "" || s.Response().Outcome != client.OutcomeReturnDirect || s.Response().Text() != `{"customer":42}` {
			t.Fatalf("text %q, response %+v", text, s.Response())
		}
	})
}

func TestIterationCap(t *testing.T) {
	var runs atomic.Int32
	loopy := newTool("again", func(context.Context, string) (string, error) { runs.Add(1); return "more", nil })
	m := chattest.New(
		chattest.Calls(chattest.Call("again", `{}`)).WithUsage(1, 1),
		chattest.Calls(chattest.Call("again", `{}`)).WithUsage(1, 1),
		chattest.Calls(chattest.Call("again", `{}`)).WithText("giving up").WithUsage(1, 1), // ignores ToolChoice none
	)
	adv := client.NewToolLoop(client.ToolLoopConfig{MaxIterations: 2})
	resp, err := clienttest.New(t, m, client.WithAdvisors(adv)).Prompt("loop").Tools(loopy).Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	if resp.Outcome != client.OutcomeIterationLimit || resp.ModelCalls != 3 || runs.Load() != 2 || resp.Text() != "giving up" {
		t.Fatalf("outcome %v, model calls %d, tool runs %d, text %q", resp.Outcome, resp.ModelCalls, runs.Load(), resp.Text())
	}
	if resp.Usage.TotalTokens != 6 {
		t.Fatalf("usage = %+v", resp.Usage)
	}
	for i, p := range m.Prompts() {
		want := ""
		if i == 2 {
			want = "none"
		}
		if p.Options.ToolChoice != want || len(p.Options.Tools) != 1 {
			t.Fatalf("prompt %d: tool choice %q, %d tools", i, p.Options.ToolChoice, len(p.Options.Tools))
		}
	}
	if adv.Config().MaxIterations != 2 || client.NewToolLoop(client.ToolLoopConfig{}).Config().MaxIterations != client.DefaultMaxIterations {
		t.Fatal("config defaults")
	}
}

func TestEligibilityChecker(t *testing.T) {
	var runs atomic.Int32
	tl := newTool("t", func(context.Context, string) (string, error) { runs.Add(1); return "x", nil })
	m := chattest.New(
		chattest.Reply{ToolCalls: []chat.ToolCall{chattest.Call("t", `{}`)}, FinishReason: chat.FinishStop},
	)
	adv := client.NewToolLoop(client.ToolLoopConfig{Eligible: func(r *chat.Response) bool {
		return r.HasToolCalls() && r.Result().FinishReason == chat.FinishToolCalls
	}})
	resp, err := clienttest.New(t, m).Prompt("x").Tools(tl).Advisors(adv).Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	if resp.Outcome != client.OutcomeToolCalls || runs.Load() != 0 {
		t.Fatalf("outcome %v, runs %d", resp.Outcome, runs.Load())
	}
}

func TestDisableHistory(t *testing.T) {
	m := chattest.New(chattest.Calls(chattest.Call("a", `{}`)), chattest.Text("ok"))
	adv := client.NewToolLoop(client.ToolLoopConfig{DisableHistory: true})
	c := clienttest.New(t, m, client.WithSystem("sys"), client.WithAdvisors(adv))
	if err := c.Prompt("q").Tools(constTool("a", "A")).Call(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	p := m.Prompt(1).Messages
	if len(p) != 2 || p[0].Role != chat.RoleSystem || p[1].Role != chat.RoleTool || p[1].ToolResults[0].Content != "A" {
		t.Fatalf("second prompt = %v", p)
	}
}

// auditAdvisor is a custom tool advisor built on the loop's hooks: it offers an extra tool from
// the second iteration on, counts iterations in per-turn state, and tags the final answer.
type auditAdvisor struct {
	*client.ToolLoop
	j *journal
}

type countKey struct{}

func newAuditAdvisor(j *journal, secret tool.Tool) *auditAdvisor {
	a := &auditAdvisor{j: j}
	a.ToolLoop = client.NewToolLoop(client.ToolLoopConfig{Hooks: client.ToolLoopHooks{
		InitializeLoop: func(ctx context.Context, req *client.Request) (*client.Request, error) {
			req.Turn.SetValue(countKey{}, new(int))
			a.j.add("init")
			return req, nil
		},
		BeforeCall: func(ctx context.Context, req *client.Request) (*client.Request, error) {
			*req.Turn.Value(countKey{}).(*int)++
			if req.Turn.Iteration == 0 {
				return req, nil
			}
			o := req.Prompt.Options.Clone()
			o.Tools = append(o.Tools, secret)
			return req.WithOptions(o), nil
		},
		AfterCall: func(ctx context.Context, req *client.Request, resp *client.Response) (*client.Response, error) {
			for _, c := range resp.Chat.ToolCalls() {
				a.j.add("intent:%s", c.Name)
			}
			return resp, nil
		},
		FinalizeLoop: func(ctx context.Context, req *client.Request, resp *client.Response) (*client.Response, error) {
			a.j.add("iterations:%d", *req.Turn.Value(countKey{}).(*int))
			out := *resp
			chatResp := *resp.Chat
			chatResp.Generations = slices.Clone(chatResp.Generations)
			chatResp.Generations[0].Message.Content += " [audited]"
			out.Chat = &chatResp
			return &out, nil
		},
	}})
	return a
}

func TestCustomToolAdvisorThroughHooks(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			j := &journal{}
			secret := constTool("secret", "42")
			m := chattest.New(
				chattest.Calls(chattest.Call("search", `{}`)),
				chattest.Calls(chattest.Call("secret", `{}`)),
				chattest.Text("the answer is 42"),
			)
			c := clienttest.New(t, m, client.WithAdvisors(newAuditAdvisor(j, secret)))
			spec := c.Prompt("q").Tools(constTool("search", "found secret"))
			var text string
			if stream {
				s := spec.Stream(context.Background())
				for ev, err := range s.Events() {
					if err != nil {
						t.Fatal(err)
					}
					if ev.Done != nil {
						text = ev.Done.Text()
					}
				}
			} else {
				var err error
				if text, err = spec.Call(context.Background()).Content(); err != nil {
					t.Fatal(err)
				}
			}
			if text != "the answer is 42 [audited]" {
				t.Fatalf("text = %q", text)
			}
			if got := j.String(); got != "init intent:search intent:secret iterations:3" {
				t.Fatalf("journal = %s", got)
			}
			// The hook's tool is added once per call, not once more on every iteration.
			if !slices.Equal(toolNames(m.Prompt(0)), []string{"search"}) || !slices.Equal(toolNames(m.Prompt(1)), []string{"search", "secret"}) ||
				!slices.Equal(toolNames(m.Prompt(2)), []string{"search", "secret"}) {
				t.Fatalf("tools: %v then %v then %v", toolNames(m.Prompt(0)), toolNames(m.Prompt(1)), toolNames(m.Prompt(2)))
			}
			if r := m.Prompt(2).Messages[4].ToolResults[0]; r.Content != "42" {
				t.Fatalf("injected tool result = %+v", r)
			}
		})
	}
}

func TestOneToolAdvisorPerChain(t *testing.T) {
	ctx := context.Background()
	j := &journal{}
	custom := newAuditAdvisor(j, constTool("secret", "s"))
	m := chattest.New(chattest.Calls(chattest.Call("a", `{}`)), chattest.Text("ok"))
	// A custom one given per call replaces the default: the loop runs once, with its hooks.
	if err := clienttest.New(t, m).Prompt("q").Tools(constTool("a", "A")).Advisors(custom).Call(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(j.String(), "init") || m.Requests() != 2 {
		t.Fatalf("journal %s, %d requests", j, m.Requests())
	}
	// Two custom ones fail fast, before the model is called.
	other := client.NewToolLoop(client.ToolLoopConfig{})
	err := clienttest.New(t, m, client.WithAdvisors(custom)).Prompt("q").Advisors(other).Call(ctx).Err()
	if !errors.Is(err, client.ErrTwoToolLoops) {
		t.Fatalf("err = %v", err)
	}
	if _, err := client.New(m, client.WithAdvisors(custom, other)); !errors.Is(err, client.ErrTwoToolLoops) {
		t.Fatalf("New err = %v", err)
	}
	if m.Requests() != 2 {
		t.Fatal("the model was called")
	}
	// A tool advisor given explicitly runs even when the automatic one is off.
	m2 := chattest.New(chattest.Calls(chattest.Call("a", `{}`)), chattest.Text("ok"))
	resp, err := clienttest.New(t, m2, client.WithoutToolLoop(), client.WithAdvisors(other)).Prompt("q").Tools(constTool("a", "A")).Call(ctx).Response()
	if err != nil || resp.Outcome != client.OutcomeAnswer {
		t.Fatalf("%v %v", resp, err)
	}
}

func TestNextInstructionsHook(t *testing.T) {
	m := chattest.New(chattest.Calls(chattest.Call("a", `{}`)), chattest.Text("ok"))
	adv := client.NewToolLoop(client.ToolLoopConfig{Hooks: client.ToolLoopHooks{
		NextInstructions: func(ctx context.Context, req *client.Request, resp *client.Response, result *toolcall.Result) ([]chat.Message, error) {
			return append(req.Turn.NextMessages(result), chat.User("now answer")), nil
		},
	}})
	if err := clienttest.New(t, m, client.WithAdvisors(adv)).Prompt("q").Tools(constTool("a", "A")).Call(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	p := m.Prompt(1).Messages
	if len(p) != 4 || p[3].Content != "now answer" || p[2].Role != chat.RoleTool {
		t.Fatalf("second prompt = %v", p)
	}
}

func TestHookErrors(t *testing.T) {
	boom := errors.New("hook failed")
	fail := func(context.Context, *client.Request) (*client.Request, error) { return nil, boom }
	for name, hooks := range map[string]client.ToolLoopHooks{
		"initialize": {InitializeLoop: fail},
		"before":     {BeforeCall: fail},
		"after": {AfterCall: func(context.Context, *client.Request, *client.Response) (*client.Response, error) {
			return nil, boom
		}},
		"finalize": {FinalizeLoop: func(context.Context, *client.Request, *client.Response) (*client.Response, error) {
			return nil, boom
		}},
	} {
		t.Run(name, func(t *testing.T) {
			m := chattest.New(chattest.Text("ok"), chattest.Text("ok"))
			c := clienttest.New(t, m, client.WithAdvisors(client.NewToolLoop(client.ToolLoopConfig{Hooks: hooks})))
			if err := c.Prompt("q").Call(context.Background()).Err(); !errors.Is(err, boom) {
				t.Fatalf("call err = %v", err)
			}
			var serr error
			for _, err := range c.Prompt("q").Stream(context.Background()).Events() {
				serr = err
			}
			if !errors.Is(serr, boom) {
				t.Fatalf("stream err = %v", serr)
			}
		})
	}
}

func TestLoopErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("model fails in the second round", func(t *testing.T) {
		boom := errors.New("overloaded")
		m := chattest.New(chattest.Calls(chattest.Call("a", `{}`)), chattest.Fail(boom))
		err := clienttest.New(t, m).Prompt("q").Tools(constTool("a", "A")).Call(ctx).Err()
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("fatal tool error ends the turn", func(t *testing.T) {
		boom := errors.New("disk on fire")
		bad := newTool("bad", func(context.Context, string) (string, error) { return "", tool.Fatal(boom) })
		m := chattest.New(chattest.Calls(chattest.Call("bad", `{}`)), chattest.Text("never"))
		err := clienttest.New(t, m).Prompt("q").Tools(bad).Call(ctx).Err()
		var ee *tool.ExecutionError
		if !errors.Is(err, boom) || !errors.As(err, &ee) || m.Requests() != 1 {
			t.Fatalf("err = %v, requests %d", err, m.Requests())
		}
	})
	t.Run("tool failure goes back to the model", func(t *testing.T) {
		bad := newTool("bad", func(context.Context, string) (string, error) { return "", errors.New("no such city") })
		m := chattest.New(chattest.Calls(chattest.Call("bad", `{}`), chattest.Call("missing", `{}`)), chattest.Text("sorry"))
		got, err := clienttest.New(t, m).Prompt("q").Tools(bad).Call(ctx).Content()
		if err != nil || got != "sorry" {
			t.Fatalf("%q %v", got, err)
		}
		rs := m.Prompt(1).Messages[2].ToolResults
		if !rs[0].IsError || !strings.Contains(rs[0].Content, "no such city") || !rs[1].IsError {
			t.Fatalf("results = %+v", rs)
		}
	})
	t.Run("cancelled while tools run", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		slow := newTool("slow", func(ctx context.Context, _ string) (string, error) {
			cancel()
			<-ctx.Done()
			return "", ctx.Err()
		})
		m := chattest.New(chattest.Calls(chattest.Call("slow", `{}`)), chattest.Text("never"))
		err := clienttest.New(t, m).Prompt("q").Tools(slow).Call(cctx).Err()
		if !errors.Is(err, context.Canceled) || m.Requests() != 1 {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("advisor outside a client needs a manager", func(t *testing.T) {
		adv := client.NewToolLoop(client.ToolLoopConfig{})
		_, err := adv.Advise(ctx, &client.Request{}, func(context.Context, *client.Request) (*client.Response, error) {
			t.Fatal("next called")
			return nil, nil
		})
		if !errors.Is(err, client.ErrNoManager) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestLoopWithExplicitManagerAndNames(t *testing.T) {
	res, err := tool.NewStaticResolver(constTool("named", "from resolver"))
	if err != nil {
		t.Fatal(err)
	}
	mgr := toolcall.New(toolcall.Config{Resolver: res})
	m := chattest.New(chattest.Calls(chattest.Call("named", `{}`)), chattest.Text("ok"))
	c := clienttest.New(t, m, client.WithManager(mgr), client.WithToolNames("named"))
	if c.Manager() != mgr || c.Model() != m {
		t.Fatal("accessors")
	}
	if err := c.Prompt("q").Call(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(toolNames(m.Prompt(0)), []string{"named"}) {
		t.Fatalf("model saw tools %v", toolNames(m.Prompt(0)))
	}
	if r := m.Prompt(1).Messages[2].ToolResults[0].Content; r != "from resolver" {
		t.Fatalf("result = %q", r)
	}
	if err := c.Prompt("q").ToolNames("unknown").Call(context.Background()).Err(); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Fatalf("unknown name: %v", err)
	}
}

// Without internal history each round's prompt lacks the turn's earlier calls; the per-turn
// limits must still count the whole turn, for call and stream.
func TestLoopLimitsWithoutHistory(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			var runs atomic.Int32
			lookup := newTool("lookup", func(context.Context, string) (string, error) {
				runs.Add(1)
				return "found", nil
			})
			m := chattest.New(
				chattest.Calls(chattest.Call("lookup", `{}`)),
				chattest.Calls(chattest.Call("lookup", `{}`)),
				chattest.Calls(chattest.Call("lookup", `{}`)),
				chattest.Text("done"),
			)
			mgr := toolcall.New(toolcall.Config{Limits: toolcall.Limits{PerTool: 2, OnExceeded: toolcall.LimitTellModel}})
			loop := client.NewToolLoop(client.ToolLoopConfig{Manager: mgr, DisableHistory: true})
			spec := clienttest.New(t, m, client.WithAdvisors(loop)).Prompt("find it").Tools(lookup)
			var text string
			var err error
			if stream {
				for chunk, e := range spec.Stream(context.Background()).Text() {
					text, err = text+chunk, e
				}
			} else {
				text, err = spec.Call(context.Background()).Content()
			}
			if err != nil || text != "done" {
				t.Fatalf("answer %q, %v", text, err)
			}
			if n := runs.Load(); n != 2 {
				t.Fatalf("tool ran %d times, want 2 (the limit)", n)
			}
			last := m.Prompt(3).Messages
			res := last[len(last)-1]
			if res.Role != chat.RoleTool || !res.ToolResults[0].IsError || !strings.Contains(res.ToolResults[0].Content, "limit") {
				t.Fatalf("third round's result = %v, want a limit error", res)
			}
		})
	}
}
