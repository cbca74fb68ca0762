package temporal_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/tool"
)

// The tests of this file give a turn payloads whose sum, not any one of them, is over
// Temporal's payload limit (2 MB by default). Each used to leave the turn stuck: its workflow
// task failed on every attempt, and the turn neither ended nor went on.

// Five parallel calls whose results are each under the result cap but together over the
// payload limit: the largest are replaced by error results, as few as bring the next model
// input under the bound, and the turn goes on; its events are read whole, page by page.
func TestRoundOverThePayloadLimitGoesOn(t *testing.T) {
	tc := dial(t)
	queue := "big-round-" + rand.Text()[:8]
	cfg := temporal.Config{TaskQueue: queue, EventPoll: 20 * time.Millisecond}
	var runs atomic.Int32
	read := tool.Must(tool.Func("read", "Reads a file", func(ctx context.Context, in pathIn) (string, error) {
		runs.Add(1)
		return in.Path + ":" + strings.Repeat("x", 450<<10), nil
	}, tool.ReadOnly()))
	var calls []chat.ToolCall
	for i := range 5 {
		calls = append(calls, chat.ToolCall{ID: fmt.Sprint("c", i), Name: "read", Arguments: fmt.Sprintf(`{"path":"f%d"}`, i)})
	}
	m := callsThenCount(calls)
	agent := newClient(m, client.WithTools(read))
	startWorker(t, tc, agent, cfg)
	ctx, turn := startTurn(t, tc, cfg, 2*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("read five files")}})
	finished := 0
	done := readEvents(t, ctx, turn, func(ev *client.Event) {
		if ev.Tool != nil && ev.Tool.Kind == client.ToolFinished {
			finished++
		}
	})
	if done == nil || done.Outcome != client.OutcomeAnswer || done.Text() != "read 5 results" || runs.Load() != 5 || finished != 5 {
		t.Fatalf("runs %d, finished events %d, response %+v", runs.Load(), finished, done)
	}
	kept, dropped := 0, 0
	for i, r := range done.Messages[1].ToolResults {
		switch {
		case !r.IsError && strings.HasPrefix(r.Content, fmt.Sprintf("f%d:xxx", i)):
			kept++
		case r.IsError && strings.Contains(r.Content, "too large for the turn"):
			dropped++
		default:
			t.Fatalf("result %d = %.200q", i, r.Content)
		}
	}
	if kept != 4 || dropped != 1 {
		t.Fatalf("kept %d, dropped %d", kept, dropped)
	}
	checkReplay(t, tc, agent, cfg, turn.ID(), "big-round")
}

// A conversation over the bound, which dropping results cannot help, fails the turn at once
// with an error saying so; a model answer over the bound fails the turn after one call: another
// attempt would cost as much and most likely answer alike.
func TestModelPayloadOverTheLimitFails(t *testing.T) {
	tc := dial(t)
	for _, c := range []struct {
		name, ask, answer string
		want              string // in the error
		calls             int32  // of the model
	}{
		{name: "big-input", ask: strings.Repeat("y", 1950<<10), answer: "hi", want: "the model's input", calls: 0},
		{name: "big-answer", ask: "talk", answer: strings.Repeat("z", 2100<<10), want: "the model's response", calls: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := temporal.Config{TaskQueue: c.name + "-" + rand.Text()[:8]}
			var modelCalls atomic.Int32
			m := chattest.New(chattest.Respond(func(context.Context, *chat.Prompt) (*chat.Response, error) {
				modelCalls.Add(1)
				return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant(c.answer), FinishReason: chat.FinishStop}}}, nil
			})).Repeat().DiscardPrompts()
			startWorker(t, tc, newClient(m), cfg)
			ctx, turn := startTurn(t, tc, cfg, time.Minute, temporal.Request{Messages: []chat.Message{chat.User(c.ask)}})
			_, err := turn.Result(ctx)
			if !errors.Is(err, temporal.ErrPayloadTooLarge) || !strings.Contains(err.Error(), c.want) || modelCalls.Load() != c.calls {
				t.Fatalf("model calls %d, err = %v", modelCalls.Load(), err)
			}
		})
	}
}

// A decision whose given result is over the result cap is refused, and the turn keeps waiting
// for one that fits.
func TestDecisionOverTheResultCapIsRefused(t *testing.T) {
	huge := strings.Repeat("n", 1900<<10)
	text, runs := decideAfterRefusals(t, "big-decision", []refusal{
		{"a huge answer", client.Answer("d1", huge), "over the 524288 bytes"},
		{"a large rejection", client.Reject("d1", huge[:600<<10]), ""},
	}, client.Reject("d1", "not now"))
	if text != "Done: not now" || len(runs) != 0 {
		t.Fatalf("response %q, runs %v", text, runs)
	}
}

// A return-direct round's results are the turn's response three times over (the answer, the
// messages the turn added, the results); a response over the bound ends the turn with an error
// saying so.
func TestReturnDirectResponseOverThePayloadLimitFails(t *testing.T) {
	tc := dial(t)
	queue := "big-direct-" + rand.Text()[:8]
	cfg := temporal.Config{TaskQueue: queue}
	dump := tool.Must(tool.Func("dump", "Dumps a file", func(ctx context.Context, in pathIn) (string, error) {
		return strings.Repeat("d", 400<<10), nil
	}, tool.ReturnDirect()))
	m := script(chat.ToolCall{ID: "c1", Name: "dump", Arguments: `{"path":"a"}`}, chat.ToolCall{ID: "c2", Name: "dump", Arguments: `{"path":"b"}`})
	startWorker(t, tc, newClient(m, client.WithTools(dump)), cfg)
	ctx, turn := startTurn(t, tc, cfg, time.Minute, temporal.Request{Messages: []chat.Message{chat.User("dump two files")}})
	_, err := turn.Result(ctx)
	if !errors.Is(err, temporal.ErrPayloadTooLarge) || !strings.Contains(err.Error(), "the turn's response") {
		t.Fatalf("err = %v", err)
	}
}

// callsThenCount asks for calls on the user's message, then answers how many results it read:
// a short answer, as a model's is (the script's would repeat the results).
func callsThenCount(calls []chat.ToolCall) chat.Model {
	return chattest.New(chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		msg, finish := chat.Message{Role: chat.RoleAssistant, ToolCalls: calls}, chat.FinishToolCalls
		if last := p.Messages[len(p.Messages)-1]; last.Role == chat.RoleTool {
			msg, finish = chat.Assistant(fmt.Sprintf("read %d results", len(last.ToolResults))), chat.FinishStop
		}
		return &chat.Response{Generations: []chat.Generation{{Message: msg, FinishReason: finish}}}, nil
	})).Repeat().DiscardPrompts()
}
