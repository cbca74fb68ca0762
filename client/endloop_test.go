package client_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

type endKey struct{}

// endProbe records the EndLoop calls of an advisor's turns and what each saw.
type endProbe struct {
	mu    sync.Mutex
	ends  int
	resp  *client.Response
	err   error
	state any // the per-turn value InitializeLoop stored, as EndLoop found it
	j     *journal
}

func (p *endProbe) hooks() client.ToolLoopHooks {
	return client.ToolLoopHooks{
		InitializeLoop: func(_ context.Context, req *client.Request) (*client.Request, error) {
			req.Turn.SetValue(endKey{}, "taken")
			p.j.add("init")
			return req, nil
		},
		FinalizeLoop: func(_ context.Context, _ *client.Request, resp *client.Response) (*client.Response, error) {
			p.j.add("finalize")
			return resp, nil
		},
		EndLoop: p.end,
	}
}

func (p *endProbe) end(_ context.Context, req *client.Request, resp *client.Response, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ends++
	p.resp, p.err = resp, err
	if req != nil && req.Turn != nil {
		p.state = req.Turn.Value(endKey{})
	}
	p.j.add("end")
}

func (p *endProbe) check(t *testing.T, wantErr error) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ends != 1 {
		t.Fatalf("EndLoop ran %d times, want once", p.ends)
	}
	if p.state != "taken" {
		t.Errorf("EndLoop saw loop state %v", p.state)
	}
	if wantErr == nil {
		if p.err != nil || p.resp == nil {
			t.Errorf("EndLoop got %v, %v; want the response", p.resp, p.err)
		}
		return
	}
	if !errors.Is(p.err, wantErr) || p.resp != nil {
		t.Errorf("EndLoop got %v, %v; want no response and %v", p.resp, p.err, wantErr)
	}
}

// drain runs a stream to its end and returns the final response and the last error.
func drain(s *client.Stream) (*client.Response, error) {
	var done *client.Response
	var last error
	for ev, err := range s.Events() {
		if err != nil {
			last = err
			continue
		}
		if ev.Done != nil {
			done = ev.Done
		}
	}
	return done, last
}

// runTurn runs spec as a call or, with stream, as a stream drained to its end.
func runTurn(ctx context.Context, spec *client.Spec, stream bool) (*client.Response, error) {
	if stream {
		return drain(spec.Stream(ctx))
	}
	return spec.Call(ctx).Response()
}

func TestEndLoopOnSuccess(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			p := &endProbe{j: &journal{}}
			m := chattest.New(chattest.Calls(chattest.Call("a", `{}`)), chattest.Text("answer"))
			c := clienttest.New(t, m, client.WithAdvisors(client.NewToolLoop(client.ToolLoopConfig{Hooks: p.hooks()})))
			spec := c.Prompt("q").Tools(constTool("a", "A"))
			resp, err := runTurn(context.Background(), spec, stream)
			if err != nil || resp.Text() != "answer" {
				t.Fatalf("%v, %v", resp, err)
			}
			p.check(t, nil)
			if p.resp != resp {
				t.Error("EndLoop did not get the turn's response")
			}
			if got := p.j.String(); got != "init finalize end" {
				t.Errorf("order: %s", got)
			}
		})
	}
}

func TestEndLoopOnFailure(t *testing.T) {
	boom := errors.New("boom")
	failReq := func(context.Context, *client.Request) (*client.Request, error) { return nil, boom }
	tests := []struct {
		name    string
		hooks   func(*client.ToolLoopHooks)
		replies []chattest.Reply
		tools   []any
		cancel  bool // the context is cancelled while the tool runs
		want    error
	}{
		{name: "initialize", hooks: func(h *client.ToolLoopHooks) {
			init := h.InitializeLoop
			h.InitializeLoop = func(ctx context.Context, r *client.Request) (*client.Request, error) {
				if _, err := init(ctx, r); err != nil {
					return nil, err
				}
				return nil, boom // after taking its state
			}
		}, want: boom},
		{name: "before", hooks: func(h *client.ToolLoopHooks) { h.BeforeCall = failReq }, want: boom},
		{name: "model", replies: []chattest.Reply{chattest.Fail(boom)}, want: boom},
		{name: "model in the second round", replies: []chattest.Reply{chattest.Calls(chattest.Call("a", `{}`)), chattest.Fail(boom)}, want: boom},
		{name: "after", hooks: func(h *client.ToolLoopHooks) {
			h.AfterCall = func(context.Context, *client.Request, *client.Response) (*client.Response, error) { return nil, boom }
		}, want: boom},
		{name: "next instructions", replies: []chattest.Reply{chattest.Calls(chattest.Call("a", `{}`))}, hooks: func(h *client.ToolLoopHooks) {
			h.NextInstructions = func(context.Context, *client.Request, *client.Response, *toolcall.Result) ([]chat.Message, error) {
				return nil, boom
			}
		}, want: boom},
		{name: "finalize", hooks: func(h *client.ToolLoopHooks) {
			h.FinalizeLoop = func(context.Context, *client.Request, *client.Response) (*client.Response, error) { return nil, boom }
		}, want: boom},
		{name: "fatal tool error", replies: []chattest.Reply{chattest.Calls(chattest.Call("fatal", `{}`))},
			tools: []any{newTool("fatal", func(context.Context, string) (string, error) { return "", tool.Fatal(boom) })}, want: boom},
		{name: "cancelled", replies: []chattest.Reply{chattest.Calls(chattest.Call("slow", `{}`))}, cancel: true, want: context.Canceled},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", tt.name, stream), func(t *testing.T) {
				p := &endProbe{j: &journal{}}
				h := p.hooks()
				if tt.hooks != nil {
					tt.hooks(&h)
				}
				replies := tt.replies
				if replies == nil {
					replies = []chattest.Reply{chattest.Text("ok")}
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				tools := append([]any{constTool("a", "A")}, tt.tools...)
				if tt.cancel {
					tools = append(tools, newTool("slow", func(tctx context.Context, _ string) (string, error) {
						cancel()
						<-tctx.Done()
						return "", tctx.Err()
					}))
				}
				c := clienttest.New(t, chattest.New(replies...), client.WithAdvisors(client.NewToolLoop(client.ToolLoopConfig{Hooks: h})))
				spec := c.Prompt("q").Tools(tools...)
				_, err := runTurn(ctx, spec, stream)
				if !errors.Is(err, tt.want) {
					t.Fatalf("turn error %v, want %v", err, tt.want)
				}
				p.check(t, tt.want)
			})
		}
	}
}

func TestEndLoopWhenTheStreamConsumerStops(t *testing.T) {
	for _, during := range []string{"text", "tools", "done"} {
		t.Run(during, func(t *testing.T) {
			p := &endProbe{j: &journal{}}
			m := chattest.New(chattest.Calls(chattest.Call("a", `{}`)).WithText("thinking"), chattest.Text("answer"))
			c := clienttest.New(t, m, client.WithAdvisors(client.NewToolLoop(client.ToolLoopConfig{Hooks: p.hooks()})))
			for ev, err := range c.Prompt("q").Tools(constTool("a", "A")).Stream(context.Background()).Events() {
				if err != nil {
					t.Fatal(err)
				}
				if during == "text" && ev.Chunk != nil || during == "tools" && ev.Tool != nil || ev.Done != nil {
					break
				}
			}
			if during == "done" {
				p.check(t, nil) // stopping after the last event is the normal end
				return
			}
			p.check(t, context.Canceled)
		})
	}
}

func TestEndLoopPanicsAreNotSwallowed(t *testing.T) {
	type crash struct{ where string }
	for _, where := range []string{"hook", "consumer"} {
		for _, stream := range []bool{false, true} {
			if where == "consumer" && !stream {
				continue
			}
			t.Run(fmt.Sprintf("%s/stream=%v", where, stream), func(t *testing.T) {
				p := &endProbe{j: &journal{}}
				h := p.hooks()
				if where == "hook" {
					h.AfterCall = func(context.Context, *client.Request, *client.Response) (*client.Response, error) {
						panic(crash{where})
					}
				}
				c := clienttest.New(t, chattest.New(chattest.Text("answer")), client.WithAdvisors(client.NewToolLoop(client.ToolLoopConfig{Hooks: h})))
				spec := c.Prompt("q").Tools(constTool("a", "A"))
				got := func() (v any) {
					defer func() { v = recover() }()
					if !stream {
						_ = spec.Call(context.Background()).Err()
						return nil
					}
					for range spec.Stream(context.Background()).Events() {
						if where == "consumer" {
							panic(crash{where})
						}
					}
					return nil
				}()
				if got != (crash{where}) {
					t.Fatalf("recovered %v, want the panic's own value", got)
				}
				p.check(t, client.ErrLoopAborted)
			})
		}
	}
}

// One EndLoop serves both paths and can tell them apart.
func TestEndLoopOnBothPaths(t *testing.T) {
	var call, streamed int
	hooks := client.ToolLoopHooks{
		EndLoop: func(_ context.Context, req *client.Request, _ *client.Response, _ error) {
			if req.Streaming() {
				streamed++
			} else {
				call++
			}
		},
	}
	c := clienttest.New(t, chattest.New(chattest.Text("a"), chattest.Text("b")),
		client.WithAdvisors(client.NewToolLoop(client.ToolLoopConfig{Hooks: hooks})))
	if err := c.Prompt("q").Call(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := drain(c.Prompt("q").Stream(context.Background())); err != nil {
		t.Fatal(err)
	}
	if call != 1 || streamed != 1 {
		t.Errorf("EndLoop ran %d times for the call, %d for the stream; want once each", call, streamed)
	}
}

func TestEndLoopNotRunWithoutALoop(t *testing.T) {
	ran := false
	adv := client.NewToolLoop(client.ToolLoopConfig{Hooks: client.ToolLoopHooks{
		EndLoop: func(context.Context, *client.Request, *client.Response, error) { ran = true },
	}})
	next := func(context.Context, *client.Request) (*client.Response, error) {
		t.Fatal("next called")
		return nil, nil
	}
	if _, err := adv.Advise(context.Background(), &client.Request{}, next); !errors.Is(err, client.ErrNoManager) {
		t.Fatalf("err = %v", err)
	}
	if ran {
		t.Error("EndLoop ran for a turn whose loop never started")
	}
}
