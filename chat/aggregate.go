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
//   - reasoning items and server tools are kept as sent (providers emit each whole, once
//     complete);
//   - each usage field takes the last non-zero value reported, since providers report running
//     totals (Anthropic) or a final usage-only chunk (OpenAI);
//   - the last non-empty finish reason of a generation is kept, as are the first id and model.
//
// The zero value is ready to use. An Aggregator is not safe for concurrent use, nor to be
// copied once used.
type Aggregator struct {
	resp    Response
	started bool
	first   genState    // the generation of the first index seen: the only one of most streams
	more    []*genState // those of other indexes, in arrival order
	byIndex map[int]*genState
}

// manyLimit is where lookups by index leave a scan for a map.
const manyLimit = 8

// genState is one generation being joined. Text and argument fragments are kept as they came
// and joined once, in Response: one allocation per joined string, however many fragments.
type genState struct {
	index  int
	text   []string
	text0  [8]string // text's first backing array: most answers of a stream come in a few chunks
	call0  callState // the first call, the only one of most responses
	calls  []*callState
	calls0 [2]*callState      // calls' first backing array
	lastOf map[int]*callState // the latest call of each tool-call index, once there are many calls
	reason []Reasoning
	server []ServerTool
	parts  []content.Part
	finish FinishReason
}

// addText appends text in its position: to Content until parts have begun, then as parts.
func (g *genState) addText(text string) {
	if len(g.parts) == 0 {
		if g.text == nil {
			g.text = g.text0[:0]
		}
		g.text = append(g.text, text)
		return
	}
	g.addPart(content.Text(text))
}

func (g *genState) addPart(p content.Part) {
	// Unsigned text joins the text part before it, but never an empty signed one: that part goes
	// back alone, as it came.
	if n := len(g.parts); n > 0 && p.Kind == content.KindText && p.Signature == "" && g.parts[n-1].Kind == content.KindText &&
		(g.parts[n-1].Text != "" || g.parts[n-1].Signature == "") {
		g.parts[n-1].Text += p.Text
		return
	}
	g.parts = append(g.parts, p)
}

type callState struct {
	call  ToolCall
	args0 string    // the first argument fragment
	args  []string  // all of them, once there are several
	argsA [4]string // args' first backing array
}

// Reset empties the aggregator for another stream. It keeps its own storage, so an aggregator
// reused from stream to stream allocates only for what outgrows it; a response it returned
// shares nothing with it and stays whole.
//
// It clears only what the last stream used: an aggregator lives in the heap, where every
// pointer written, even a nil one, costs a write barrier while the collector runs.
func (a *Aggregator) Reset() {
	if a.resp.ID != "" {
		a.resp.ID = ""
	}
	if a.resp.Model != "" {
		a.resp.Model = ""
	}
	a.resp.Usage = Usage{}
	if a.more != nil || a.byIndex != nil {
		a.more, a.byIndex = nil, nil // rare, and what a stream of many generations grew is not kept
	}
	if a.started {
		a.started = false
		a.first.reset()
	}
}

func (g *genState) reset() {
	if g.text != nil {
		clear(g.text) // the strings it holds, not to be kept alive
		if len(g.text) > len(g.text0) {
			clear(g.text0[:])
		}
		g.text = nil
	}
	if g.calls != nil {
		g.call0.reset() // the first call; later ones were allocated apart and are dropped
		clear(g.calls0[:])
		g.calls, g.lastOf = nil, nil
	}
	if g.reason != nil || g.server != nil || g.parts != nil {
		g.reason, g.server, g.parts = nil, nil, nil
	}
	if g.finish != "" {
		g.finish = ""
	}
	g.index = 0
}

func (c *callState) reset() {
	if c.args != nil {
		clear(c.args)
		if len(c.args) > len(c.argsA) {
			clear(c.argsA[:])
		}
		c.args = nil
	}
	if c.call != (ToolCall{}) {
		c.call = ToolCall{}
	}
	if c.args0 != "" {
		c.args0 = ""
	}
}

// Add merges one chunk.
func (a *Aggregator) Add(chunk *Response) {
	if chunk == nil {
		return
	}
	if a.resp.ID == "" && chunk.ID != "" {
		a.resp.ID = chunk.ID
	}
	if a.resp.Model == "" && chunk.Model != "" {
		a.resp.Model = chunk.Model
	}
	if chunk.Usage != (Usage{}) {
		a.resp.Usage = mergeUsage(a.resp.Usage, chunk.Usage)
	}
	for i := range chunk.Generations {
		a.addGeneration(&chunk.Generations[i])
	}
}

// mergeUsage keeps each count of v that is set, as a later chunk's counts supersede an earlier's.
func mergeUsage(u, v Usage) Usage {
	return Usage{
		InputTokens:           cmp.Or(v.InputTokens, u.InputTokens),
		OutputTokens:          cmp.Or(v.OutputTokens, u.OutputTokens),
		TotalTokens:           cmp.Or(v.TotalTokens, u.TotalTokens),
		CachedInputTokens:     cmp.Or(v.CachedInputTokens, u.CachedInputTokens),
		CacheWriteInputTokens: cmp.Or(v.CacheWriteInputTokens, u.CacheWriteInputTokens),
		ReasoningTokens:       cmp.Or(v.ReasoningTokens, u.ReasoningTokens),
		ServerToolCalls:       cmp.Or(v.ServerToolCalls, u.ServerToolCalls),
	}
}

func (a *Aggregator) generation(index int) *genState {
	if !a.started {
		a.started = true
		a.first.index = index
		return &a.first
	}
	if a.first.index == index {
		return &a.first
	}
	if a.byIndex != nil {
		if g, ok := a.byIndex[index]; ok {
			return g
		}
	} else {
		for _, g := range a.more {
			if g.index == index {
				return g
			}
		}
	}
	g := &genState{index: index}
	a.more = append(a.more, g)
	if a.byIndex != nil {
		a.byIndex[index] = g
	} else if len(a.more) > manyLimit {
		a.byIndex = make(map[int]*genState, 2*len(a.more))
		for _, m := range a.more {
			a.byIndex[m.index] = m
		}
	}
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
	if len(d.Message.Reasoning) > 0 {
		g.reason = append(g.reason, d.Message.Reasoning...)
	}
	if len(d.Message.ServerTools) > 0 {
		g.server = append(g.server, d.Message.ServerTools...)
	}
	for i := range d.Message.ToolCalls {
		g.addCall(&d.Message.ToolCalls[i])
	}
}

// latest returns the latest call of tool-call index i, or nil.
func (g *genState) latest(i int) *callState {
	if g.lastOf != nil {
		return g.lastOf[i]
	}
	for k := len(g.calls) - 1; k >= 0; k-- {
		if g.calls[k].call.Index == i {
			return g.calls[k]
		}
	}
	return nil
}

func (g *genState) addCall(d *ToolCall) {
	c := g.latest(d.Index)
	if c == nil || (d.ID != "" && c.call.ID != "" && d.ID != c.call.ID) {
		if len(g.calls) == 0 {
			c = &g.call0
		} else {
			c = &callState{}
		}
		c.call.Index = d.Index
		if g.calls == nil {
			g.calls = g.calls0[:0]
		}
		g.calls = append(g.calls, c)
		if g.lastOf != nil {
			g.lastOf[d.Index] = c
		} else if len(g.calls) > manyLimit {
			g.lastOf = make(map[int]*callState, 2*len(g.calls))
			for _, c := range g.calls {
				g.lastOf[c.call.Index] = c // later calls overwrite earlier ones
			}
		}
	}
	if c.call.ID == "" && d.ID != "" {
		c.call.ID = d.ID
	}
	if c.call.Name == "" && d.Name != "" {
		c.call.Name = d.Name
	}
	if c.call.Signature == "" && d.Signature != "" {
		c.call.Signature = d.Signature
	}
	switch {
	case d.Arguments == "":
	case c.args0 == "":
		c.args0 = d.Arguments
	default:
		if c.args == nil {
			c.args = append(c.argsA[:0], c.args0)
		}
		c.args = append(c.args, d.Arguments)
	}
}

func (c *callState) arguments() string {
	if c.args == nil {
		return c.args0
	}
	return strings.Join(c.args, "")
}

// join concatenates fragments, allocating only when there are several.
func join(fragments []string) string {
	switch len(fragments) {
	case 0:
		return ""
	case 1:
		return fragments[0]
	}
	return strings.Join(fragments, "")
}

// Response returns the response aggregated so far. It may be called more than once.
func (a *Aggregator) Response() *Response {
	if !a.started {
		return &Response{ID: a.resp.ID, Model: a.resp.Model, Usage: a.resp.Usage}
	}
	if len(a.more) == 0 {
		out, g := oneGeneration()
		out.ID, out.Model, out.Usage = a.resp.ID, a.resp.Model, a.resp.Usage
		a.first.fill(g)
		return out
	}
	out := &Response{ID: a.resp.ID, Model: a.resp.Model, Usage: a.resp.Usage}
	out.Generations = make([]Generation, 0, 1+len(a.more))
	out.Generations = append(out.Generations, a.first.generation())
	for _, g := range a.more {
		out.Generations = append(out.Generations, g.generation())
	}
	// cmp.Compare, not x.Index - y.Index, which overflows for indexes far apart.
	slices.SortStableFunc(out.Generations, func(x, y Generation) int { return cmp.Compare(x.Index, y.Index) })
	return out
}

func (g *genState) generation() Generation {
	var out Generation
	g.fill(&out)
	return out
}

// fill writes the joined generation into out, a zero Generation, field by field: a Message
// built apart and copied in would be copied twice, with write barriers over all of it.
func (g *genState) fill(out *Generation) {
	out.Index, out.FinishReason = g.index, g.finish
	msg := &out.Message
	msg.Role = RoleAssistant
	msg.Content = join(g.text)
	if g.parts != nil {
		msg.Parts = slices.Clone(g.parts)
	}
	if g.reason != nil {
		msg.Reasoning = slices.Clone(g.reason)
	}
	if g.server != nil {
		msg.ServerTools = slices.Clone(g.server)
	}
	if len(g.calls) > 0 {
		msg.ToolCalls = make([]ToolCall, len(g.calls))
		for i, c := range g.calls {
			tc := &msg.ToolCalls[i]
			*tc = c.call
			tc.Arguments = c.arguments()
		}
	}
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
