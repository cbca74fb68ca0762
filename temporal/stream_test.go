package temporal_test

import (
	"context"
	"crypto/rand"
	"iter"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/tool"
)

// gatedModel streams the first part of its answer, then waits until the test has seen it (or
// half a minute), then streams the rest: a reader of the turn's events can only see the first
// part before the rest if the text streams while the call runs.
type gatedModel struct {
	first, rest string
	seen        chan struct{}
	released    atomic.Bool
}

func (m *gatedModel) Call(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
	return chat.Aggregate(m.Stream(ctx, p))
}

func (m *gatedModel) Stream(ctx context.Context, _ *chat.Prompt) iter.Seq2[*chat.Response, error] {
	piece := func(s string, finish chat.FinishReason) *chat.Response {
		return &chat.Response{Generations: []chat.Generation{{Message: chat.Message{Role: chat.RoleAssistant, Content: s}, FinishReason: finish}}}
	}
	return func(yield func(*chat.Response, error) bool) {
		for _, w := range strings.SplitAfter(m.first, " ") {
			if !yield(piece(w, ""), nil) {
				return
			}
		}
		select {
		case <-m.seen:
		case <-time.After(30 * time.Second):
		case <-ctx.Done():
			yield(nil, ctx.Err())
			return
		}
		m.released.Store(true)
		yield(piece(m.rest, chat.FinishStop), nil)
	}
}

// streamConfig is the config of a streaming test's agent on a queue named after name, its
// streaming on or off.
func streamConfig(name string, streaming bool) temporal.Config {
	cfg := temporal.Config{TaskQueue: name + "-" + rand.Text()[:8], EventPoll: 20 * time.Millisecond, StreamInterval: 50 * time.Millisecond}
	if !streaming {
		cfg.StreamInterval = -1
	}
	return cfg
}

// TestModelTextStreams: a durable turn's model text reaches Turn.Events while the model call
// runs, in order and once: the pieces join to the answer. With streaming off, the answer comes
// whole.
func TestModelTextStreams(t *testing.T) {
	tc := dial(t)
	for _, streaming := range []bool{true, false} {
		cfg := streamConfig("stream", streaming)
		m := &gatedModel{first: "The first half of the answer, ", rest: "and the rest of it.", seen: make(chan struct{})}
		if !streaming {
			close(m.seen)
		}
		startWorker(t, tc, newClient(m), cfg)
		ctx, turn := startTurn(t, tc, cfg, 2*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("answer")}})
		var pieces []string
		var early bool // a piece came while the model waited
		done := readEvents(t, ctx, turn, func(ev *client.Event) {
			if text := ev.Text(); text != "" {
				pieces = append(pieces, text)
				if !m.released.Load() && streaming {
					early = true
					if strings.Contains(strings.Join(pieces, ""), m.first) {
						select {
						case <-m.seen:
						default:
							close(m.seen)
						}
					}
				}
			}
		})
		want := m.first + m.rest
		if answer := done.Text(); answer != want || strings.Join(pieces, "") != want {
			t.Fatalf("streaming %v: answer %q, pieces %q", streaming, answer, pieces)
		}
		if streaming && (!early || len(pieces) < 2) {
			t.Fatalf("the text did not stream while the model ran: pieces %q", pieces)
		}
		if !streaming && len(pieces) != 1 {
			t.Fatalf("without streaming: pieces %q", pieces)
		}
	}
}

// TestAgentEventsStream: the events of an agent a durable turn's tool call runs itself (a
// remote agent, through client.AgentEvents) reach Turn.Events while the call runs, attributed to
// the agent: its text joins to its answer, and the first half shows before the agent goes on.
// With streaming off, the call's result alone says what the agent answered.
func TestAgentEventsStream(t *testing.T) {
	tc := dial(t)
	for _, streaming := range []bool{true, false} {
		cfg := streamConfig("agents", streaming)
		first, rest := "The researcher's first half, ", "and its second."
		seen := make(chan struct{})
		var released atomic.Bool
		if !streaming {
			close(seen)
		}
		researcher := tool.Must(tool.Func("researcher", "A remote agent", func(ctx context.Context, _ struct{}) (string, error) {
			send, ok := client.AgentEvents(ctx, "researcher")
			text := func(s string) *client.Event {
				return &client.Event{Chunk: &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant(s)}}}}
			}
			for _, w := range strings.SplitAfter(first, " ") {
				if ok {
					send(text(w), "")
				}
			}
			select {
			case <-seen:
			case <-time.After(30 * time.Second):
			case <-ctx.Done():
				return "", ctx.Err()
			}
			released.Store(true)
			if ok {
				send(text(rest), "")
			}
			return first + rest, nil
		}))
		parent := newClient(script(chat.ToolCall{ID: "c1", Name: "researcher", Arguments: `{}`}), client.WithTools(researcher))
		startWorker(t, tc, parent, cfg)
		ctx, turn := startTurn(t, tc, cfg, 2*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("go")}})
		var agentText strings.Builder
		var early bool // the agent's text came while it waited
		done := readEvents(t, ctx, turn, func(ev *client.Event) {
			if ev.Agent() == "" {
				return
			}
			if ev.Agent() != "researcher" {
				t.Fatalf("an event of agent %q", ev.Agent())
			}
			agentText.WriteString(ev.Text())
			if !released.Load() && strings.Contains(agentText.String(), first) {
				early = true
				select {
				case <-seen:
				default:
					close(seen)
				}
			}
		})
		want := first + rest
		if answer := done.Text(); answer != "Done: "+want {
			t.Fatalf("streaming %v: answer %q", streaming, answer)
		}
		if streaming && (!early || !strings.HasPrefix(want, agentText.String())) {
			t.Fatalf("the agent's events did not stream while its call ran: early %v, text %q", early, agentText.String())
		}
		if !streaming && agentText.Len() != 0 {
			t.Fatalf("without streaming, the agent's text came: %q", agentText.String())
		}
	}
}
