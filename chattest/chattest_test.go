package chattest_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
)

func prompt(text string) *chat.Prompt {
	return &chat.Prompt{Messages: []chat.Message{chat.User(text)}}
}

func TestCallInOrder(t *testing.T) {
	m := chattest.New(
		chattest.Calls(chattest.Call("weather", `{"city":"Paris"}`), chattest.Call("time", `{}`)).WithUsage(10, 2),
		chattest.Text("sunny").WithUsage(20, 3),
	)
	ctx := context.Background()
	r1, err := m.Call(ctx, prompt("weather?"))
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.ToolCall{
		{ID: "call_1", Name: "weather", Arguments: `{"city":"Paris"}`, Index: 0},
		{ID: "call_2", Name: "time", Arguments: `{}`, Index: 1},
	}
	if got := r1.ToolCalls(); !reflect.DeepEqual(got, want) {
		t.Fatalf("tool calls = %+v", got)
	}
	if r1.Result().FinishReason != chat.FinishToolCalls || r1.Usage.TotalTokens != 12 || r1.Model != "scripted" {
		t.Fatalf("response = %+v", r1)
	}
	r2, err := m.Call(ctx, prompt("again"))
	if err != nil {
		t.Fatal(err)
	}
	if r2.Text() != "sunny" || r2.Result().FinishReason != chat.FinishStop {
		t.Fatalf("second reply = %+v", r2)
	}
	if m.Remaining() != 0 || m.Requests() != 2 {
		t.Fatalf("remaining %d, requests %d", m.Remaining(), m.Requests())
	}
}

func TestScriptEnded(t *testing.T) {
	m := chattest.New(chattest.Text("only one"))
	ctx := context.Background()
	if _, err := m.Call(ctx, prompt("first")); err != nil {
		t.Fatal(err)
	}
	_, err := m.Call(ctx, prompt("one too many"))
	if !errors.Is(err, chattest.ErrScriptEnded) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "request 2") || !strings.Contains(err.Error(), "1 replies") || !strings.Contains(err.Error(), "one too many") {
		t.Errorf("error does not say what happened: %v", err)
	}
	var streamErr error
	for _, err := range m.Stream(ctx, prompt("stream")) {
		streamErr = err
	}
	if !errors.Is(streamErr, chattest.ErrScriptEnded) {
		t.Fatalf("stream err = %v", streamErr)
	}
}

func TestPromptsRecordedAndIsolated(t *testing.T) {
	m := chattest.New(chattest.Text("a"))
	p := &chat.Prompt{
		Messages: []chat.Message{chat.User("hi"), chat.Assistant("", chat.ToolCall{ID: "x", Name: "t"})},
		Options:  &chat.Options{Model: "m1", Extra: map[string]any{"tenant": "acme"}},
	}
	if _, err := m.Call(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	p.Messages[0].Content = "changed"
	p.Messages[1].ToolCalls[0].Name = "changed"
	p.Options.Model = "changed"
	got := m.Prompt(0)
	if got.Messages[0].Content != "hi" || got.Messages[1].ToolCalls[0].Name != "t" || got.Options.Model != "m1" {
		t.Fatalf("record changed with the caller's prompt: %+v", got)
	}
	if m.Prompt(1) != nil || m.Prompt(-1) != nil {
		t.Fatal("Prompt out of range should be nil")
	}
	if len(m.Prompts()) != 1 {
		t.Fatal("Prompts")
	}
}

func TestResponseModelFollowsOptions(t *testing.T) {
	m := chattest.New(chattest.Text("a")).WithInfo(chat.Info{Provider: "p", Model: "dflt"})
	r, err := m.Call(context.Background(), &chat.Prompt{Options: &chat.Options{Model: "asked"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Model != "asked" {
		t.Fatalf("model = %q", r.Model)
	}
	var d chat.Describer = m
	if d.Info() != (chat.Info{Provider: "p", Model: "dflt"}) {
		t.Fatalf("info = %+v", d.Info())
	}
}

func TestStreamChunks(t *testing.T) {
	reply := chattest.Calls(
		chattest.Call("weather", `{"city":"Paris"}`),
		chattest.Call("time", ``),
	).WithText("Let me check, é!").WithUsage(7, 5)
	m := chattest.New(reply, reply).WithChunkSize(3)
	ctx := context.Background()
	want, err := m.Call(ctx, prompt("q"))
	if err != nil {
		t.Fatal(err)
	}
	var chunks []*chat.Response
	for c, err := range m.Stream(ctx, prompt("q")) {
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, c)
	}
	// Arguments arrive in several fragments, id and name only on the first.
	var frags []chat.ToolCall
	for _, c := range chunks {
		for _, g := range c.Generations {
			frags = append(frags, g.Message.ToolCalls...)
			if len([]rune(g.Message.Content)) > 3 {
				t.Errorf("text chunk %q longer than 3 characters", g.Message.Content)
			}
		}
	}
	if len(frags) < 4 || frags[0].Name != "weather" || frags[0].ID != "call_3" || frags[1].Name != "" || frags[1].ID != "" || frags[1].Index != 0 {
		t.Fatalf("fragments = %+v", frags)
	}
	last := frags[len(frags)-1]
	if last.Name != "time" || last.Index != 1 || last.Arguments != "" {
		t.Fatalf("argument-less call = %+v", last)
	}
	got, err := chat.Aggregate(func(yield func(*chat.Response, error) bool) {
		for _, c := range chunks {
			if !yield(c, nil) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// Same reply as Call, except for the ids assigned per call.
	want.Generations[0].Message.ToolCalls[0].ID = "call_3"
	want.Generations[0].Message.ToolCalls[1].ID = "call_4"
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("aggregated stream:\n got %+v\nwant %+v", got, want)
	}
}

func TestStreamCut(t *testing.T) {
	cut := errors.New("connection reset")
	m := chattest.New(chattest.Reply{Text: "partial answer", Err: cut})
	got, err := chat.Aggregate(m.Stream(context.Background(), prompt("q")))
	if !errors.Is(err, cut) || got.Text() != "partial answer" {
		t.Fatalf("got %q, %v", got.Text(), err)
	}
	m.Script(chattest.Fail(cut))
	if _, err := m.Call(context.Background(), prompt("q")); !errors.Is(err, cut) {
		t.Fatalf("Call err = %v", err)
	}
}

func TestStreamStopsEarlyAndCancel(t *testing.T) {
	m := chattest.New(chattest.Text("a long answer in many chunks"), chattest.Text("never"))
	n := 0
	for range m.Stream(context.Background(), prompt("q")) {
		n++
		if n == 2 {
			break
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var last error
	for _, err := range m.Stream(ctx, prompt("q")) {
		last = err
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("err = %v", last)
	}
	if _, err := m.Call(ctx, prompt("q")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Call err = %v", err)
	}
	if m.Remaining() != 1 {
		t.Fatalf("a cancelled call used a reply: remaining %d", m.Remaining())
	}
}

func TestRespond(t *testing.T) {
	m := chattest.New(chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("echo: " + p.Messages[0].Content)}}}, nil
	}))
	r, err := m.Call(context.Background(), prompt("hi"))
	if err != nil || r.Text() != "echo: hi" {
		t.Fatalf("%v %v", r, err)
	}
}

func TestConcurrent(t *testing.T) {
	const n = 50
	var replies []chattest.Reply
	for i := range n {
		replies = append(replies, chattest.Text(fmt.Sprint(i)))
	}
	m := chattest.New(replies...)
	var wg sync.WaitGroup
	seen := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				r, err := m.Call(context.Background(), prompt("q"))
				if err != nil {
					t.Error(err)
					return
				}
				seen <- r.Text()
				return
			}
			r, err := chat.Aggregate(m.Stream(context.Background(), prompt("q")))
			if err != nil {
				t.Error(err)
				return
			}
			seen <- r.Text()
		}()
	}
	wg.Wait()
	close(seen)
	got := map[string]bool{}
	for s := range seen {
		got[s] = true
	}
	if len(got) != n || m.Requests() != n {
		t.Fatalf("%d distinct replies, %d requests", len(got), m.Requests())
	}
}

func Example() {
	m := chattest.New(
		chattest.Calls(chattest.Call("currentWeather", `{"location":"Paris"}`)),
		chattest.Text("It is sunny in Paris."),
	)
	ctx := context.Background()
	r, _ := m.Call(ctx, &chat.Prompt{Messages: []chat.Message{chat.User("Weather in Paris?")}})
	fmt.Println(r.ToolCalls()[0].Name, r.ToolCalls()[0].ID)
	r, _ = m.Call(ctx, &chat.Prompt{Messages: []chat.Message{chat.User("Weather in Paris?")}})
	fmt.Println(r.Text())
	fmt.Println(len(m.Prompts()), "prompts recorded")
	// Output:
	// currentWeather call_1
	// It is sunny in Paris.
	// 2 prompts recorded
}

func TestRepeatAndDiscard(t *testing.T) {
	m := chattest.New(chattest.Calls(chattest.Call("t", `{}`)), chattest.Text("b")).Repeat().DiscardPrompts()
	var got []string
	for range 5 {
		r, err := m.Call(context.Background(), prompt("q"))
		if err != nil {
			t.Fatal(err)
		}
		if r.HasToolCalls() {
			got = append(got, r.ToolCalls()[0].ID)
		} else {
			got = append(got, r.Text())
		}
	}
	if strings.Join(got, " ") != "call_1 b call_2 b call_3" || m.Requests() != 5 || len(m.Prompts()) != 0 {
		t.Fatalf("replies %v, requests %d, prompts %d", got, m.Requests(), len(m.Prompts()))
	}
}

// A reply's server tools reach a stream's consumer, so a tool loop that streams keeps them.
func TestStreamServerTools(t *testing.T) {
	steps := []chat.ServerTool{
		{Provider: "anthropic", ID: "srvtoolu_1", Name: "tool_search_tool_bm25", Arguments: `{"query":"weather"}`},
		{Provider: "anthropic", ID: "srvtoolu_1", Result: true, Tools: []string{"weather"}},
	}
	reply := chattest.Respond(func(context.Context, *chat.Prompt) (*chat.Response, error) {
		return &chat.Response{Generations: []chat.Generation{{Message: chat.Message{Role: chat.RoleAssistant,
			Content: "Found it.", ServerTools: steps}, FinishReason: chat.FinishStop}}}, nil
	})
	got, err := chat.Aggregate(chattest.New(reply).Stream(context.Background(), prompt("q")))
	if err != nil {
		t.Fatal(err)
	}
	if msg := got.Message(); msg.Content != "Found it." || !reflect.DeepEqual(msg.ServerTools, steps) {
		t.Fatalf("streamed message = %+v", msg)
	}
}
