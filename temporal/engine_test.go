package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/tool/augment"
	"github.com/wield-ai/wield/toolcall"
	"github.com/wield-ai/wield/toolsearch"
)

// The tests of this file run one table of scenarios through both drivers of the one loop: the
// client in a process, and a durable turn whose workflow runs the same client's loop (the
// default; Config.WorkflowLoop is the older loop). Each scenario must end alike in both: the
// same outcome, answer, history and events (timings aside), the same prompts sent to the model
// and the same tool runs.

// scenario is one turn (or a few) and the decisions its stops get.
type scenario struct {
	name string
	// setup returns a fresh client, with its scripted model and counting tools, for one driver.
	setup func(t *testing.T) *rig
	// decide answers a stop; nil for scenarios that do not stop.
	decide func(st *client.TurnState) []client.Decision
	// turns are the user messages of the turns run one after the other (default one, "go").
	turns []string
}

// rig is what one driver runs: the client and what to compare.
type rig struct {
	c     *client.Client
	model *chattest.Model
	runs  *atomic.Int32 // tool runs
	// conversation, when set, names the conversation the turns continue (memory).
	conversation string
	mem          memory.Memory
}

// outcome is what a driver observed of one scenario.
type outcome struct {
	Outcomes []client.Outcome
	Answers  []string
	Parts    int
	Messages string   // the turns' added messages, as JSON
	Events   []string // the events, text of one model call joined
	Prompts  string   // what the model received, as JSON
	Runs     int32
	Err      string
}

func count(runs *atomic.Int32, name, result string) *chattest.Tool {
	return newTool(name, tool.Metadata{}, func(context.Context, string) (string, error) {
		runs.Add(1)
		return result, nil
	})
}

func scenarios() []scenario {
	mk := func(t *testing.T, m *chattest.Model, tools func(*atomic.Int32) []any, opts ...client.Option) *rig {
		runs := &atomic.Int32{}
		if tools != nil {
			opts = append(opts, client.WithTools(tools(runs)...))
		}
		return &rig{c: newClient(t, m, opts...), model: m, runs: runs}
	}
	read := func(runs *atomic.Int32) []any { return []any{count(runs, "read", "read done")} }
	two := func(runs *atomic.Int32) []any {
		return []any{count(runs, "read", "read done"), count(runs, "list", "list done")}
	}
	approve := func(st *client.TurnState) []client.Decision {
		var out []client.Decision
		for _, p := range st.Pending() {
			out = append(out, client.Approve(p.Call.ID))
		}
		return out
	}
	return []scenario{
		{name: "text answer", setup: func(t *testing.T) *rig {
			return mk(t, chattest.New(chattest.Text("hello there")), nil)
		}},
		{name: "parallel round", setup: func(t *testing.T) *rig {
			return mk(t, chattest.New(
				chattest.Calls(call("c1", "read", `{"path":"a"}`), call("c2", "list", `{"path":"b"}`), call("c3", "read", `{"path":"c"}`)),
				chattest.Text("all read")), two)
		}},
		{name: "sequential tool", setup: func(t *testing.T) *rig {
			return mk(t, chattest.New(
				chattest.Calls(call("c1", "read", `{"path":"a"}`), call("c2", "write", `{"path":"b"}`), call("c3", "read", `{"path":"c"}`)),
				chattest.Text("done")), func(runs *atomic.Int32) []any {
				w := count(runs, "write", "written")
				w.Meta.Sequential = true
				return []any{count(runs, "read", "read done"), w}
			})
		}},
		{name: "return direct with an image", setup: func(t *testing.T) *rig {
			return mk(t, chattest.New(chattest.Calls(call("c1", "chart", `{}`))), func(runs *atomic.Int32) []any {
				chart := tool.Must(tool.Func("chart", "draws a chart", func(context.Context, struct{}) (tool.Result, error) {
					runs.Add(1)
					return tool.Result{Text: "the chart", Parts: []content.Part{content.Image([]byte("\x89PNG\r\n\x1a\nxx"), "image/png")}}, nil
				}, tool.ReturnDirect()))
				return []any{chart}
			})
		}},
		{name: "iteration cap", setup: func(t *testing.T) *rig {
			m := chattest.New(chattest.Calls(call("", "read", `{"path":"a"}`))).Repeat()
			return mk(t, m, read, client.WithAdvisors(client.NewToolLoop(client.ToolLoopConfig{MaxIterations: 2})))
		}},
		{name: "approval then edit", setup: func(t *testing.T) *rig {
			return mk(t, chattest.New(chattest.Calls(call("c1", "pay", `{"path":"x"}`)), chattest.Text("paid")), func(runs *atomic.Int32) []any {
				pay := count(runs, "pay", "paid")
				pay.Meta.RequiresApproval = true
				return []any{pay}
			})
		}, decide: func(st *client.TurnState) []client.Decision {
			return []client.Decision{client.ApproveWith(st.Pending()[0].Call.ID, `{"path":"y"}`)}
		}},
		{name: "interrupt then restart", setup: func(t *testing.T) *rig {
			return mk(t, chattest.New(chattest.Calls(call("c1", "ask", `{"path":"q"}`)), chattest.Text("answered")), func(runs *atomic.Int32) []any {
				return []any{newTool("ask", tool.Metadata{}, func(ctx context.Context, _ string) (string, error) {
					runs.Add(1)
					if r, ok := toolcall.Resumed(ctx); ok {
						return "told " + string(r.Data), nil
					}
					return "", toolcall.InterruptWith("which one?", map[string]int{"choices": 2})
				})}
			})
		}, decide: func(st *client.TurnState) []client.Decision {
			return []client.Decision{client.Restart(st.Pending()[0].Call.ID, "", json.RawMessage(`"the second"`))}
		}},
		{name: "sub-agent approval", setup: func(t *testing.T) *rig {
			inner := chattest.New(chattest.Calls(call("i1", "pay", `{"path":"x"}`)), chattest.Text("inner paid"))
			runs := &atomic.Int32{}
			pay := count(runs, "pay", "paid")
			pay.Meta.RequiresApproval = true
			sub := newClient(t, inner, client.WithTools(pay))
			agent, err := client.AgentTool(sub, "payer", "pays")
			if err != nil {
				t.Fatal(err)
			}
			m := chattest.New(chattest.Calls(call("c1", "payer", `{"input":"pay x"}`)), chattest.Text("outer done"))
			return &rig{c: newClient(t, m, client.WithTools(agent)), model: m, runs: runs}
		}, decide: approve},
		{name: "tool search finds a tool", setup: func(t *testing.T) *rig {
			m := chattest.New(
				chattest.Calls(call("s1", toolsearch.SearchToolName, `{"queries":["weather in a city"]}`)),
				chattest.Calls(call("c1", "weather", `{"path":"Oslo"}`)),
				chattest.Text("sunny"))
			runs := &atomic.Int32{}
			tools := []any{count(runs, "weather", "sunny in Oslo"), count(runs, "stocks", "up"), count(runs, "calendar", "free")}
			c := newClient(t, m, client.WithTools(tools...), client.WithAdvisors(toolsearch.New(toolsearch.Config{})))
			return &rig{c: c, model: m, runs: runs}
		}},
		{name: "augmentation", setup: func(t *testing.T) *rig {
			type why struct {
				Reason string `json:"reason"`
			}
			var reasons atomic.Value
			runs := &atomic.Int32{}
			aug, err := augment.Tool(count(runs, "read", "read done"), func(_ context.Context, e augment.Event[why]) error { reasons.Store(e.Args.Reason); return nil })
			if err != nil {
				t.Fatal(err)
			}
			m := chattest.New(chattest.Calls(call("c1", "read", `{"path":"a","reason":"to see"}`)), chattest.Text("read it"))
			return &rig{c: newClient(t, m, client.WithTools(aug)), model: m, runs: runs}
		}},
		{name: "memory across two turns", turns: []string{"my name is Ada", "what is my name?"}, setup: func(t *testing.T) *rig {
			mem := memory.NewWindow(memory.NewInMemory(), 20)
			m := chattest.New(chattest.Text("hello Ada"), chattest.Text("Ada"))
			r := mk(t, m, nil, client.WithAdvisors(memory.NewAdvisor(mem, memory.AdvisorConfig{})))
			r.conversation, r.mem = "ada", mem
			return r
		}},
		{name: "model 500 then success", setup: func(t *testing.T) *rig {
			m := chattest.New(chattest.Fail(&chat.ProviderError{StatusCode: 500, Message: "busy"}), chattest.Calls(call("c1", "read", `{"path":"a"}`)), chattest.Text("ok"))
			runs := &atomic.Int32{}
			return &rig{c: newClient(t, retrying{m}, client.WithTools(read(runs)...)), model: m, runs: runs}
		}},
		{name: "a tool panics", setup: func(t *testing.T) *rig {
			return mk(t, chattest.New(chattest.Calls(call("c1", "boom", `{"path":"a"}`)), chattest.Text("it broke")), func(runs *atomic.Int32) []any {
				return []any{newTool("boom", tool.Metadata{}, func(context.Context, string) (string, error) {
					runs.Add(1)
					panic("kaboom")
				})}
			})
		}},
	}
}

// retrying is a model that tries once more after a temporary provider error, as the providers
// do: the same scenario then succeeds on both drivers.
type retrying struct{ *chattest.Model }

func (r retrying) Call(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
	resp, err := r.Model.Call(ctx, p)
	var pe *chat.ProviderError
	if errors.As(err, &pe) && pe.Temporary() {
		return r.Model.Call(ctx, p)
	}
	return resp, err
}

func (r retrying) Stream(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error] {
	return func(yield func(*chat.Response, error) bool) {
		for attempt := 0; ; attempt++ {
			type item struct {
				c   *chat.Response
				err error
			}
			var items []item
			var pe *chat.ProviderError
			retry := false
			for c, err := range r.Model.Stream(ctx, p) {
				if err != nil && attempt == 0 && errors.As(err, &pe) && pe.Temporary() {
					retry = true
					break
				}
				items = append(items, item{c, err})
			}
			if retry {
				continue
			}
			for _, it := range items {
				if !yield(it.c, it.err) {
					return
				}
			}
			return
		}
	}
}

// inProcess runs a scenario with the client in this process, streamed.
func inProcess(t *testing.T, sc scenario) outcome {
	r := sc.setup(t)
	var out outcome
	var msgs []chat.Message
	for _, text := range turnsOf(sc) {
		spec := r.c.Prompt(text)
		if r.conversation != "" {
			spec.Param(client.ParamConversationID, r.conversation)
		}
		for {
			resp, events, err := drain(spec.Stream(context.Background()))
			out.Events = append(out.Events, events...)
			if err != nil {
				out.Err = err.Error()
				break
			}
			msgs = append(msgs, resp.Messages...)
			if resp.Pending == nil {
				out.add(resp)
				break
			}
			spec = r.c.Resume(resp.Pending, sc.decide(resp.Pending)...)
		}
	}
	out.finish(t, r, msgs)
	return out
}

// drain reads a stream's events, joining the text of consecutive chunks.
func drain(s *client.Stream) (*client.Response, []string, error) {
	var events []client.Event
	for ev, err := range s.Events() {
		if err != nil {
			return nil, describeJoined(events), err
		}
		if ev.Done != nil {
			return ev.Done, describeJoined(events), nil
		}
		events = append(events, *ev)
	}
	return nil, describeJoined(events), errors.New("the stream ended without a response")
}

// describeJoined describes the turn's own events: the text of consecutive chunks joined, and the
// tool events of a parallel round sorted, since in a process they interleave as the calls run.
// A sub-agent's events are left out: on Temporal a sub-agent runs inside its call's activity.
func describeJoined(events []client.Event) []string {
	var own []client.Event
	for _, ev := range events {
		if ev.Agent() == "" {
			own = append(own, ev)
		}
	}
	var out []string
	for _, d := range describe(own) {
		if n := len(out); n > 0 && strings.HasPrefix(d, "text:") && strings.HasPrefix(out[n-1], "text:") {
			out[n-1] += strings.TrimPrefix(d, "text:")
			continue
		}
		out = append(out, d)
	}
	tools := func(d string) bool { return strings.HasPrefix(d, "start:") || strings.HasPrefix(d, "finish:") }
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && tools(out[j]) {
			j++
		}
		slices.Sort(out[i:j])
		i = j + 1
	}
	return out
}

func turnsOf(sc scenario) []string {
	if len(sc.turns) == 0 {
		return []string{"go"}
	}
	return sc.turns
}

func (o *outcome) add(resp *client.Response) {
	o.Outcomes = append(o.Outcomes, resp.Outcome)
	o.Answers = append(o.Answers, resp.Text())
	if resp.Chat != nil && len(resp.Chat.Generations) > 0 {
		o.Parts += len(resp.Chat.Generations[0].Message.Parts)
	}
}

func (o *outcome) finish(t *testing.T, r *rig, msgs []chat.Message) {
	t.Helper()
	o.Runs = r.runs.Load()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	o.Messages = string(b)
	var prompts []string
	for _, p := range r.model.Prompts() {
		pb, err := json.Marshal(p.Messages)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		if p.Options != nil {
			for _, tl := range p.Options.Tools {
				names = append(names, tl.Definition().Name)
			}
			names = append(names, "choice="+p.Options.ToolChoice)
		}
		prompts = append(prompts, string(pb)+fmt.Sprint(names))
	}
	o.Prompts = strings.Join(prompts, "\n")
}

// durably runs a scenario as durable turns whose workflow runs the client's loop.
func durably(t *testing.T, sc scenario) outcome {
	r := sc.setup(t)
	var out outcome
	var msgs []chat.Message
	cfg := Config{}
	for _, text := range turnsOf(sc) {
		e := newEnv(t, r.c, cfg)
		var seen int64
		var poll func()
		poll = func() {
			v, err := e.QueryWorkflow(queryPending)
			if err == nil {
				var st *client.TurnState
				if v.Get(&st) == nil && st != nil && st.Seq > seen {
					seen = st.Seq
					e.decide(st.Seq, sc.decide(st)...)
				}
			}
			if !e.IsWorkflowCompleted() {
				e.at(time.Second, poll)
			}
		}
		e.at(time.Second, poll)
		resp, err := e.run(&Request{Messages: []chat.Message{chat.User(text)}, ConversationID: r.conversation})
		v, qerr := e.QueryWorkflow(queryEvents, 0)
		if qerr == nil {
			var page eventsPage
			if v.Get(&page) == nil {
				out.Events = append(out.Events, describeJoined(page.Events)...)
			}
		}
		if err != nil {
			out.Err = err.Error()
			break
		}
		msgs = append(msgs, resp.Messages...)
		out.add(resp)
	}
	out.finish(t, r, msgs)
	return out
}

// TestBothDriversAgree is the proof that the two drivers of the loop cannot drift: every
// scenario ends alike in a process and on Temporal.
func TestBothDriversAgree(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			want := inProcess(t, sc)
			got := durably(t, sc)
			if want.Err != "" {
				t.Fatalf("in a process the scenario failed: %s", want.Err)
			}
			if got.Err != "" {
				t.Fatalf("on Temporal the scenario failed: %s", got.Err)
			}
			same := func(what string, a, b any) {
				t.Helper()
				if fmt.Sprint(a) != fmt.Sprint(b) {
					t.Errorf("%s differ:\nprocess:  %v\ntemporal: %v", what, a, b)
				}
			}
			same("outcomes", want.Outcomes, got.Outcomes)
			same("answers", want.Answers, got.Answers)
			same("answer parts", want.Parts, got.Parts)
			same("messages", want.Messages, got.Messages)
			same("events", want.Events, got.Events)
			same("prompts", want.Prompts, got.Prompts)
			same("tool runs", want.Runs, got.Runs)
			if len(want.Answers) == 0 || want.Runs == 0 && sc.name != "text answer" && sc.name != "memory across two turns" {
				t.Errorf("the scenario proves little: answers %q, %d tool runs", want.Answers, want.Runs)
			}
		})
	}
}
