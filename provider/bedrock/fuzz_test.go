package bedrock

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider/internal/toolname"
	"github.com/wield-ai/wield/tool"
)

// FuzzStreamEvents feeds arbitrary sequences of ConverseStream events (three bytes each: kind,
// block index, argument) to the stream mapping and the aggregator: whatever arrives, the result
// is deltas or an error, never a panic.
func FuzzStreamEvents(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 1, 1, 0, 2, 4, 0, 0, 2, 1, 0, 3, 1, 1, 3, 1, 2, 4, 1, 0, 5, 0, 1, 6, 0, 0})
	f.Add([]byte{0, 0, 0, 7, 0, 0, 7, 0, 1, 4, 0, 0, 5, 0, 0, 6, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		st := streamState{names: toolname.New(nameRule, "get.weather")}
		var agg chat.Aggregator
		texts := []string{"", "a", `{"x":`, `1}`}
		for i := 0; i+2 < len(data); i += 3 {
			idx, arg := int32(data[i+1]%8), texts[data[i+2]%4]
			var ev types.ConverseStreamOutput
			switch data[i] % 8 {
			case 0:
				ev = evStart()
			case 1:
				ev = evText(idx, arg)
			case 2:
				ev = evToolStart(idx, "id", "get_weather")
			case 3:
				ev = evToolInput(idx, arg)
			case 4:
				ev = evStop(idx)
			case 5:
				ev = evMessageStop(types.StopReasonToolUse)
			case 6:
				ev = evMetadata(tokens(int32(data[i+2]), 1))
			case 7:
				ev = evReasoning(idx, &types.ReasoningContentBlockDeltaMemberText{Value: arg})
			}
			chunk, err := st.event(ev)
			if err != nil {
				return
			}
			if chunk != nil {
				agg.Add(chunk)
			}
		}
		_ = st.finish(context.Background(), nil)
		_ = agg.Response()
	})
}

// FuzzRequest sends arbitrary tool schemas and call arguments through the request mapping:
// whatever they are, the result is an error or a request whose documents encode to JSON, never
// a panic or a document the SDK would drop.
func FuzzRequest(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"number"}}}`, `{"a":15.0}`)
	f.Add(`{"type":["object","null"]}`, `{"a":[1,{"b":null}],"c":1e400}`)
	f.Add(`true`, ``)
	f.Add(`{"type":"string"}`, `[1]`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		m := newTestModel(t, "http://bedrock.invalid", Config{})
		p := &chat.Prompt{
			Messages: []chat.Message{chat.User("hi"), chat.Assistant("", chat.ToolCall{ID: "1", Name: "f", Arguments: args})},
			Options:  &chat.Options{Tools: []tool.Tool{providertest.RawTool{Name: "f", InputSchema: json.RawMessage(schema)}}},
		}
		req, err := m.request(p)
		if err != nil {
			return
		}
		spec := req.input.ToolConfig.Tools[0].(*types.ToolMemberToolSpec).Value
		if data, err := spec.InputSchema.(*types.ToolInputSchemaMemberJson).Value.MarshalSmithyDocument(); err != nil || !json.Valid(data) {
			t.Fatalf("schema %q encodes to %q (%v)", schema, data, err)
		}
		use := req.input.Messages[1].Content[0].(*types.ContentBlockMemberToolUse).Value
		if data, err := use.Input.MarshalSmithyDocument(); err != nil || !json.Valid(data) {
			t.Fatalf("arguments %q encode to %q (%v)", args, data, err)
		}
	})
}
