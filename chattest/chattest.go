package chattest

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
)

// ErrScriptEnded is wrapped by the error a [Model] returns when it is called more often than it
// has replies.
var ErrScriptEnded = errors.New("chattest: script ended")

// Reply is one scripted answer. Build it with [Text], [Calls], [Fail] or [Respond], or fill the
// fields directly.
type Reply struct {
	// Text is the assistant's text.
	Text string
	// Parts follow Text in the assistant's message (images, documents, signed text).
	Parts []content.Part
	// ToolCalls are the calls the assistant asks for. A call without an ID gets "call_N", N
	// counting the calls the model has made up to then from 1; Index is set to the call's
	// position in the reply.
	ToolCalls []chat.ToolCall
	// Usage is reported with the reply; TotalTokens defaults to input plus output.
	Usage chat.Usage
	// FinishReason defaults to [chat.FinishToolCalls] when there are tool calls, else
	// [chat.FinishStop].
	FinishReason chat.FinishReason
	// Err makes Call fail with Err. Stream yields the reply's chunks first and then Err, like a
	// connection cut in the middle of an answer.
	Err error
	// Func, when set, computes the reply from the prompt instead; the other fields are ignored.
	// Stream splits the response it returns into chunks like any other.
	Func func(ctx context.Context, p *chat.Prompt) (*chat.Response, error)
}

// Text returns a reply with text only.
func Text(text string) Reply { return Reply{Text: text} }

// Calls returns a reply asking for the given tool calls.
func Calls(calls ...chat.ToolCall) Reply { return Reply{ToolCalls: calls} }

// Call returns a tool call of the named tool with JSON arguments, for [Calls].
func Call(name, args string) chat.ToolCall { return chat.ToolCall{Name: name, Arguments: args} }

// Fail returns a reply that fails with err.
func Fail(err error) Reply { return Reply{Err: err} }

// Respond returns a reply computed by fn from the prompt the model receives.
func Respond(fn func(ctx context.Context, p *chat.Prompt) (*chat.Response, error)) Reply {
	return Reply{Func: fn}
}

// WithUsage returns r reporting the given token counts.
func (r Reply) WithUsage(input, output int) Reply {
	r.Usage = chat.Usage{InputTokens: input, OutputTokens: output, TotalTokens: input + output}
	return r
}

// WithParts returns r with parts after its text.
func (r Reply) WithParts(parts ...content.Part) Reply {
	r.Parts = parts
	return r
}

// WithText returns r with text beside its tool calls.
func (r Reply) WithText(text string) Reply {
	r.Text = text
	return r
}

// Model is a scripted [chat.Model]. It is safe for concurrent use: concurrent calls take replies
// in the order they reach the model.
type Model struct {
	mu        sync.Mutex
	replies   []Reply
	next      int
	callCount int
	prompts   []*chat.Prompt
	info      chat.Info
	chunkSize int
	repeat    bool
	discard   bool
	requests  int
}

// DefaultChunkSize is how many characters of text or tool-call arguments a streamed chunk holds
// unless [Model.WithChunkSize] says otherwise.
const DefaultChunkSize = 4

// New returns a model that answers with replies, in order.
func New(replies ...Reply) *Model {
	return &Model{
		replies:   slices.Clone(replies),
		info:      chat.Info{Provider: "chattest", Model: "scripted"},
		chunkSize: DefaultChunkSize,
	}
}

// Script appends replies to the script.
func (m *Model) Script(replies ...Reply) *Model {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replies = append(m.replies, replies...)
	return m
}

// WithInfo sets the provider and model names the model reports through [chat.Describer] and in
// its responses.
func (m *Model) WithInfo(info chat.Info) *Model {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.info = info
	return m
}

// WithChunkSize sets how many characters each streamed chunk holds; n < 1 means 1.
func (m *Model) WithChunkSize(n int) *Model {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.chunkSize = max(n, 1)
	return m
}

// Repeat makes the script start over when it runs out instead of failing, for benchmarks and
// load tests. Call ids keep counting up.
func (m *Model) Repeat() *Model {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.repeat = true
	return m
}

// DiscardPrompts stops recording prompts, so a long benchmark does not grow without bound;
// [Model.Requests] still counts them.
func (m *Model) DiscardPrompts() *Model {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.discard = true
	return m
}

// Info implements [chat.Describer].
func (m *Model) Info() chat.Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.info
}

// Prompts returns a copy of every prompt received, in order.
func (m *Model) Prompts() []*chat.Prompt {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.prompts)
}

// Prompt returns the i-th prompt received (from 0), or nil if there is none.
func (m *Model) Prompt(i int) *chat.Prompt {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i < 0 || i >= len(m.prompts) {
		return nil
	}
	return m.prompts[i]
}

// Requests returns how many times the model was called or streamed.
func (m *Model) Requests() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests
}

// Remaining returns how many scripted replies have not been used.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.replies) - m.next
}

// take records p and returns the next reply with call ids assigned.
func (m *Model) take(p *chat.Prompt) (Reply, chat.Info, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests++
	if !m.discard {
		m.prompts = append(m.prompts, clonePrompt(p))
	}
	if m.repeat && m.next >= len(m.replies) {
		m.next = 0
	}
	if m.next >= len(m.replies) {
		return Reply{}, m.info, m.chunkSize, fmt.Errorf("%w: request %d, but %d replies were scripted (last message: %s)",
			ErrScriptEnded, m.requests, len(m.replies), lastMessage(p))
	}
	r := m.replies[m.next]
	m.next++
	if len(r.ToolCalls) > 0 {
		calls := make([]chat.ToolCall, len(r.ToolCalls))
		for i, c := range r.ToolCalls {
			m.callCount++
			if c.ID == "" {
				c.ID = "call_" + strconv.Itoa(m.callCount)
			}
			c.Index = i
			calls[i] = c
		}
		r.ToolCalls = calls
	}
	return r, m.info, m.chunkSize, nil
}

func lastMessage(p *chat.Prompt) string {
	if p == nil || len(p.Messages) == 0 {
		return "none"
	}
	s := p.Messages[len(p.Messages)-1].String()
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return strconv.Quote(s)
}

func (r Reply) response(ctx context.Context, p *chat.Prompt, info chat.Info) (*chat.Response, error) {
	if r.Func != nil {
		return r.Func(ctx, p)
	}
	fr := r.FinishReason
	if fr == "" {
		fr = chat.FinishStop
		if len(r.ToolCalls) > 0 {
			fr = chat.FinishToolCalls
		}
	}
	u := r.Usage
	if u.TotalTokens == 0 {
		u.TotalTokens = u.InputTokens + u.OutputTokens
	}
	model := info.Model
	if p != nil && p.Options != nil && p.Options.Model != "" {
		model = p.Options.Model
	}
	return &chat.Response{
		Model: model,
		Generations: []chat.Generation{{
			Message:      chat.Message{Role: chat.RoleAssistant, Content: r.Text, Parts: r.Parts, ToolCalls: r.ToolCalls},
			FinishReason: fr,
		}},
		Usage: u,
	}, r.Err
}

// Call returns the next scripted reply.
func (m *Model) Call(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, info, _, err := m.take(p)
	if err != nil {
		return nil, err
	}
	resp, err := r.response(ctx, p, info)
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// Stream yields the next scripted reply in chunks: the response id and model first, then the
// text in pieces, its parts, reasoning and server tools, then each tool call with its id and
// name on its first fragment and its arguments spread over the following ones, then the finish
// reason and usage. A reply with Err yields its chunks and then the error. A cancelled context ends the stream with ctx.Err().
func (m *Model) Stream(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error] {
	return func(yield func(*chat.Response, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return
		}
		r, info, size, err := m.take(p)
		if err != nil {
			yield(nil, err)
			return
		}
		resp, rerr := r.response(ctx, p, info)
		if resp == nil {
			if rerr == nil {
				rerr = errors.New("chattest: Respond returned no response")
			}
			yield(nil, rerr)
			return
		}
		for chunk := range chunks(resp, size) {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			if !yield(chunk, nil) {
				return
			}
		}
		if rerr != nil {
			yield(nil, rerr)
		}
	}
}

// chunks splits a whole response into the deltas a provider would stream.
func chunks(resp *chat.Response, size int) iter.Seq[*chat.Response] {
	return func(yield func(*chat.Response) bool) {
		if !yield(&chat.Response{ID: resp.ID, Model: resp.Model}) {
			return
		}
		delta := func(index int, m chat.Message) *chat.Response {
			m.Role = chat.RoleAssistant
			return chat.Delta(index, m, "")
		}
		for _, g := range resp.Generations {
			for piece := range pieces(g.Message.Content, size) {
				if !yield(delta(g.Index, chat.Message{Content: piece})) {
					return
				}
			}
			for _, p := range g.Message.Parts {
				if !yield(delta(g.Index, chat.Message{Parts: []content.Part{p}})) {
					return
				}
			}
			if len(g.Message.Reasoning) > 0 && !yield(delta(g.Index, chat.Message{Reasoning: g.Message.Reasoning})) {
				return
			}
			if len(g.Message.ServerTools) > 0 && !yield(delta(g.Index, chat.Message{ServerTools: g.Message.ServerTools})) {
				return
			}
			for i, c := range g.Message.ToolCalls {
				first := true
				for piece := range pieces(c.Arguments, size) {
					frag := chat.ToolCall{Index: i, Arguments: piece}
					if first {
						frag.ID, frag.Name, frag.Signature = c.ID, c.Name, c.Signature
						first = false
					}
					if !yield(chat.ToolCallDelta(g.Index, frag)) {
						return
					}
				}
				if first { // no arguments at all
					frag := chat.ToolCall{Index: i, ID: c.ID, Name: c.Name, Signature: c.Signature}
					if !yield(chat.ToolCallDelta(g.Index, frag)) {
						return
					}
				}
			}
			if g.FinishReason != "" {
				if !yield(chat.Delta(g.Index, chat.Message{Role: chat.RoleAssistant}, g.FinishReason)) {
					return
				}
			}
		}
		if resp.Usage != (chat.Usage{}) {
			yield(&chat.Response{Usage: resp.Usage})
		}
	}
}

// pieces splits s into runs of at most size runes.
func pieces(s string, size int) iter.Seq[string] {
	return func(yield func(string) bool) {
		for len(s) > 0 {
			end, n := 0, 0
			for end < len(s) && n < size {
				_, w := utf8.DecodeRuneInString(s[end:])
				end += w
				n++
			}
			if !yield(s[:end]) {
				return
			}
			s = s[end:]
		}
	}
}

// clonePrompt copies p so that later changes by the caller do not alter the record.
func clonePrompt(p *chat.Prompt) *chat.Prompt {
	if p == nil {
		return nil
	}
	out := &chat.Prompt{Messages: make([]chat.Message, len(p.Messages))}
	for i, m := range p.Messages {
		out.Messages[i] = m.Clone()
	}
	if p.Options != nil {
		out.Options = p.Options.Clone()
	}
	return out
}
