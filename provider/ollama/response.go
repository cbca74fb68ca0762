package ollama

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/provider/internal/toolname"
)

// decoder turns the lines of an answer into chat.Responses, keeping what spans lines: the
// number of calls (for distinct indexes and ids), thinking not yet complete, and whether the
// server said it was done.
type decoder struct {
	calls    int
	idPrefix string
	thinking strings.Builder
	// images holds the answer's images until it is done, to come after its text.
	images []content.Part
	done   bool
	// names gives calls the tools' own names.
	names *toolname.Map
}

func newDecoder() *decoder {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &decoder{idPrefix: syntheticIDPrefix + hex.EncodeToString(b[:]) + "-"}
}

func (d *decoder) chunk(r api.ChatResponse) *chat.Response {
	out := &chat.Response{Model: r.Model, Raw: &r}
	g := chat.Generation{Message: chat.Message{Role: chat.RoleAssistant, Content: r.Message.Content}}
	d.thinking.WriteString(r.Message.Thinking)
	d.images = append(d.images, answerImages(r.Message.Images)...)
	if r.Message.Content != "" || len(r.Message.ToolCalls) > 0 || r.Done {
		d.flushThinking(&g)
	}
	for _, tc := range r.Message.ToolCalls {
		id := tc.ID
		if id == "" {
			id = d.idPrefix + strconv.Itoa(d.calls)
		}
		g.Message.ToolCalls = append(g.Message.ToolCalls, chat.ToolCall{
			Index: d.calls, ID: id, Name: d.names.User(tc.Function.Name), Arguments: tc.Function.Arguments.String(),
		})
		d.calls++
	}
	if r.Done {
		d.done = true
		g.Message.Parts, d.images = d.images, nil
		g.FinishReason = finishReason(r.DoneReason, d.calls > 0)
		out.Usage = chat.Usage{
			InputTokens:  r.PromptEvalCount,
			OutputTokens: r.EvalCount,
			TotalTokens:  r.PromptEvalCount + r.EvalCount,
		}
	}
	out.Generations = []chat.Generation{g}
	return out
}

// flushThinking yields the thinking gathered so far as one Reasoning item.
func (d *decoder) flushThinking(g *chat.Generation) {
	if d.thinking.Len() == 0 {
		return
	}
	g.Message.Reasoning = append(g.Message.Reasoning, chat.Reasoning{Provider: providerName, Text: d.thinking.String()})
	d.thinking.Reset()
}

// finishReason normalises done_reason; a stop after tool calls is tool_calls, and a finished
// answer without a reason is a stop.
func finishReason(reason string, calls bool) chat.FinishReason {
	switch reason {
	case "stop", "":
		if calls {
			return chat.FinishToolCalls
		}
		return chat.FinishStop
	case "length":
		return chat.FinishLength
	}
	return chat.FinishReason(reason)
}
