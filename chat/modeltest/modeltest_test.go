package modeltest

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/content"
)

// reply is the scripted answer of a well-behaved model for each case.
func reply(c Case) chattest.Reply {
	switch c {
	case ToolCall:
		return chattest.Calls(chattest.Call("weather", `{"city":"Paris"}`)).WithUsage(12, 5)
	case ParallelCalls:
		return chattest.Calls(chattest.Call("weather", `{"city":"Paris"}`), chattest.Call("weather", `{"city":"Rome"}`)).WithUsage(14, 9)
	case Failure:
		return chattest.Fail(&chat.ProviderError{Provider: "test", StatusCode: 400, Message: "bad request"})
	}
	return chattest.Text("Hello.").WithUsage(5, 2)
}

// refusing is chattest's model refusing audio parts, as a provider without audio does.
type refusing struct{ *chattest.Model }

func (m refusing) refuse(p *chat.Prompt) error {
	for _, msg := range p.Messages {
		for part := range msg.AllParts() {
			if part.Kind == content.KindAudio {
				return &content.Unsupported{Provider: "test", Part: part, Reason: "no audio"}
			}
		}
	}
	return nil
}

func (m refusing) Call(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
	if err := m.refuse(p); err != nil {
		return nil, err
	}
	return m.Model.Call(ctx, p)
}

func (m refusing) Stream(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error] {
	if err := m.refuse(p); err != nil {
		return func(yield func(*chat.Response, error) bool) { yield(nil, err) }
	}
	return m.Model.Stream(ctx, p)
}

var audio = content.Audio([]byte("RIFF\x24\x00\x00\x00WAVEfmt "), "audio/wav")

// TestRunPassesAWellBehavedModel: chattest's scripted model keeps the contract, so every
// check of Run passes; the kit does not fail a model for what the contract allows.
func TestRunPassesAWellBehavedModel(t *testing.T) {
	Run(t, Config{
		New: func(t *testing.T, c Case, stream bool) chat.Model {
			return refusing{chattest.New(reply(c)).Repeat().WithChunkSize(3)}
		},
		Refused: []content.Part{audio},
	})
}

// model is a chat.Model made of two functions, for the broken models below.
type model struct {
	call   func(ctx context.Context, p *chat.Prompt) (*chat.Response, error)
	stream func(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error]
}

func (m model) Call(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
	return m.call(ctx, p)
}

func (m model) Stream(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error] {
	return m.stream(ctx, p)
}

// answering is a model whose Call returns resp and whose Stream yields chunks, neither looking
// at its context or prompt.
func answering(resp *chat.Response, chunks ...*chat.Response) model {
	return model{
		call: func(context.Context, *chat.Prompt) (*chat.Response, error) { return resp, nil },
		stream: func(context.Context, *chat.Prompt) iter.Seq2[*chat.Response, error] {
			return func(yield func(*chat.Response, error) bool) {
				for _, c := range chunks {
					if !yield(c, nil) {
						return
					}
				}
			}
		},
	}
}

func gen(m chat.Message, finish chat.FinishReason) *chat.Response {
	return &chat.Response{Generations: []chat.Generation{{Message: m, FinishReason: finish}}, Usage: chat.Usage{InputTokens: 3, OutputTokens: 2}}
}

func call(id, name, args string, index int) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Arguments: args, Index: index}
}

// TestChecksCatchBrokenModels: each deliberately broken model fails the check of the rule it
// breaks, with an error that says what is wrong.
func TestChecksCatchBrokenModels(t *testing.T) {
	defer func(p time.Duration) { patience = p }(patience)
	patience = 2 * time.Second
	hello := chat.Assistant("Hello.")
	for _, tc := range []struct {
		name  string
		check func() error
		want  string
	}{
		{"no finish reason", func() error {
			return Check(context.Background(), answering(gen(hello, "")), DefaultPrompt(Text), Text, false, true)
		}, "finished with"},
		{"no usage", func() error {
			r := gen(hello, chat.FinishStop)
			r.Usage = chat.Usage{}
			return Check(context.Background(), answering(r), DefaultPrompt(Text), Text, false, true)
		}, "usage"},
		{"empty text", func() error {
			return Check(context.Background(), answering(gen(chat.Assistant(""), chat.FinishStop)), DefaultPrompt(Text), Text, false, true)
		}, "without text"},
		{"call without id", func() error {
			r := gen(chat.Assistant("", call("", "weather", `{"city":"Paris"}`, 0)), chat.FinishToolCalls)
			return Check(context.Background(), answering(r), DefaultPrompt(ToolCall), ToolCall, false, true)
		}, "has no id"},
		{"call of a tool not offered", func() error {
			r := gen(chat.Assistant("", call("c1", "wether", `{"city":"Paris"}`, 0)), chat.FinishToolCalls)
			return Check(context.Background(), answering(r), DefaultPrompt(ToolCall), ToolCall, false, true)
		}, "did not offer"},
		{"arguments not an object", func() error {
			r := gen(chat.Assistant("", call("c1", "weather", `"Paris"`, 0)), chat.FinishToolCalls)
			return Check(context.Background(), answering(r), DefaultPrompt(ToolCall), ToolCall, false, true)
		}, "not a JSON object"},
		{"parallel calls sharing an id", func() error {
			r := gen(chat.Assistant("", call("c1", "weather", `{}`, 0), call("c1", "weather", `{}`, 1)), chat.FinishToolCalls)
			return Check(context.Background(), answering(r), DefaultPrompt(ParallelCalls), ParallelCalls, false, true)
		}, "of an earlier call"},
		{"one call where two were asked", func() error {
			r := gen(chat.Assistant("", call("c1", "weather", `{}`, 0)), chat.FinishToolCalls)
			return Check(context.Background(), answering(r), DefaultPrompt(ParallelCalls), ParallelCalls, false, true)
		}, "want two or more"},
		{"streamed call without its name first", func() error {
			m := answering(nil,
				chat.ToolCallDelta(0, chat.ToolCall{ID: "c1", Arguments: `{"city":`}),
				chat.ToolCallDelta(0, chat.ToolCall{Name: "weather", Arguments: `"Paris"}`}),
				gen(chat.Message{}, chat.FinishToolCalls))
			return Check(context.Background(), m, DefaultPrompt(ToolCall), ToolCall, true, false)
		}, "must name both"},
		{"stream that ends without anything", func() error {
			return Check(context.Background(), answering(nil), DefaultPrompt(Text), Text, true, false)
		}, "without a chunk"},
		{"a nil chunk", func() error {
			return Check(context.Background(), answering(nil, nil), DefaultPrompt(Text), Text, true, false)
		}, "nil chunk"},
		{"an error answer swallowed by the stream", func() error {
			// The stream ends silently where the API failed: a truncated answer taken for a whole one.
			return Check(context.Background(), answering(nil, gen(chat.Message{}, "")), DefaultPrompt(Failure), Failure, true, false)
		}, "as a success"},
		{"a chunk after the error", func() error {
			m := model{stream: func(context.Context, *chat.Prompt) iter.Seq2[*chat.Response, error] {
				return func(yield func(*chat.Response, error) bool) {
					if yield(nil, errors.New("HTTP 400")) {
						yield(gen(hello, chat.FinishStop), nil)
					}
				}
			}}
			return Check(context.Background(), m, DefaultPrompt(Failure), Failure, true, false)
		}, "must be the last"},
		{"a cancelled context ignored by Call", func() error {
			return CheckCancel(answering(gen(hello, chat.FinishStop)), DefaultPrompt(Text), false)
		}, "want an error wrapping context.Canceled"},
		{"a cancelled context ignored by Stream", func() error {
			return CheckCancel(answering(nil, gen(hello, chat.FinishStop)), DefaultPrompt(Text), true)
		}, "yielded an answer"},
		{"a stream that goes on after the caller left", func() error {
			m := model{stream: func(context.Context, *chat.Prompt) iter.Seq2[*chat.Response, error] {
				return func(yield func(*chat.Response, error) bool) {
					yield(gen(hello, ""), nil)
					yield(gen(hello, chat.FinishStop), nil) // the result of the first yield ignored
				}
			}}
			return CheckStopEarly(m, DefaultPrompt(Text))
		}, "went on after the caller left"},
		{"a stream deaf to cancellation", func() error {
			m := model{stream: func(ctx context.Context, _ *chat.Prompt) iter.Seq2[*chat.Response, error] {
				return func(yield func(*chat.Response, error) bool) {
					if yield(gen(hello, ""), nil) {
						time.Sleep(time.Hour) // a read that does not watch ctx
					}
				}
			}}
			return CheckCancelMidStream(m, DefaultPrompt(Text))
		}, "has not returned"},
		{"an audio part sent rather than refused", func() error {
			return CheckRefused(answering(gen(hello, chat.FinishStop)), DefaultPrompt(Text), audio, false)
		}, "want a *content.Unsupported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.check()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}
