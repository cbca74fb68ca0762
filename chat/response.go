package chat

import "strings"

// FinishReason says why a generation ended, normalised across providers.
type FinishReason string

// The normalised finish reasons. Providers map their own values onto these; a value they cannot
// map is passed through unchanged.
const (
	FinishStop          FinishReason = "stop"
	FinishLength        FinishReason = "length"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishContentFilter FinishReason = "content_filter"
	FinishError         FinishReason = "error"
)

// Prompt is a request to a model: the conversation so far and the options for this call.
type Prompt struct {
	Messages []Message
	// Options may be nil, meaning the model's defaults.
	Options *Options
}

// Response is a model's answer. A streamed response is a sequence of Responses each holding
// deltas; [Aggregate] joins them.
type Response struct {
	// ID is the provider's id of the response, when it sends one.
	ID string
	// Model is the model that answered, as the provider reports it.
	Model string
	// Generations are the alternative answers; usually exactly one.
	Generations []Generation
	// Usage counts the tokens of the request and answer.
	Usage Usage
	// Raw is the provider's own response value (or, in a stream, chunk), for fields wield does
	// not map. It is not carried across aggregation.
	Raw any
}

// Generation is one answer of a response.
type Generation struct {
	// Index is the generation's position among the alternatives; streams use it to join deltas.
	Index int
	// Message is the assistant's message: text, tool calls and reasoning.
	Message Message
	// FinishReason is why generation stopped; empty in stream chunks before the last.
	FinishReason FinishReason
}

// Usage counts tokens. Zero means not reported.
type Usage struct {
	InputTokens  int `json:"inputTokens,omitempty"`
	OutputTokens int `json:"outputTokens,omitempty"`
	TotalTokens  int `json:"totalTokens,omitempty"`
	// CachedInputTokens is the part of InputTokens read from the provider's prompt cache.
	CachedInputTokens int `json:"cachedInputTokens,omitempty"`
	// CacheWriteInputTokens is the part of InputTokens written to the provider's prompt cache
	// (Anthropic's cache creation, Bedrock's cache writes), billed differently from plain input.
	CacheWriteInputTokens int `json:"cacheWriteInputTokens,omitempty"`
	// ReasoningTokens is the part of OutputTokens spent on thinking.
	ReasoningTokens int `json:"reasoningTokens,omitempty"`
	// ServerToolCalls counts the calls of tools the provider ran itself (its native tool
	// search), as the answer's [Message.ServerTools] show them.
	ServerToolCalls int `json:"serverToolCalls,omitempty"`
}

// Add returns the sum of u and v, for usage over several model calls.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:           u.InputTokens + v.InputTokens,
		OutputTokens:          u.OutputTokens + v.OutputTokens,
		TotalTokens:           u.TotalTokens + v.TotalTokens,
		CachedInputTokens:     u.CachedInputTokens + v.CachedInputTokens,
		CacheWriteInputTokens: u.CacheWriteInputTokens + v.CacheWriteInputTokens,
		ReasoningTokens:       u.ReasoningTokens + v.ReasoningTokens,
		ServerToolCalls:       u.ServerToolCalls + v.ServerToolCalls,
	}
}

// Result returns the first generation, or nil if there is none.
func (r *Response) Result() *Generation {
	if r == nil || len(r.Generations) == 0 {
		return nil
	}
	return &r.Generations[0]
}

// Text returns the text of the first generation.
func (r *Response) Text() string {
	if g := r.Result(); g != nil {
		return g.Message.Text()
	}
	return ""
}

// ToolCalls returns the tool calls of every generation, in order. Some providers put text and
// tool calls in separate generations; looking only at the first would miss calls.
func (r *Response) ToolCalls() []ToolCall {
	if r == nil {
		return nil
	}
	var calls []ToolCall
	for _, g := range r.Generations {
		calls = append(calls, g.Message.ToolCalls...)
	}
	return calls
}

// Message returns the assistant message of the whole response, the one to append to a
// conversation's history: the message of its one generation, or, when a provider split one
// answer into several generations (text in one, tool calls in another), a message joining their
// texts (one a line), reasoning, server tools and tool calls in order, so that the calls stay
// with what the model said around them.
func (r *Response) Message() Message {
	if r != nil && len(r.Generations) == 1 {
		msg := r.Generations[0].Message
		msg.Role = RoleAssistant
		return msg
	}
	msg := Message{Role: RoleAssistant, ToolCalls: r.ToolCalls()}
	if r == nil {
		return msg
	}
	var texts []string
	for _, g := range r.Generations {
		if g.Message.Content != "" {
			texts = append(texts, g.Message.Content)
		}
		msg.Reasoning = append(msg.Reasoning, g.Message.Reasoning...)
		msg.ServerTools = append(msg.ServerTools, g.Message.ServerTools...)
	}
	msg.Content = strings.Join(texts, "\n")
	return msg
}

// HasToolCalls reports whether any generation asks for a tool call.
func (r *Response) HasToolCalls() bool {
	if r == nil {
		return false
	}
	for _, g := range r.Generations {
		if len(g.Message.ToolCalls) > 0 {
			return true
		}
	}
	return false
}

// Delta returns a stream chunk that carries one generation's delta. The chunk and its
// generation take one allocation, which counts in a stream of hundreds of chunks.
func Delta(index int, m Message, finish FinishReason) *Response {
	r, g := oneGeneration()
	*g = Generation{Index: index, Message: m, FinishReason: finish}
	return r
}

// oneGeneration returns a response of one zero generation, both in one allocation.
func oneGeneration() (*Response, *Generation) {
	b := &struct {
		r Response
		g [1]Generation
	}{}
	b.r.Generations = b.g[:]
	return &b.r, &b.g[0]
}

// ToolCallDelta returns a stream chunk that carries one fragment of a tool call (see
// [Aggregator] for how fragments join), in one allocation like [Delta].
func ToolCallDelta(index int, call ToolCall) *Response {
	b := &struct {
		r Response
		g [1]Generation
		c [1]ToolCall
	}{}
	b.c[0] = call
	b.g[0] = Generation{Index: index, Message: Message{Role: RoleAssistant, ToolCalls: b.c[:]}}
	b.r.Generations = b.g[:]
	return &b.r
}
