package client

import "github.com/wield-ai/wield/chat"

// ToolCallDelta is a fragment of a tool call as the model writes it, for user interfaces that
// show a long argument (a file being written, a query being composed) before the call is
// complete. The fragments of one call arrive in order, before the call's [ToolStarted] (or
// [ToolApprovalRequired]) event; joined, their Arguments are the call's arguments as the model
// wrote them.
type ToolCallDelta struct {
	// Index is the call's position in the model's message; calls of one message may be written
	// in turns, so fragments of several calls can interleave.
	Index int
	// ID is the call's id, once the provider has sent it: every fragment after that carries it.
	ID string
	// Name is the tool's name, once the provider has sent it: every fragment after that carries
	// it.
	Name string
	// Arguments is this fragment of the arguments' JSON text, possibly empty (a fragment that
	// only names the call).
	Arguments string
}

// maxTrackedCalls bounds the call indexes whose id and name the filter remembers: an index past
// it (which no real model writes) gets its fragments passed on as they came.
const maxTrackedCalls = 256

// deltaFilter stands between the model end and the consumer of a streamed turn's events: it
// passes text and reasoning on as chunks and turns tool-call fragments into [ToolCallDelta]
// events, each carrying its call's id and name, which providers send with the first fragment
// only. It is installed by the tool loop for consumers of events only: a text consumer
// ([Stream.Text]) never meets it and pays nothing for it.
type deltaFilter struct {
	emit  func(*Event) bool
	calls []chat.ToolCall // by index: the id and name last seen
}

// streamEvents returns emit with chunks' tool-call fragments turned into delta events.
func streamEvents(emit func(*Event) bool) func(*Event) bool {
	f := &deltaFilter{emit: emit}
	return f.send
}

func (f *deltaFilter) send(ev *Event) bool {
	if ev.Chunk == nil {
		return f.emit(ev)
	}
	c := textOnly(ev.Chunk)
	if c != nil {
		out := ev
		if c != ev.Chunk {
			out = &Event{Chunk: c, agent: ev.agent}
		}
		if !f.emit(out) {
			return false
		}
		if c == ev.Chunk {
			return true // no tool-call fragments in it
		}
	}
	for i := range ev.Chunk.Generations {
		g := &ev.Chunk.Generations[i]
		if g.Index != 0 {
			continue // fragments are tracked by index, which other generations reuse; streamed tool calls come in one
		}
		for _, tc := range g.Message.ToolCalls {
			if !f.emit(f.delta(tc, ev.agent)) {
				return false
			}
		}
	}
	return true
}

// delta returns the event of one fragment, naming its call from what earlier fragments said.
// A fragment with a new id, or a name and no id, starts a call at its index (a later model
// call's calls reuse the indexes of an earlier one's); the fragments that follow carry neither.
func (f *deltaFilter) delta(tc chat.ToolCall, agent *string) *Event {
	d := ToolCallDelta{Index: tc.Index, ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}
	if tc.Index >= 0 && tc.Index < maxTrackedCalls {
		for len(f.calls) <= tc.Index {
			f.calls = append(f.calls, chat.ToolCall{})
		}
		known := &f.calls[tc.Index]
		switch {
		case tc.ID != "" && tc.ID != known.ID, tc.ID == "" && tc.Name != "":
			*known = chat.ToolCall{ID: tc.ID, Name: tc.Name}
		case tc.Name != "":
			known.Name = tc.Name
		}
		d.ID, d.Name = known.ID, known.Name
	}
	b := &struct {
		ev    Event
		delta ToolCallDelta
	}{delta: d}
	b.ev = Event{ToolDelta: &b.delta, agent: agent}
	return &b.ev
}
