package bedrock

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/providertest/awstest"
	"github.com/wield-ai/wield/internal/replay"
)

// variantAnswer serves testdata/variants/name: a Converse body (.json) as it is, or a
// ConverseStream answer (.events, one event or exception a line) encoded as event-stream frames.
func variantAnswer(t testing.TB, name string) replay.Exchange {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "variants", name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".json") {
		return replay.Exchange{Header: http.Header{"Content-Type": {"application/json"}}, Body: data}
	}
	var body bytes.Buffer
	enc := eventstream.NewEncoder()
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var line struct {
			Event, Exception string
			Data             json.RawMessage
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		msg := eventstream.Message{Payload: line.Data}
		if line.Exception != "" {
			msg.Headers.Set(":message-type", eventstream.StringValue("exception"))
			msg.Headers.Set(":exception-type", eventstream.StringValue(line.Exception))
		} else {
			msg.Headers.Set(":message-type", eventstream.StringValue("event"))
			msg.Headers.Set(":event-type", eventstream.StringValue(line.Event))
		}
		msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
		if err := enc.Encode(&body, msg); err != nil {
			t.Fatal(err)
		}
	}
	return replay.Exchange{Header: http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}}, Body: body.Bytes()}
}

// TestSpecVariants: answers shaped as the Converse API reference documents them but absent from
// the recordings (testdata/variants, written by hand) give the text, calls, reasoning, finish
// reason and usage they carry, or the error they report.
func TestSpecVariants(t *testing.T) {
	redacted := base64.StdEncoding.EncodeToString([]byte{0xde, 0xad, 0xbe, 0xef})
	cited := chat.Generation{FinishReason: chat.FinishStop, Message: chat.Message{Role: chat.RoleAssistant,
		Content: "According to the report, revenue grew 12% in 2024. Costs were flat."}}
	blocked := chat.Generation{FinishReason: chat.FinishContentFilter, Message: chat.Message{Role: chat.RoleAssistant,
		Content: "Sorry, I cannot answer that."}}
	reasoned := chat.Generation{FinishReason: chat.FinishToolCalls, Message: chat.Message{Role: chat.RoleAssistant,
		Reasoning: []chat.Reasoning{
			{Provider: ProviderName, Text: "The user asks for the weather.", Signature: "c2lnLTE="},
			{Provider: ProviderName, Encrypted: redacted},
		},
		ToolCalls: []chat.ToolCall{{ID: "tooluse_1", Name: "weather", Arguments: `{"location":"Oslo"}`}}}}
	usage := func(in, out int) chat.Usage {
		return chat.Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out}
	}
	for _, tc := range []struct {
		file  string
		want  chat.Generation
		usage chat.Usage
		// status and kind, when set, are those of the *chat.ProviderError the answer must end in,
		// after the text "Hel".
		status int
		kind   string
	}{
		// The cited part of an answer comes in a citationsContent block, whose text is the
		// answer's as much as a text block's.
		{file: "converse-citations.json", want: cited, usage: usage(120, 18)},
		// A stream sends the same text as text deltas, with citation deltas in its block.
		{file: "stream-citations.events", want: cited, usage: usage(120, 18)},
		{file: "converse-guardrail.json", want: blocked, usage: usage(14, 0)},
		{file: "stream-guardrail.events", want: blocked, usage: usage(14, 0)},
		{file: "converse-reasoning.json", want: reasoned, usage: usage(30, 25)},
		{file: "stream-reasoning.events", want: reasoned, usage: usage(30, 25)},
		{file: "stream-throttled.events", status: http.StatusTooManyRequests, kind: "throttlingException"},
		{file: "stream-model-error.events", status: http.StatusFailedDependency, kind: "modelStreamErrorException"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			srv := replay.NewServer(t, variantAnswer(t, tc.file))
			m, err := New(context.Background(), Config{Model: "us.anthropic.claude-sonnet-4-5-v1:0", BaseURL: srv.URL,
				AWS: awstest.Config(), MaxAttempts: 1, MaxBackoff: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			p := &chat.Prompt{Messages: []chat.Message{chat.User("What does the report say?")}}
			got, err := providertest.Run(context.Background(), m, p, strings.HasSuffix(tc.file, ".events"))
			if tc.status != 0 {
				providertest.VariantError(t, got, err, fmt.Sprintf("a %s with status %d", tc.kind, tc.status), func(pe *chat.ProviderError) bool {
					return pe.StatusCode == tc.status && strings.EqualFold(pe.Type, tc.kind) && pe.Message != ""
				})
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			providertest.Same(t, "the generation", providertest.OneGeneration(t, got), tc.want)
			if got.Usage != tc.usage {
				t.Errorf("usage %+v, want %+v", got.Usage, tc.usage)
			}
		})
	}
}
