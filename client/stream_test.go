package client_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
)

func TestStreamLoop(t *testing.T) {
	weather := constTool("weather", "sunny")
	m := chattest.New(
		chattest.Calls(chattest.Call("weather", `{"city":"Paris"}`), chattest.Call("missing", `{"x":1}`)).
			WithText("Let me check. ").WithUsage(5, 2),
		chattest.Text("It is sunny in Paris.").WithUsage(9, 4),
	).WithChunkSize(3)
	s := clienttest.New(t, m).Prompt("weather?").Tools(weather).Stream(context.Background())
	var text strings.Builder
	var kinds []string
	var finished []*client.ToolEvent
	for ev, err := range s.Events() {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.Chunk != nil:
			for _, g := range ev.Chunk.Generations {
				if len(g.Message.ToolCalls) > 0 {
					t.Fatalf("a tool-call fragment reached the caller: %+v", g.Message.ToolCalls)
				}
			}
			text.WriteString(ev.Text())
			if len(kinds) == 0 || kinds[len(kinds)-1] != "text" {
				kinds = append(kinds, "text")
			}
		case ev.Tool != nil && ev.Tool.Kind == client.ToolStarted:
			kinds = append(kinds, "start:"+ev.Tool.Call.Name)
		case ev.Tool != nil && ev.Tool.Kind == client.ToolFinished:
			kinds = append(kinds, "finish:"+ev.Tool.Call.Name)
			finished = append(finished, ev.Tool)
		case ev.Done != nil:
			kinds = append(kinds, "done")
		}
	}
	if got := text.String(); got != "Let me check. It is sunny in Paris." {
		t.Fatalf("text = %q", got)
	}
	// Text of round one, both tools (in either order) between the rounds, text of round two, done.
	got := strings.Join(kinds, " ")
	if !strings.HasPrefix(got, "text start:") || !strings.HasSuffix(got, "finish:missing text done") && !strings.HasSuffix(got, "finish:weather text done") || len(kinds) != 7 {
		t.Fatalf("events = %s", got)
	}
	var okEv, badEv *client.ToolEvent
	for _, ev := range finished {
		if ev.Call.Name == "weather" {
			okEv = ev
		} else {
			badEv = ev
		}
	}
	if okEv.Call.ID != "call_1" || okEv.Call.Arguments != `{"city":"Paris"}` || okEv.Result.Content != "sunny" || okEv.Err() != nil || okEv.Elapsed < 0 {
		t.Fatalf("weather event = %+v", okEv)
	}
	if badEv.Err() == nil || !strings.Contains(badEv.Err().Error(), "missing") {
		t.Fatalf("unknown tool event = %+v", badEv)
	}
	resp := s.Response()
	if resp.Outcome != client.OutcomeAnswer || resp.ModelCalls != 2 || resp.Usage.InputTokens != 14 || resp.Usage.OutputTokens != 6 {
		t.Fatalf("response = %+v", resp)
	}
	// The tool call was aggregated from fragments before running.
	if p := m.Prompt(1); p.Messages[1].ToolCalls[0].Arguments != `{"city":"Paris"}` {
		t.Fatalf("history = %v", p.Messages)
	}
}

func TestStreamTextOnly(t *testing.T) {
	m := chattest.New(
		chattest.Calls(chattest.Call("a", `{}`)).WithText("one "),
		chattest.Calls(chattest.Call("a", `{}`)),
		chattest.Text("two"),
	).WithChunkSize(2)
	var chunks []string
	for chunk, err := range clienttest.New(t, m).Prompt("q").Tools(constTool("a", "A")).Stream(context.Background()).Text() {
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, chunk)
	}
	if got := strings.Join(chunks, "|"); got != "on|e |tw|o" {
		t.Fatalf("chunks = %q", chunks)
	}
}

func TestStreamConsumerStopsDuringTools(t *testing.T) {
	cancelled := make(chan struct{})
	started := make(chan struct{})
	slow := newTool("slow", func(ctx context.Context, _ string) (string, error) {
		close(started)
		select {
		case <-ctx.Done():
			close(cancelled)
			return "", ctx.Err()
		case <-time.After(10 * time.Second):
			return "late", nil
		}
	})
	m := chattest.New(chattest.Calls(chattest.Call("slow", `{}`)), chattest.Text("never"))
	for ev, err := range clienttest.New(t, m).Prompt("q").Tools(slow).Stream(context.Background()).Events() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Tool != nil && ev.Tool.Kind == client.ToolStarted {
			<-started
			break
		}
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the running tool was not cancelled when the consumer stopped")
	}
	if m.Requests() != 1 {
		t.Fatalf("%d model calls", m.Requests())
	}
}

func TestStreamErrorInSecondRound(t *testing.T) {
	cut := errors.New("connection reset")
	m := chattest.New(
		chattest.Calls(chattest.Call("a", `{}`)).WithText("first "),
		chattest.Reply{Text: "partial", Err: cut},
	)
	var text string
	var last error
	for chunk, err := range clienttest.New(t, m).Prompt("q").Tools(constTool("a", "A")).Stream(context.Background()).Text() {
		if err != nil {
			last = err
			break
		}
		text += chunk
	}
	if !errors.Is(last, cut) || text != "first partial" {
		t.Fatalf("text %q, err %v", text, last)
	}
}

// TestStreamModelCallsKeepTheirResponses checks that the model streams of one turn, read with
// the same state, give responses that share nothing: an advisor inside the loop that streams
// twice for one iteration keeps the first response whole.
func TestStreamModelCallsKeepTheirResponses(t *testing.T) {
	m := chattest.New(
		chattest.Calls(chattest.Call("weather", `{"city":"Paris"}`)).WithText("Checking. "),
		chattest.Text("A second opinion."),
		chattest.Text("It is sunny in Paris."),
	).WithChunkSize(2)
	var first *client.Response
	twice := client.NewAdvisor(client.OrderToolCalling+1, func(ctx context.Context, req *client.Request, next client.Next) (*client.Response, error) {
		if first != nil {
			return next(ctx, req)
		}
		resp, err := next(ctx, req)
		if err != nil {
			return nil, err
		}
		first = resp
		if _, err := next(ctx, req); err != nil {
			return nil, err
		}
		return resp, nil
	})
	c := clienttest.New(t, m, client.WithAdvisors(twice))
	var text strings.Builder
	s := c.Prompt("weather?").Tools(constTool("weather", "sunny")).Stream(context.Background())
	for chunk, err := range s.Text() {
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(chunk)
	}
	if got := text.String(); got != "Checking. A second opinion.It is sunny in Paris." {
		t.Fatalf("text = %q", got)
	}
	if got := s.Response().Text(); got != "It is sunny in Paris." {
		t.Fatalf("answer = %q", got)
	}
	msg := first.Chat.Message()
	if msg.Content != "Checking. " || len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Arguments != `{"city":"Paris"}` {
		t.Fatalf("first response after the second stream = %+v", msg)
	}
}

// TestStreamTextEventsReachAdvisors checks that a Text stream, whose consumer sees no tool
// events, still gives them to an advisor that reads the stream's events.
func TestStreamTextEventsReachAdvisors(t *testing.T) {
	m := chattest.New(
		chattest.Calls(chattest.Call("weather", `{"city":"Paris"}`)),
		chattest.Text("It is sunny in Paris."),
	)
	var kinds []string
	watch := client.NewAdvisor(client.OrderToolCalling-1, func(ctx context.Context, req *client.Request, next client.Next) (*client.Response, error) {
		return next(ctx, req.WithEvents(func(ev *client.Event, send func(*client.Event) bool) bool {
			if ev.Tool != nil {
				kinds = append(kinds, fmt.Sprint(ev.Tool.Kind))
			}
			return send(ev)
		}))
	})
	c := clienttest.New(t, m, client.WithAdvisors(watch))
	var text strings.Builder
	for chunk, err := range c.Prompt("weather?").Tools(constTool("weather", "sunny")).Stream(context.Background()).Text() {
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(chunk)
	}
	if text.String() != "It is sunny in Paris." || len(kinds) != 2 {
		t.Fatalf("text %q, tool events seen by the advisor %v", text.String(), kinds)
	}
}

// TestStreamTextConsumerStops checks that a text consumer that stops at its first chunk ends
// the turn there: the model's stream is left, no tool runs and no model is asked again.
func TestStreamTextConsumerStops(t *testing.T) {
	m := chattest.New(
		chattest.Calls(chattest.Call("a", `{}`)).WithText("Looking it up."),
		chattest.Text("never"),
	).WithChunkSize(3)
	a := constTool("a", "A")
	s := clienttest.New(t, m).Prompt("q").Tools(a).Stream(context.Background())
	var got []string
	for chunk, err := range s.Text() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, chunk)
		break
	}
	if len(got) != 1 || got[0] != "Loo" || m.Requests() != 1 || len(a.Args()) != 0 || s.Response() != nil {
		t.Fatalf("chunks %q, %d model requests, tool calls %v, response %v", got, m.Requests(), a.Args(), s.Response())
	}
}

// lateYield keeps the yield of its first stream and calls it again during its second, as a
// model that breaks the iterator contract might.
type lateYield struct {
	kept   func(*chat.Response, error) bool
	lateOK bool
}

func (m *lateYield) Call(context.Context, *chat.Prompt) (*chat.Response, error) {
	return nil, errors.New("streams only")
}

func (m *lateYield) Stream(context.Context, *chat.Prompt) iter.Seq2[*chat.Response, error] {
	return func(yield func(*chat.Response, error) bool) {
		if m.kept == nil {
			m.kept = yield
		} else {
			m.lateOK = m.kept(chat.Delta(0, chat.Assistant("LEAK"), ""), nil)
		}
		yield(chat.Delta(0, chat.Assistant("answer"), chat.FinishStop), nil)
	}
}

// TestStreamLateYieldRefused checks that a model yielding to a stream that has ended is refused
// and cannot reach the stream of a later turn, which may reuse what read the first.
func TestStreamLateYieldRefused(t *testing.T) {
	m := &lateYield{}
	c := clienttest.New(t, m)
	for turn := range 2 {
		var text strings.Builder
		for chunk, err := range c.Prompt("q").Stream(context.Background()).Text() {
			if err != nil {
				t.Fatal(err)
			}
			text.WriteString(chunk)
		}
		if text.String() != "answer" {
			t.Fatalf("turn %d: text %q", turn, text.String())
		}
	}
	if m.lateOK {
		t.Fatal("a late yield was accepted")
	}
}

// TestStreamIteratedAgainAfterStop checks that a stream whose consumer stopped early runs its
// turn afresh when iterated again, as a new iteration of an iterator does.
func TestStreamIteratedAgainAfterStop(t *testing.T) {
	m := chattest.New(chattest.Text("first answer"), chattest.Text("second answer")).WithChunkSize(3)
	s := clienttest.New(t, m).Prompt("q").Stream(context.Background())
	for _, err := range s.Text() {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	var text strings.Builder
	for chunk, err := range s.Text() {
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(chunk)
	}
	if text.String() != "second answer" || s.Response().Text() != "second answer" {
		t.Fatalf("second iteration: %q, response %v", text.String(), s.Response())
	}
}
