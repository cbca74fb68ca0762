package bedrock

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/provider/internal/toolname"
	"github.com/wield-ai/wield/provider/internal/wire"
)

// maxAnswerImageBytes bounds an image streamed in an answer, so a corrupt stream cannot grow one
// without limit.
const maxAnswerImageBytes = 64 << 20

// maxBlocks bounds the content-block index a stream may use, so a corrupt index cannot make the
// decoder allocate without limit.
const maxBlocks = 1 << 16

// streamState turns ConverseStream events into chat.Response deltas.
type streamState struct {
	names *toolname.Map
	// id and model are reported with the first chunk.
	id, model string

	blocks   []*block
	tools    int
	started  bool
	stopped  bool // messageStop arrived
	metadata bool // metadata (usage) arrived
}

// block is the state of one content block. Text blocks have no contentBlockStart: their first
// delta starts them.
type block struct {
	kind      string            // "text", "toolUse", "reasoning" or "image"
	format    types.ImageFormat // image: the format its start named
	toolIndex int               // toolUse: the call's position among the message's calls
	hasArgs   bool              // toolUse: a non-empty input fragment arrived
	text      strings.Builder
	signature string
	redacted  []byte
	image     []byte // image: the bytes so far
	stopped   bool
}

// event applies one stream event and returns the delta to yield, or nil when it carries nothing
// for the caller.
func (s *streamState) event(ev types.ConverseStreamOutput) (*chat.Response, error) {
	switch ev := ev.(type) {
	case *types.ConverseStreamOutputMemberMessageStart:
		if s.started {
			return nil, malformed("second messageStart")
		}
		s.started = true
		return &chat.Response{ID: s.id, Model: s.model}, nil

	case *types.ConverseStreamOutputMemberContentBlockStart:
		return s.blockStart(ev.Value)
	case *types.ConverseStreamOutputMemberContentBlockDelta:
		return s.blockDelta(ev.Value)
	case *types.ConverseStreamOutputMemberContentBlockStop:
		return s.blockStop(ev.Value)

	case *types.ConverseStreamOutputMemberMessageStop:
		if !s.started {
			return nil, malformed("messageStop before messageStart")
		}
		s.stopped = true
		gen := chat.Generation{Message: chat.Message{Role: chat.RoleAssistant}, FinishReason: finishReason(ev.Value.StopReason)}
		return &chat.Response{Generations: []chat.Generation{gen}}, nil

	case *types.ConverseStreamOutputMemberMetadata:
		if !s.stopped {
			return nil, malformed("metadata before messageStop")
		}
		s.metadata = true
		return &chat.Response{Usage: usage(ev.Value.Usage)}, nil
	}
	// Event types newer than this package carry nothing to map.
	return nil, nil
}

func (s *streamState) blockStart(v types.ContentBlockStartEvent) (*chat.Response, error) {
	b, i, err := s.block("contentBlockStart", v.ContentBlockIndex, true)
	if err != nil {
		return nil, err
	}
	if tu, ok := v.Start.(*types.ContentBlockStartMemberToolUse); ok {
		b.kind = "toolUse"
		b.toolIndex = s.tools
		s.tools++
		return s.call(chat.ToolCall{
			ID: aws.ToString(tu.Value.ToolUseId), Name: s.names.User(aws.ToString(tu.Value.Name)), Index: b.toolIndex,
		}), nil
	}
	if img, ok := v.Start.(*types.ContentBlockStartMemberImage); ok {
		b.kind, b.format = "image", img.Value.Format
		if _, ok := mediaType(b.format); !ok {
			return nil, malformed("image of unknown format %q in content block %d", b.format, i)
		}
	}
	// Other starts (tool results of server tools) carry nothing wield maps.
	return nil, nil
}

func (s *streamState) blockDelta(v types.ContentBlockDeltaEvent) (*chat.Response, error) {
	b, i, err := s.block("contentBlockDelta", v.ContentBlockIndex, false)
	if err != nil {
		return nil, err
	}
	switch d := v.Delta.(type) {
	case *types.ContentBlockDeltaMemberText:
		if err := b.is("text", i); err != nil {
			return nil, err
		}
		if d.Value != "" {
			return s.text(d.Value), nil
		}
	case *types.ContentBlockDeltaMemberToolUse:
		if b.kind != "toolUse" {
			return nil, malformed("toolUse input for content block %d, which is not a toolUse", i)
		}
		// The first fragment is often empty, and a call without arguments sends only that.
		if in := aws.ToString(d.Value.Input); in != "" {
			b.hasArgs = true
			return s.call(chat.ToolCall{Index: b.toolIndex, Arguments: in}), nil
		}
	case *types.ContentBlockDeltaMemberImage:
		if b.kind != "image" {
			return nil, malformed("image data for content block %d, which is not an image", i)
		}
		src, ok := d.Value.Source.(*types.ImageSourceMemberBytes)
		if !ok {
			return nil, malformed("image data for content block %d is a %T, not bytes", i, d.Value.Source)
		}
		if len(b.image)+len(src.Value) > maxAnswerImageBytes {
			return nil, malformed("image in content block %d passes %s", i, content.FormatSize(maxAnswerImageBytes))
		}
		b.image = append(b.image, src.Value...)
	case *types.ContentBlockDeltaMemberReasoningContent:
		if err := b.is("reasoning", i); err != nil {
			return nil, err
		}
		switch r := d.Value.(type) {
		case *types.ReasoningContentBlockDeltaMemberText:
			b.text.WriteString(r.Value)
		case *types.ReasoningContentBlockDeltaMemberSignature:
			b.signature += r.Value
		case *types.ReasoningContentBlockDeltaMemberRedactedContent:
			b.redacted = append(b.redacted, r.Value...)
		}
	}
	return nil, nil
}

// blockStop ends a block, returning what it holds whole: the arguments of a call sent without
// fragments, reasoning, an image.
func (s *streamState) blockStop(v types.ContentBlockStopEvent) (*chat.Response, error) {
	b, i, err := s.block("contentBlockStop", v.ContentBlockIndex, false)
	if err != nil {
		return nil, err
	}
	b.stopped = true
	switch b.kind {
	case "toolUse":
		if !b.hasArgs {
			return s.call(chat.ToolCall{Index: b.toolIndex, Arguments: "{}"}), nil
		}
	case "reasoning":
		r := chat.Reasoning{Provider: ProviderName, Text: b.text.String(), Signature: b.signature}
		if len(b.redacted) > 0 {
			r = chat.Reasoning{Provider: ProviderName, Encrypted: base64.StdEncoding.EncodeToString(b.redacted)}
		}
		return chat.Delta(0, chat.Message{Role: chat.RoleAssistant, Reasoning: []chat.Reasoning{r}}, ""), nil
	case "image":
		if len(b.image) == 0 {
			return nil, malformed("image in content block %d has no data", i)
		}
		mt, _ := mediaType(b.format)
		return chat.Delta(0, chat.Message{Role: chat.RoleAssistant, Parts: []content.Part{content.Image(b.image, mt)}}, ""), nil
	}
	return nil, nil
}

// block returns the block at index that event (after messageStart, as every block event must
// be) is about, and the index: a new one for a contentBlockStart, else the open one, started by
// this event if it is a text or reasoning delta.
func (s *streamState) block(event string, index *int32, start bool) (b *block, i int32, err error) {
	if !s.started {
		return nil, 0, malformed("%s before messageStart", event)
	}
	// Converse requires the index: without it the event would land on block 0 unseen.
	if index == nil {
		return nil, 0, malformed("%s without a content block index", event)
	}
	if i = *index; i < 0 || i >= maxBlocks {
		return nil, i, malformed("content block index %d out of range", i)
	}
	for int32(len(s.blocks)) <= i {
		s.blocks = append(s.blocks, nil)
	}
	b = s.blocks[i]
	switch {
	case start && b != nil:
		return nil, i, malformed("content block %d started twice", i)
	case b == nil:
		b = &block{}
		s.blocks[i] = b
	case b.stopped:
		return nil, i, malformed("event for content block %d after its contentBlockStop", i)
	}
	return b, i, nil
}

// is gives a block started by a delta its kind, and refuses a delta of another kind.
func (b *block) is(kind string, i int32) error {
	if b.kind == "" {
		b.kind = kind
	}
	if b.kind != kind {
		return malformed("%s delta for content block %d, which is a %s block", kind, i, b.kind)
	}
	return nil
}

func (s *streamState) text(t string) *chat.Response {
	return chat.Delta(0, chat.Message{Role: chat.RoleAssistant, Content: t}, "")
}

func (s *streamState) call(c chat.ToolCall) *chat.Response {
	return chat.ToolCallDelta(0, c)
}

// finish reports how the stream ended: the transport's or Bedrock's error, or ErrIncompleteStream
// when messageStop or metadata never came.
func (s *streamState) finish(ctx context.Context, err error) error {
	return wire.StreamEnd(ctx, err, s.stopped && s.metadata, wrapError, ErrIncompleteStream)
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("bedrock: malformed stream: "+format, args...)
}
