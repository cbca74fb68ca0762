package chat

import (
	"cmp"
	"iter"
	"slices"
	"strings"

	"github.com/wield-ai/wield/content"
)

// Aggregator joins the chunks of a streamed response into one [Response]. Use it directly when
// chunks must also be passed on as they arrive; [Aggregate] drains a whole stream.
//
// The rules:
//   - generations are kept apart by [Generation.Index];
//   - text is concatenated in arrival order; once a chunk has brought parts, later text goes
//     into parts too, so positions hold: a text part without a signature joins the text part
//     before it, a signed one (Gemini) starts a new part, media parts are kept as sent;
//   - a tool-call delta joins the earlier call with the same [ToolCall.Index], unless both carry
//     ids and the ids differ, in which case it starts a new call; its argument fragments are
//     concatenated, and the first non-empty id, name and signature are kept;
//   - reasoning items are kept as sent (providers emit each item whole, once complete);
//   - each usage field takes the last non-zero value reported, since providers report running
//     totals (Anthropic) or a final usage-only chunk (OpenAI);
//   - the last non-empty finish reason of a generation is kept, as are the first id and model.
//
// The zero value is ready to use. An Aggregator is not safe for concurrent use.
type Aggregator struct {
	resp    Response
	gens    []*genState
	byIndex map[int]*genState
}

type genState struct {
	index  int
	text   strings.Builder
	calls  []*callState
	last   map[int]*callState // the latest call of each tool-call index
	reason []Reasoning
	parts  []content.Part
	finish FinishReason
}

// addText appends text in its position: to Content until parts have begun, then as parts.
func (g *genState) addText(text string) {
	if len(g.parts) == 0 {
		g.text.WriteString(text)
		return
	}
	g.addPart(content.Text(text))
}

func (g *genState) addPart(p content.Part) {
	if n := len(g.parts); n > 0 && p.Kind == content.KindText && p.Signature == "" && g.parts[n-1].Kind == content.KindText {
		g.parts[n-1].Text += p.Text
		return
	}
	g.parts = append(g.parts, p)
}

type callState struct {
	call ToolCall
	args strings.Builder
}

// Add merges one chunk.
func (a *Aggregator) Add(chunk *Response) {
	if chunk == nil {
		return
	}
	if a.resp.ID == "" {
		a.resp.ID = chunk.ID
	}
	if a.resp.Model == "" {
		a.resp.Model = chunk.Model
	}
	a.resp.Usage = mergeUsage(a.resp.Usage, chunk.Usage)
	for i := range chunk.Generations {
		a.addGeneration(&chunk.Generations[i])
	}
}

func mergeUsage(u, v Usage) Usage {
	last := func(a, b int) int {
		if b != 0 {
			return b
		}
		return a
	}
	return Usage{
		InputTokens:           last(u.InputTokens, v.InputTokens),
		OutputTokens:          last(u.OutputTokens, v.OutputTokens),
		TotalTokens:           last(u.TotalTokens, v.TotalTokens),
		CachedInputTokens:     last(u.CachedInputTokens, v.CachedInputTokens),
		CacheWriteInputTokens: last(u.CacheWriteInputTokens, v.CacheWriteInputTokens),
		ReasoningTokens:       last(u.ReasoningTokens, v.ReasoningTokens),
	}
}

func (a *Aggregator) generation(index int) *genState {
	if g, ok := a.byIndex[index]; ok {
		return g
	}
	if a.byIndex == nil {
		a.byIndex = map[int]*genState{}
	}
	g := &genState{index: index}
	a.gens = append(a.gens, g)
	a.byIndex[index] = g
	return g
}

func (a *Aggregator) addGeneration(d *Generation) {
	g := a.generation(d.Index)
	if d.Message.Content != "" {
		g.addText(d.Message.Content)
	}
	for _, p := range d.Message.Parts {
		g.addPart(p)
	}
	if d.FinishReason != "" {
		g.finish = d.FinishReason
	}
	g.reason = append(g.reason, d.Message.Reasoning...)
	for _, tc := range d.Message.ToolCalls {
		g.addCall(tc)
	}
}

func (g *genState) addCall(d ToolCall) {
	c := g.last[d.Index]
	if c == nil || (d.ID != "" && c.call.ID != "" && d.ID != c.call.ID) {
		c = &callState{call: ToolCall{Index: d.Index}}
		g.calls = append(g.calls, c)
		if g.last == nil {
			g.last = map[int]*callState{}
		}
		g.last[d.Index] = c
	}
	if c.call.ID == "" {
		c.call.ID = d.ID
	}
	if c.call.Name == "" {
		c.call.Name = d.Name
	}
	if c.call.Signature == "" {
		c.call.Signature = d.Signature
	}
	c.args.WriteString(d.Arguments)
}

// Response returns the response aggregated so far. It may be called more than once.
func (a *Aggregator) Response() *Response {
	out := &Response{ID: a.resp.ID, Model: a.resp.Model, Usage: a.resp.Usage}
	gens := slices.Clone(a.gens)
	// cmp.Compare, not x.index - y.index, which overflows for indexes far apart.
	slices.SortStableFunc(gens, func(x, y *genState) int { return cmp.Compare(x.index, y.index) })
	for _, g := range gens {
		msg := Message{Role: RoleAssistant, Content: g.text.String(), Parts: slices.Clone(g.parts), Reasoning: slices.Clone(g.reason)}
		for _, c := range g.calls {
			call := c.call
			call.Arguments = c.args.String()
			msg.ToolCalls = append(msg.ToolCalls, call)
		}
		out.Generations = append(out.Generations, Generation{Index: g.index, Message: msg, FinishReason: g.finish})
	}
	return out
}

// Aggregate drains a stream and returns the joined response. If the stream fails, Aggregate
// returns what arrived before the failure together with the error.
func Aggregate(stream iter.Seq2[*Response, error]) (*Response, error) {
	var a Aggregator
	for chunk, err := range stream {
		if err != nil {
			return a.Response(), err
		}
		a.Add(chunk)
	}
	return a.Response(), nil
}
