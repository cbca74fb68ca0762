package temporal_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/temporal/internal/servertest"
	"github.com/wield-ai/wield/tool"
)

// benchClient is an agent whose model asks for rounds tool rounds of one instant call, then
// answers.
func benchClient(rounds int) *client.Client {
	echo := tool.Must(tool.Func("echo", "Echoes", func(_ context.Context, in pathIn) (string, error) { return in.Path, nil }, tool.ReadOnly()))
	return newClient(roundsScript(rounds), client.WithTools(echo))
}

// roundsScript asks for one call per round until the conversation holds rounds results.
func roundsScript(rounds int) chat.Model {
	return roundsModel(rounds, "done", func(int) chat.ToolCall { return chat.ToolCall{Name: "echo", Arguments: `{"path":"x"}`} })
}

// roundsModel asks for call(i) in round i (its id is "c" and i) until the conversation holds
// rounds results, then answers answer; its answers depend on the conversation only.
func roundsModel(rounds int, answer string, call func(i int) chat.ToolCall) chat.Model {
	return chattest.New(chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		done := 0
		for _, m := range p.Messages {
			if m.Role == chat.RoleTool {
				done++
			}
		}
		msg := chat.Message{Role: chat.RoleAssistant}
		finish := chat.FinishStop
		if done < rounds {
			c := call(done)
			c.ID = fmt.Sprintf("c%d", done)
			msg.ToolCalls, finish = []chat.ToolCall{c}, chat.FinishToolCalls
		} else {
			msg.Content = answer
		}
		return &chat.Response{Model: "rounds", Generations: []chat.Generation{{Message: msg, FinishReason: finish}}}, nil
	})).Repeat().DiscardPrompts()
}

// BenchmarkDurableTurn measures a turn with one and with two tool rounds (one instant call
// each): in a process, and on the dev server with the workflow's own loop and with the
// client's loop. The difference between the rounds is the cost of an extra round; the ratio
// to the process is the cost of durability.
func BenchmarkDurableTurn(b *testing.B) {
	for _, rounds := range []int{1, 2} {
		b.Run(fmt.Sprintf("process/rounds=%d", rounds), func(b *testing.B) {
			c := benchClient(rounds)
			for b.Loop() {
				if err := c.Prompt("go").Call(context.Background()).Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, clientLoop := range []bool{false, true} {
			b.Run(fmt.Sprintf("temporal/clientLoop=%v/rounds=%d", clientLoop, rounds), func(b *testing.B) {
				tc := servertest.Dial(b)
				cfg := temporal.Config{TaskQueue: "bench-" + rand.Text()[:8], WorkflowLoop: !clientLoop, EventPoll: 5 * time.Millisecond,
					Worker: worker.Options{MaxConcurrentWorkflowTaskPollers: 4, MaxConcurrentActivityTaskPollers: 4}}
				startWorker(b, tc, benchClient(rounds), cfg)
				tcl := turnClient(b, tc, cfg)
				ctx := context.Background()
				for b.Loop() {
					turn, err := tcl.Start(ctx, temporal.Request{Messages: []chat.Message{chat.User("go")}})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := turn.Result(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDurableTurnsConcurrent measures the turns per second one worker sustains with 50
// turns (one tool round each) running at once, on the workflow's own loop and on the client's.
// The two take batches in turn, each batch's order swapped, because one server serves the test
// binary and later batches find it fuller: sub-benchmarks run one after the other read about 7 %
// lower for whichever runs second. The ratio (client/own) is the figure to quote.
func BenchmarkDurableTurnsConcurrent(b *testing.B) {
	const concurrent = 50
	tc := servertest.Dial(b)
	type variant struct {
		tcl   *temporal.Client
		spent time.Duration
	}
	var vs [2]*variant // own loop, client loop
	for i := range vs {
		cfg := temporal.Config{TaskQueue: "bench-" + rand.Text()[:8], WorkflowLoop: i == 0, EventPoll: 5 * time.Millisecond}
		startWorker(b, tc, benchClient(1), cfg)
		tcl := turnClient(b, tc, cfg)
		vs[i] = &variant{tcl: tcl}
	}
	ctx := context.Background()
	batch := func(v *variant) {
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, concurrent)
		for range concurrent {
			wg.Go(func() {
				turn, err := v.tcl.Start(ctx, temporal.Request{Messages: []chat.Message{chat.User("go")}})
				if err == nil {
					_, err = turn.Result(ctx)
				}
				if err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		v.spent += time.Since(start)
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
	}
	n := 0
	for b.Loop() {
		first := n % 2
		batch(vs[first])
		batch(vs[1-first])
		n++
	}
	own := float64(n*concurrent) / vs[0].spent.Seconds()
	cl := float64(n*concurrent) / vs[1].spent.Seconds()
	b.ReportMetric(own, "own-turns/s")
	b.ReportMetric(cl, "client-turns/s")
	b.ReportMetric(cl/own, "client/own")
}
