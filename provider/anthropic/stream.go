package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider/internal/wire"
)

// maxBlocks bounds the content-block index a stream may use, so a corrupt index cannot make the
// decoder allocate without limit.
const maxBlocks = 1 << 16

// streamState turns Messages API stream events into chat.Response deltas.
type streamState struct {
	blocks  []*block
	tools   int
	usage   usage
	started bool
	stopped bool
}

// block is the state of one content block of the streamed message.
type block struct {
	kind      string // the content block's type
	toolIndex int    // tool_use: the call's position among the message's calls
	hasArgs   bool   // tool_use: a non-empty input fragment arrived
	input     string // tool_use: the input sent with content_block_start
	thinking  strings.Builder
	signature strings.Builder
	data      string // redacted_thinking
	// server_tool_use and tool_search_tool_result: the block as it started, and the input
	// fragments of a server_tool_use.
	start      string
	partial    strings.Builder
	compaction *compactionParts // compaction: what its deltas brought
	stopped    bool
}

// event applies one stream event and returns the delta to yield, or nil when it carries nothing
// for the caller (ping, content_block_start of a text block, message_stop). The delta's Raw is
// left for the caller to fill, and ev is not retained, so events that yield nothing are never
// copied.
func (s *streamState) event(ev *sdk.MessageStreamEventUnion) (*chat.Response, error) {
	switch ev.Type {
	case "message_start":
		s.started = true
		u := &ev.Message.Usage
		s.usage = usage{
			input:       u.InputTokens,
			cacheRead:   u.CacheReadInputTokens,
			cacheCreate: u.CacheCreationInputTokens,
			output:      u.OutputTokens,
			thinking:    u.OutputTokensDetails.ThinkingTokens,
		}
		return &chat.Response{ID: ev.Message.ID, Model: ev.Message.Model, Usage: s.usage.chat()}, nil
	case "content_block_start":
		return s.blockStart(ev)
	case "content_block_delta":
		return s.blockDelta(ev)
	case "content_block_stop":
		return s.blockStop(ev)
	case "message_delta":
		return s.messageDelta(ev)
	case "message_stop":
		if !s.started {
			return nil, malformed("message_stop before message_start")
		}
		s.stopped = true
	}
	// ping, and event types newer than this package, carry nothing to map.
	return nil, nil
}

func (s *streamState) blockStart(ev *sdk.MessageStreamEventUnion) (*chat.Response, error) {
	if !s.started {
		return nil, malformed("content_block_start before message_start")
	}
	i := ev.Index
	if i < 0 || i >= maxBlocks {
		return nil, malformed("content block index %d out of range", i)
	}
	for int64(len(s.blocks)) <= i {
		s.blocks = append(s.blocks, nil)
	}
	if s.blocks[i] != nil {
		return nil, malformed("content block %d started twice", i)
	}
	b := &block{}
	s.blocks[i] = b
	cb := &ev.ContentBlock
	b.kind = cb.Type
	switch cb.Type {
	case "text":
		if cb.Text != "" {
			return s.text(cb.Text), nil
		}
	case "tool_use":
		b.toolIndex = s.tools
		s.tools++
		b.input = cb.JSON.Input.Raw()
		return s.call(chat.ToolCall{ID: cb.ID, Name: cb.Name, Index: b.toolIndex}), nil
	case "thinking":
		b.thinking.WriteString(cb.Thinking)
		b.signature.WriteString(cb.Signature)
	case "redacted_thinking":
		b.data = cb.Data
	case "server_tool_use", "tool_search_tool_result", "compaction":
		b.start = cb.RawJSON()
	}
	return nil, nil
}

func (s *streamState) blockDelta(ev *sdk.MessageStreamEventUnion) (*chat.Response, error) {
	b, err := s.open(ev.Index)
	if err != nil {
		return nil, err
	}
	d := &ev.Delta
	switch d.Type {
	case "text_delta":
		if b.kind == "text" && d.Text != "" {
			return s.text(d.Text), nil
		}
	case "input_json_delta":
		// The first fragment is usually empty, and a call without arguments sends only that.
		if b.kind == "tool_use" && d.PartialJSON != "" {
			b.hasArgs = true
			return s.call(chat.ToolCall{Index: b.toolIndex, Arguments: d.PartialJSON}), nil
		}
		if b.kind == "server_tool_use" {
			b.partial.WriteString(d.PartialJSON)
		}
	case "thinking_delta":
		b.thinking.WriteString(d.Thinking)
	case "signature_delta":
		b.signature.WriteString(d.Signature)
	case "compaction_delta":
		if b.kind == "compaction" {
			return nil, b.compactionDelta(ev.RawJSON())
		}
	}
	return nil, nil
}

// blockStop ends a block, returning what it holds whole: the arguments of a call sent without
// fragments, reasoning, a server tool's block.
func (s *streamState) blockStop(ev *sdk.MessageStreamEventUnion) (*chat.Response, error) {
	b, err := s.open(ev.Index)
	if err != nil {
		return nil, err
	}
	b.stopped = true
	switch b.kind {
	case "tool_use":
		if !b.hasArgs {
			args, err := wire.CompactObject([]byte(b.input))
			if err != nil {
				return nil, malformed("tool_use %d input: %v", ev.Index, err)
			}
			return s.call(chat.ToolCall{Index: b.toolIndex, Arguments: args}), nil
		}
	case "thinking":
		r := chat.Reasoning{Provider: ProviderName, Text: b.thinking.String(), Signature: b.signature.String()}
		return s.reasoning(r), nil
	case "redacted_thinking":
		return s.reasoning(chat.Reasoning{Provider: ProviderName, Encrypted: b.data}), nil
	case "server_tool_use", "tool_search_tool_result":
		return s.serverTool(ev.Index, b)
	case "compaction":
		return s.compactionStop(ev.Index, b)
	}
	return nil, nil
}

// messageDelta updates the usage, each field only when present, and reports the finish reason.
func (s *streamState) messageDelta(ev *sdk.MessageStreamEventUnion) (*chat.Response, error) {
	if !s.started {
		return nil, malformed("message_delta before message_start")
	}
	u := &ev.Usage
	s.usage.output = u.OutputTokens
	if u.JSON.InputTokens.Valid() {
		s.usage.input = u.InputTokens
	}
	if u.JSON.CacheReadInputTokens.Valid() {
		s.usage.cacheRead = u.CacheReadInputTokens
	}
	if u.JSON.CacheCreationInputTokens.Valid() {
		s.usage.cacheCreate = u.CacheCreationInputTokens
	}
	if u.JSON.OutputTokensDetails.Valid() {
		s.usage.thinking = u.OutputTokensDetails.ThinkingTokens
	}
	gen := chat.Generation{Message: chat.Message{Role: chat.RoleAssistant}, FinishReason: finishReason(ev.Delta.StopReason)}
	return &chat.Response{Generations: []chat.Generation{gen}, Usage: s.usage.chat()}, nil
}

// open returns the started, not yet stopped block at index i.
func (s *streamState) open(i int64) (*block, error) {
	if i < 0 || i >= int64(len(s.blocks)) || s.blocks[i] == nil {
		return nil, malformed("event for content block %d, which has not started", i)
	}
	b := s.blocks[i]
	if b.stopped {
		return nil, malformed("event for content block %d after its content_block_stop", i)
	}
	return b, nil
}

func (s *streamState) text(t string) *chat.Response {
	return chat.Delta(0, chat.Message{Role: chat.RoleAssistant, Content: t}, "")
}

func (s *streamState) call(c chat.ToolCall) *chat.Response {
	return chat.ToolCallDelta(0, c)
}

// serverTool maps a complete tool-search block; other server tools' blocks yield nothing.
func (s *streamState) serverTool(i int64, b *block) (*chat.Response, error) {
	raw, input := b.start, json.RawMessage(nil)
	if b.kind == "server_tool_use" && b.partial.Len() > 0 {
		var err error
		input = json.RawMessage(b.partial.String())
		if raw, err = withInput(b.start, input); err != nil {
			return nil, malformed("server_tool_use %d input: %v", i, err)
		}
	}
	var head struct {
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal([]byte(raw), &head); err != nil {
		return nil, malformed("%s %d: %v", b.kind, i, err)
	}
	st, ok, err := serverTool(b.kind, head.ID, head.Name, head.Input, raw)
	if err != nil {
		return nil, malformed("%v", err)
	}
	if !ok {
		return nil, nil
	}
	if !st.Result {
		s.usage.searches++
	}
	return chat.Delta(0, chat.Message{Role: chat.RoleAssistant, ServerTools: []chat.ServerTool{st}}, ""), nil
}

func (s *streamState) reasoning(r chat.Reasoning) *chat.Response {
	return chat.Delta(0, chat.Message{Role: chat.RoleAssistant, Reasoning: []chat.Reasoning{r}}, "")
}

// finish reports how the stream ended: the transport's or API's error, or ErrIncompleteStream
// when message_stop never came.
func (s *streamState) finish(ctx context.Context, err error) error {
	return wire.StreamEnd(ctx, err, s.stopped, wrapError, ErrIncompleteStream)
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("anthropic: malformed stream: "+format, args...)
}
