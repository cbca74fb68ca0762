package anthropic

import (
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider/internal/wire"
)

// fromMessage maps a whole Messages API answer onto one generation: text blocks joined, tool_use
// blocks as tool calls, thinking blocks as reasoning, tool-search blocks as server tools.
func fromMessage(msg *sdk.Message) (*chat.Response, error) {
	out := chat.Message{Role: chat.RoleAssistant}
	var text strings.Builder
	for i := range msg.Content {
		b := &msg.Content[i]
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			args, err := wire.CompactObject(b.Input)
			if err != nil {
				return nil, fmt.Errorf("anthropic: tool_use %s (%s): %w", b.ID, b.Name, err)
			}
			out.ToolCalls = append(out.ToolCalls, chat.ToolCall{ID: b.ID, Name: b.Name, Arguments: args, Index: len(out.ToolCalls)})
		case "thinking":
			out.Reasoning = append(out.Reasoning, chat.Reasoning{Provider: ProviderName, Text: b.Thinking, Signature: b.Signature})
		case "redacted_thinking":
			out.Reasoning = append(out.Reasoning, chat.Reasoning{Provider: ProviderName, Encrypted: b.Data})
		case "compaction":
			st, ok, err := compactionStepOf(b.RawJSON())
			if err != nil {
				return nil, fmt.Errorf("anthropic: %w", err)
			}
			if ok {
				out.ServerTools = append(out.ServerTools, st)
			}
		case "server_tool_use", "tool_search_tool_result":
			st, ok, err := serverTool(b.Type, b.ID, b.Name, b.Input, b.RawJSON())
			if err != nil {
				return nil, fmt.Errorf("anthropic: %w", err)
			}
			if ok {
				out.ServerTools = append(out.ServerTools, st)
			}
		}
		// Other server tools' blocks (web search and the like) stay in Raw.
	}
	out.Content = text.String()
	u := usage{
		input:       msg.Usage.InputTokens,
		cacheRead:   msg.Usage.CacheReadInputTokens,
		cacheCreate: msg.Usage.CacheCreationInputTokens,
		output:      msg.Usage.OutputTokens,
		thinking:    msg.Usage.OutputTokensDetails.ThinkingTokens,
		searches:    countSearches(out.ServerTools),
	}
	return &chat.Response{
		ID:          msg.ID,
		Model:       msg.Model,
		Generations: []chat.Generation{{Message: out, FinishReason: finishReason(msg.StopReason)}},
		Usage:       u.chat(),
		Raw:         msg,
	}, nil
}

// finishReason normalises a stop reason; unknown values pass through.
func finishReason(r sdk.StopReason) chat.FinishReason {
	switch r {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		return chat.FinishStop
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return chat.FinishLength
	case sdk.StopReasonToolUse:
		return chat.FinishToolCalls
	case sdk.StopReasonRefusal:
		return chat.FinishContentFilter
	}
	return chat.FinishReason(r)
}

// usage holds Anthropic's token counts, where input_tokens excludes cached input, and the tool
// searches Anthropic ran, counted from the answer's blocks.
type usage struct {
	input, cacheRead, cacheCreate, output, thinking, searches int64
}

// chat returns the counts in wield's terms: InputTokens is all input, cached or not.
func (u usage) chat() chat.Usage {
	in := u.input + u.cacheRead + u.cacheCreate
	return chat.Usage{
		InputTokens:           int(in),
		OutputTokens:          int(u.output),
		TotalTokens:           int(in + u.output),
		CachedInputTokens:     int(u.cacheRead),
		CacheWriteInputTokens: int(u.cacheCreate),
		ReasoningTokens:       int(u.thinking),
		ServerToolCalls:       int(u.searches),
	}
}
