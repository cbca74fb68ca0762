package bedrock

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/schemas"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/transport/http/protocol/restjson1"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/providertest/awstest"
	"github.com/wield-ai/wield/internal/replay"
)

// newTestModel returns a Model talking to url with fixed credentials and waits between retries
// of at most a millisecond.
func newTestModel(t testing.TB, url string, cfg Config) *Model {
	t.Helper()
	cfg.BaseURL = url
	if cfg.AWS == nil && cfg.APIKey == "" {
		cfg.AWS = awstest.Config()
	}
	if cfg.Model == "" {
		cfg.Model = "us.amazon.nova-2-lite-v1:0"
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = time.Millisecond
	}
	m, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// protocol is the AWS SDK's own restJson1 protocol, whose serializers write the test servers'
// answers: event-stream frames and JSON bodies in Bedrock's wire format.
var protocol = restjson1.New(nil)

// frames encodes ConverseStream events as the event-stream frames Bedrock sends, with the SDK's
// serializer.
func frames(t testing.TB, events ...types.ConverseStreamOutput) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, ev := range events {
		var variant *smithy.Schema
		var v smithy.Serializable
		switch e := ev.(type) {
		case *types.ConverseStreamOutputMemberMessageStart:
			variant, v = schemas.ConverseStreamOutput_messageStart, &e.Value
		case *types.ConverseStreamOutputMemberContentBlockStart:
			variant, v = schemas.ConverseStreamOutput_contentBlockStart, &e.Value
		case *types.ConverseStreamOutputMemberContentBlockDelta:
			variant, v = schemas.ConverseStreamOutput_contentBlockDelta, &e.Value
		case *types.ConverseStreamOutputMemberContentBlockStop:
			variant, v = schemas.ConverseStreamOutput_contentBlockStop, &e.Value
		case *types.ConverseStreamOutputMemberMessageStop:
			variant, v = schemas.ConverseStreamOutput_messageStop, &e.Value
		case *types.ConverseStreamOutputMemberMetadata:
			variant, v = schemas.ConverseStreamOutput_metadata, &e.Value
		default:
			t.Fatalf("event %T", ev)
		}
		if err := protocol.SerializeEventMessage(schemas.ConverseStreamOutput, variant, v, &buf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// outputBody is the JSON body of a Converse answer, written by the SDK's serializer: the
// payload of the one frame it encodes the output into.
func outputBody(t testing.TB, out *bedrockruntime.ConverseOutput) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := protocol.SerializeEventMessage(schemas.ConverseResponse, schemas.ConverseStreamOutput_metadata, out, &buf); err != nil {
		t.Fatal(err)
	}
	msg, err := eventstream.NewDecoder().Decode(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	return msg.Payload
}

// streamExchange serves body as a ConverseStream answer.
func streamExchange(body []byte) replay.Exchange {
	return replay.Exchange{Header: http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}}, Body: body}
}

// jsonExchange serves body as a Converse answer.
func jsonExchange(body []byte) replay.Exchange {
	return replay.Exchange{Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
}

// decodeEvents reads a recorded ConverseStream body on its own terms, without the SDK's
// deserializers: each frame's :event-type and its JSON payload.
func decodeEvents(t testing.TB, body []byte) (kinds []string, payloads []map[string]any) {
	t.Helper()
	dec := eventstream.NewDecoder()
	r := bytes.NewReader(body)
	for r.Len() > 0 {
		msg, err := dec.Decode(r, nil)
		if err != nil {
			t.Fatalf("event stream: %v", err)
		}
		kind := msg.Headers.Get(":event-type")
		if kind == nil {
			t.Fatal("frame without :event-type")
		}
		var p map[string]any
		if err := json.Unmarshal(msg.Payload, &p); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, kind.String())
		payloads = append(payloads, p)
	}
	return kinds, payloads
}

// expected is what a recorded answer says, read with encoding/json.
type expected struct {
	text       string
	calls      []chat.ToolCall
	stopReason string
	usage      chat.Usage
}

// usageOf reads a recorded usage object.
func usageOf(u map[string]any) chat.Usage {
	n := func(k string) int {
		f, _ := u[k].(float64)
		return int(f)
	}
	in := n("inputTokens") + n("cacheReadInputTokens") + n("cacheWriteInputTokens")
	return chat.Usage{
		InputTokens: in, OutputTokens: n("outputTokens"), TotalTokens: in + n("outputTokens"),
		CachedInputTokens: n("cacheReadInputTokens"), CacheWriteInputTokens: n("cacheWriteInputTokens"),
	}
}

// expectRecorded reads a recorded answer: a Converse JSON body or a ConverseStream event stream.
func expectRecorded(t testing.TB, ex replay.Exchange) expected {
	t.Helper()
	var e expected
	if ex.Header.Get("Content-Type") == "application/vnd.amazon.eventstream" {
		kinds, payloads := decodeEvents(t, ex.Body)
		args := map[int]string{}
		for i, kind := range kinds {
			p := payloads[i]
			idx, _ := p["contentBlockIndex"].(float64)
			switch kind {
			case "contentBlockStart":
				if tu, ok := p["start"].(map[string]any)["toolUse"].(map[string]any); ok {
					e.calls = append(e.calls, chat.ToolCall{ID: tu["toolUseId"].(string), Name: tu["name"].(string), Index: len(e.calls)})
					args[len(e.calls)-1] = ""
				}
			case "contentBlockDelta":
				d := p["delta"].(map[string]any)
				if s, ok := d["text"].(string); ok {
					e.text += s
				}
				if tu, ok := d["toolUse"].(map[string]any); ok {
					args[len(e.calls)-1] += tu["input"].(string)
				}
				_ = idx
			case "messageStop":
				e.stopReason = p["stopReason"].(string)
			case "metadata":
				e.usage = usageOf(p["usage"].(map[string]any))
			}
		}
		for i := range e.calls {
			e.calls[i].Arguments = args[i]
		}
		return e
	}
	var out struct {
		Output struct {
			Message struct {
				Content []struct {
					Text    *string `json:"text"`
					ToolUse *struct {
						ToolUseID string          `json:"toolUseId"`
						Name      string          `json:"name"`
						Input     json.RawMessage `json:"input"`
					} `json:"toolUse"`
				} `json:"content"`
			} `json:"message"`
		} `json:"output"`
		StopReason string         `json:"stopReason"`
		Usage      map[string]any `json:"usage"`
	}
	if err := json.Unmarshal(ex.Body, &out); err != nil {
		t.Fatalf("recorded answer: %v", err)
	}
	for _, b := range out.Output.Message.Content {
		if b.Text != nil {
			e.text += *b.Text
		}
		if tu := b.ToolUse; tu != nil {
			e.calls = append(e.calls, chat.ToolCall{ID: tu.ToolUseID, Name: tu.Name, Arguments: string(tu.Input), Index: len(e.calls)})
		}
	}
	e.stopReason = out.StopReason
	e.usage = usageOf(out.Usage)
	return e
}

var stopReasons = map[string]chat.FinishReason{
	"end_turn": chat.FinishStop, "stop_sequence": chat.FinishStop, "max_tokens": chat.FinishLength,
	"tool_use": chat.FinishToolCalls, "guardrail_intervened": chat.FinishContentFilter, "content_filtered": chat.FinishContentFilter,
}

// checkResponse asserts that a response carries what the recording says.
func checkResponse(t testing.TB, got *chat.Response, want expected) {
	t.Helper()
	if len(got.Generations) != 1 {
		t.Fatalf("%d generations, want 1", len(got.Generations))
	}
	g := got.Generations[0]
	if g.Message.Role != chat.RoleAssistant || g.Message.Content != want.text {
		t.Errorf("message = %q %q, want text %q", g.Message.Role, g.Message.Content, want.text)
	}
	providertest.SameCalls(t, g.Message.ToolCalls, want.calls)
	if wantFinish := stopReasons[want.stopReason]; g.FinishReason != wantFinish {
		t.Errorf("finish = %q, want %q (stopReason %q)", g.FinishReason, wantFinish, want.stopReason)
	}
	if got.Usage != want.usage {
		t.Errorf("usage = %+v, want %+v", got.Usage, want.usage)
	}
}

// checkBody asserts that a request body means the same JSON as want.
func checkBody(t testing.TB, sent []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(sent, &g); err != nil {
		t.Fatalf("request body: %v\n%s", err, sent)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("wanted body: %v\n%s", err, want)
	}
	providertest.Same(t, "the request sent", g, w)
}
