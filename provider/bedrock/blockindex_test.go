package bedrock

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/replay"
)

// A block event without its index is malformed: read as block 0, it would join another block's
// text or arguments unseen.
func TestStreamBlockWithoutIndex(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   types.ConverseStreamOutput
	}{
		{"contentBlockStart", &types.ConverseStreamOutputMemberContentBlockStart{Value: types.ContentBlockStartEvent{
			Start: &types.ContentBlockStartMemberToolUse{Value: types.ToolUseBlockStart{}}}}},
		{"contentBlockDelta", &types.ConverseStreamOutputMemberContentBlockDelta{Value: types.ContentBlockDeltaEvent{
			Delta: &types.ContentBlockDeltaMemberText{Value: "y"}}}},
		{"contentBlockStop", &types.ConverseStreamOutputMemberContentBlockStop{Value: types.ContentBlockStopEvent{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t, streamExchange(frames(t, evStart(), evText(0, "x"), tc.ev,
				evMessageStop("end_turn"), evMetadata(tokens(1, 1)))))
			resp, err := chat.Aggregate(newTestModel(t, srv.URL, Config{}).Stream(context.Background(), weatherPrompt()))
			if want := "malformed stream: " + tc.name + " without a content block index"; err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("response %+v, error %v; want an error containing %q", resp, err, want)
			}
		})
	}
}
