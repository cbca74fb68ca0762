package bedrock

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/provider/internal/wire"
)

// response maps a whole Converse answer onto one generation: text and cited text joined, toolUse
// blocks as tool calls under the tools' own names, reasoning blocks as reasoning. Converse names
// no response, so ID is the AWS request id and Model the model the request named.
func (r *request) response(out *bedrockruntime.ConverseOutput) (*chat.Response, error) {
	msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return nil, fmt.Errorf("bedrock: malformed response: output is %T, not a message", out.Output)
	}
	res := chat.Message{Role: chat.RoleAssistant}
	var text strings.Builder
	addText := func(t string) {
		// Text goes in Content until an image comes, and after it in parts, in its place.
		if n := len(res.Parts); n == 0 {
			text.WriteString(t)
		} else if res.Parts[n-1].Kind == content.KindText {
			res.Parts[n-1].Text += t
		} else if t != "" {
			res.Parts = append(res.Parts, content.Text(t))
		}
	}
	for _, b := range msg.Value.Content {
		switch b := b.(type) {
		case *types.ContentBlockMemberText:
			addText(b.Value)
		case *types.ContentBlockMemberCitationsContent:
			// With citations enabled, the cited part of the answer comes in these blocks (the
			// citations themselves stay in Raw); a stream sends the same text as text deltas.
			for _, c := range b.Value.Content {
				if t, ok := c.(*types.CitationGeneratedContentMemberText); ok {
					addText(t.Value)
				}
			}
		case *types.ContentBlockMemberImage:
			src, ok := b.Value.Source.(*types.ImageSourceMemberBytes)
			mt, known := mediaType(b.Value.Format)
			if !ok || !known || len(src.Value) == 0 {
				return nil, fmt.Errorf("bedrock: malformed response: an image of format %q without bytes", b.Value.Format)
			}
			res.Parts = append(res.Parts, content.Image(src.Value, mt))
		case *types.ContentBlockMemberToolUse:
			args, err := documentJSON(b.Value.Input)
			if err != nil {
				return nil, fmt.Errorf("bedrock: toolUse %s (%s): %w", aws.ToString(b.Value.ToolUseId), aws.ToString(b.Value.Name), err)
			}
			res.ToolCalls = append(res.ToolCalls, chat.ToolCall{
				ID: aws.ToString(b.Value.ToolUseId), Name: r.names.User(aws.ToString(b.Value.Name)), Arguments: args, Index: len(res.ToolCalls),
			})
		case *types.ContentBlockMemberReasoningContent:
			if rs, ok := reasoning(b.Value); ok {
				res.Reasoning = append(res.Reasoning, rs)
			}
		}
		// Other blocks (guard content and the like) stay in Raw.
	}
	res.Content = text.String()
	id, _ := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata)
	return &chat.Response{
		ID:          id,
		Model:       aws.ToString(r.input.ModelId),
		Generations: []chat.Generation{{Message: res, FinishReason: finishReason(out.StopReason)}},
		Usage:       usage(out.Usage),
		Raw:         out,
	}, nil
}

// reasoning maps a reasoning block: text with its signature, or redacted content base64-encoded.
func reasoning(b types.ReasoningContentBlock) (chat.Reasoning, bool) {
	switch b := b.(type) {
	case *types.ReasoningContentBlockMemberReasoningText:
		return chat.Reasoning{Provider: ProviderName, Text: aws.ToString(b.Value.Text), Signature: aws.ToString(b.Value.Signature)}, true
	case *types.ReasoningContentBlockMemberRedactedContent:
		return chat.Reasoning{Provider: ProviderName, Encrypted: base64.StdEncoding.EncodeToString(b.Value)}, true
	}
	return chat.Reasoning{}, false
}

// documentJSON returns a toolUse input, which must be a JSON object, as compact JSON text; an
// absent input is "{}".
func documentJSON(doc document.Interface) (string, error) {
	if doc == nil {
		return "{}", nil
	}
	data, err := doc.MarshalSmithyDocument()
	if err != nil {
		return "", fmt.Errorf("input: %w", err)
	}
	return wire.CompactObject(data)
}

// finishReason normalises a stop reason; unknown values pass through.
func finishReason(r types.StopReason) chat.FinishReason {
	switch r {
	case types.StopReasonEndTurn, types.StopReasonStopSequence:
		return chat.FinishStop
	case types.StopReasonMaxTokens, types.StopReasonModelContextWindowExceeded:
		return chat.FinishLength
	case types.StopReasonToolUse:
		return chat.FinishToolCalls
	case types.StopReasonGuardrailIntervened, types.StopReasonContentFiltered:
		return chat.FinishContentFilter
	case types.StopReasonMalformedModelOutput, types.StopReasonMalformedToolUse:
		return chat.FinishError
	}
	return chat.FinishReason(r)
}

// usage maps Bedrock's token counts, where inputTokens excludes the cache reads and writes, onto
// wield's, where InputTokens counts all input.
func usage(u *types.TokenUsage) chat.Usage {
	if u == nil {
		return chat.Usage{}
	}
	read, write := int(aws.ToInt32(u.CacheReadInputTokens)), int(aws.ToInt32(u.CacheWriteInputTokens))
	in := int(aws.ToInt32(u.InputTokens)) + read + write
	out := int(aws.ToInt32(u.OutputTokens))
	return chat.Usage{
		InputTokens: in, OutputTokens: out, TotalTokens: in + out,
		CachedInputTokens: read, CacheWriteInputTokens: write,
	}
}
