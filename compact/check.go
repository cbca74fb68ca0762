package compact

import (
	"math"
	"unsafe"

	"github.com/wield-ai/wield/budget"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/tool"
)

// What [quick] found in a request that its bound does not settle.
const (
	foundMedia  = 1 << iota // a part that is not text: the bound does not hold
	foundNative             // a provider's report of its context management, to mirror
	foundLong               // a tool result that may be over the cap
)

// fits reports whether req needs no compaction: no result over the cap and, with a budget, the
// whole within it. One pass over the request's lengths settles an ordinary request; a request
// whose bound is over the budget is estimated, reusing the turn's estimate of the messages it
// estimated before ([sizes]).
func (c *Compactor) fits(e budget.Estimator, req *client.Request, st *turnState, b int) bool {
	rc := c.resultCap(b)
	capBytes := math.MaxInt
	if rc > 0 {
		// A result of capBytes bytes is within the cap however the estimate is corrected.
		capBytes = int(int64(rc) * 1000 / int64(e.Scale()))
	}
	n, found := quick(&req.Prompt, capBytes)
	if found&foundNative != 0 {
		return false
	}
	if found&foundLong != 0 && overCap(e, req.Prompt.Messages, rc) {
		return false
	}
	if b <= 0 || found&foundMedia == 0 && e.Scaled(n) <= b {
		return true
	}
	if st == nil {
		st = c.stateOf(req)
	}
	return e.Scaled(st.sizes.raw(c.est, &req.Prompt)) <= b
}

// overCap reports whether a result of msgs is over the cap of rc tokens.
func overCap(e budget.Estimator, msgs []chat.Message, rc int) bool {
	for i := range msgs {
		for j := range msgs[i].ToolResults {
			// A fetch's chunk is sized by the compactor already; capping it would loop.
			if r := &msgs[i].ToolResults[j]; r.Name != FetchToolName && e.Text(r.Content) > rc {
				return true
			}
		}
	}
	return false
}

// quick is one pass over p's lengths: an upper bound of its uncorrected tokens (no family counts
// more than a token a byte of text, nor more than 16 of framing an item), and what the bound does
// not settle: media, a provider's report of its context management, or a tool result of more than
// capBytes bytes.
func quick(p *chat.Prompt, capBytes int) (n, found int) {
	for i := range p.Messages {
		m := &p.Messages[i]
		n += 16 + len(m.Content)
		if len(m.Parts) > 0 {
			k, f := textParts(m.Parts)
			n, found = n+k, found|f
		}
		for j := range m.Reasoning {
			n += len(m.Reasoning[j].Text) + len(m.Reasoning[j].Encrypted)
		}
		for j := range m.ServerTools {
			s := &m.ServerTools[j]
			if s.Name == NativeCleared || s.Name == NativeCompaction {
				found |= foundNative
			}
			n += 16 + len(s.Arguments) + 8*len(s.Tools)
		}
		for j := range m.ToolCalls {
			n += 16 + len(m.ToolCalls[j].Name) + len(m.ToolCalls[j].Arguments)
		}
		for j := range m.ToolResults {
			r := &m.ToolResults[j]
			if len(r.Content) > capBytes {
				found |= foundLong
			}
			n += 16 + len(r.Content)
			if len(r.Parts) > 0 {
				k, f := textParts(r.Parts)
				n, found = n+k, found|f
			}
		}
	}
	if p.Options != nil {
		for _, t := range p.Options.Tools {
			d := t.Definition()
			n += 16 + len(d.Name) + len(d.Description) + len(d.InputSchema)
		}
	}
	return n, found
}

// textParts bounds parts that are text; any other kind is foundMedia.
func textParts(parts []content.Part) (n, found int) {
	for i := range parts {
		if parts[i].Kind != content.KindText {
			return n, foundMedia
		}
		n += len(parts[i].Text)
	}
	return n, 0
}

// sizes holds the uncorrected estimate of each message of a turn's last estimated request, and
// of its tools, by identity. The loop's next request copies those messages (each round's history
// is built anew) and adds a round, so only what was added is estimated again. A message is the
// same when its text and its slices are the same memory: requests are read-only in the chain,
// and compaction copies what it changes.
type sizes struct {
	msgs      []sizedMessage
	tools     *tool.Tool
	toolCount int
	toolsRaw  int
}

type sizedMessage struct {
	id  messageID
	raw int
}

// messageID is where a message's text and slices are in memory.
type messageID struct {
	text                         *byte
	parts                        *content.Part
	calls                        *chat.ToolCall
	results                      *chat.ToolResult
	reasoning                    *chat.Reasoning
	servers                      *chat.ServerTool
	textLen, partsLen, callsLen  int
	resultsLen, reasonLen, svLen int
}

func idOf(m *chat.Message) messageID {
	return messageID{
		text: unsafe.StringData(m.Content), textLen: len(m.Content),
		parts: unsafe.SliceData(m.Parts), partsLen: len(m.Parts),
		calls: unsafe.SliceData(m.ToolCalls), callsLen: len(m.ToolCalls),
		results: unsafe.SliceData(m.ToolResults), resultsLen: len(m.ToolResults),
		reasoning: unsafe.SliceData(m.Reasoning), reasonLen: len(m.Reasoning),
		servers: unsafe.SliceData(m.ServerTools), svLen: len(m.ServerTools),
	}
}

// is reports whether m is the message of id; the text, the commonest difference, first.
func (id *messageID) is(m *chat.Message) bool {
	return id.text == unsafe.StringData(m.Content) && id.textLen == len(m.Content) &&
		id.results == unsafe.SliceData(m.ToolResults) && id.resultsLen == len(m.ToolResults) &&
		id.calls == unsafe.SliceData(m.ToolCalls) && id.callsLen == len(m.ToolCalls) &&
		id.parts == unsafe.SliceData(m.Parts) && id.partsLen == len(m.Parts) &&
		id.reasoning == unsafe.SliceData(m.Reasoning) && id.reasonLen == len(m.Reasoning) &&
		id.servers == unsafe.SliceData(m.ServerTools) && id.svLen == len(m.ServerTools)
}

// raw returns the uncorrected estimate of p by e, estimating only the messages that are not
// those of the same place in the request before, and the tools unless they are the same slice.
func (s *sizes) raw(e budget.Estimator, p *chat.Prompt) int {
	n, k := 0, 0
	for ; k < len(p.Messages) && k < len(s.msgs); k++ {
		if !s.msgs[k].id.is(&p.Messages[k]) {
			break
		}
		n += s.msgs[k].raw
	}
	s.msgs = s.msgs[:k]
	for i := k; i < len(p.Messages); i++ {
		m := &p.Messages[i]
		r := e.Message(m)
		s.msgs = append(s.msgs, sizedMessage{idOf(m), r})
		n += r
	}
	var tools []tool.Tool
	if p.Options != nil {
		tools = p.Options.Tools
	}
	if t := unsafe.SliceData(tools); t != s.tools || len(tools) != s.toolCount {
		s.tools, s.toolCount, s.toolsRaw = t, len(tools), e.Tools(tools)
	}
	return n + s.toolsRaw
}
