package openai

import (
	"context"
	"fmt"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/tool"
)

// variantTools are the tools of the spec-variant prompts: weather, whose one property is
// required, and forecast, whose unit is optional, so that in strict mode it is sent nullable and
// the null the model writes for it must be dropped.
func variantTools() []tool.Tool {
	return []tool.Tool{
		newTool("weather", "Current weather", `{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`),
		newTool("forecast", "Weather forecast", `{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string","enum":["C","F"]}},"required":["location"]}`),
	}
}

// TestSpecVariants: answers shaped as OpenAI's API description allows but absent from the
// recordings (testdata/variants, written by hand from the spec) give the text, calls, finish
// reason and usage they carry, or the error they report.
func TestSpecVariants(t *testing.T) {
	refusal := "I'm sorry, I can't help with that."
	gen := func(finish chat.FinishReason, text string, calls ...chat.ToolCall) chat.Generation {
		for i := range calls {
			calls[i].Index = i
		}
		return chat.Generation{FinishReason: finish, Message: chat.Message{Role: chat.RoleAssistant, Content: text, ToolCalls: calls}}
	}
	used := func(in, out int) chat.Usage { return chat.Usage{InputTokens: in, OutputTokens: out} }
	oslo := chat.ToolCall{ID: "call_a", Name: "weather", Arguments: `{"location":"Oslo"}`}
	bergen := chat.ToolCall{ID: "call_b", Name: "weather", Arguments: `{"location":"Bergen"}`}
	forecast := chat.ToolCall{ID: "call_a", Name: "forecast", Arguments: `{"location":"Oslo"}`}
	for _, tc := range []struct {
		file      string
		responses bool // the Responses API; else Chat Completions
		strict    bool
		want      chat.Generation
		usage     chat.Usage
		// errText, when set, is what the error the answer ends in must say, after the text "Hel".
		errText string
	}{
		// A refusal is the answer's text: the user reads why there is no other.
		{file: "chat-refusal.json", want: gen(chat.FinishStop, refusal), usage: used(12, 9)},
		{file: "chat-refusal.sse", want: gen(chat.FinishStop, refusal), usage: used(12, 9)},
		{file: "chat-tool-calls-null-content.json", want: gen(chat.FinishToolCalls, "", oslo, bergen), usage: used(40, 30)},
		// Every field of a tool-call delta is optional: the id and name may come after the first
		// argument fragment. The arguments of a strict tool with an optional property still have
		// the null standing for it dropped; those of another tool pass on once its name comes.
		{file: "chat-late-name.sse", strict: true, want: gen(chat.FinishToolCalls, "", forecast, bergen), usage: used(50, 20)},
		{file: "chat-late-name.sse", want: gen(chat.FinishToolCalls, "",
			chat.ToolCall{ID: "call_a", Name: "forecast", Arguments: `{"location":"Oslo","unit":null}`}, bergen), usage: used(50, 20)},
		// Servers that repeat the id and name in every delta of a call.
		{file: "chat-repeated-id.sse", strict: true, want: gen(chat.FinishToolCalls, "", forecast, bergen), usage: used(50, 20)},
		// The deprecated function_call (one call, no id) is still a tool call.
		{file: "chat-function-call.json", want: gen(chat.FinishToolCalls, "", chat.ToolCall{Name: "weather", Arguments: `{"location":"Oslo"}`}), usage: used(20, 10)},
		{file: "chat-function-call.sse", want: gen(chat.FinishToolCalls, "", chat.ToolCall{Name: "weather", Arguments: `{"location":"Oslo"}`}), usage: used(20, 10)},
		{file: "chat-logprobs-length.sse", want: gen(chat.FinishLength, "Once upon"), usage: used(8, 2)},
		{file: "chat-content-filter.json", want: gen(chat.FinishContentFilter, ""), usage: used(15, 0)},
		{file: "chat-annotations.json", want: gen(chat.FinishStop, "Oslo is cold today ([yr.no](https://www.yr.no/))."), usage: used(10, 12)},
		{file: "chat-stream-error.sse", errText: "The server had an error while processing your request."},
		{file: "responses-refusal.json", responses: true, want: gen(chat.FinishStop, refusal), usage: used(12, 9)},
		{file: "responses-refusal.sse", responses: true, want: gen(chat.FinishStop, refusal), usage: used(12, 9)},
		{file: "responses-incomplete-filter.json", responses: true, want: gen(chat.FinishContentFilter, "Part of"), usage: used(12, 2)},
		{file: "responses-incomplete.sse", responses: true, want: gen(chat.FinishLength, "Once upon"), usage: used(8, 2)},
		{file: "responses-error.sse", responses: true, errText: "The server had an error while processing your request."},
	} {
		name := tc.file
		if tc.strict {
			name += "/strict"
		}
		t.Run(name, func(t *testing.T) {
			url, stream := providertest.Variant(t, tc.file)
			cfg := Config{BaseURL: url, APIKey: "test-key", Model: "gpt-4o", Transport: provider.Transport{MaxRetries: -1}, StrictTools: tc.strict}
			var m chat.Model
			var err error
			if tc.responses {
				m, err = NewResponses(cfg)
			} else {
				m, err = New(cfg)
			}
			if err != nil {
				t.Fatal(err)
			}
			p := &chat.Prompt{Messages: []chat.Message{chat.User("Weather in Oslo?")}, Options: &chat.Options{Tools: variantTools()}}
			got, err := providertest.Run(context.Background(), m, p, stream)
			if tc.errText != "" {
				providertest.VariantError(t, got, err, fmt.Sprintf("a temporary *ResponseError saying %q", tc.errText), func(re *ResponseError) bool {
					return re.Message == tc.errText && re.Code == "server_error" && re.Temporary()
				})
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			providertest.Same(t, "the generation", providertest.OneGeneration(t, got), tc.want)
			if got.Usage.InputTokens != tc.usage.InputTokens || got.Usage.OutputTokens != tc.usage.OutputTokens {
				t.Errorf("usage %+v, want %+v", got.Usage, tc.usage)
			}
		})
	}
}
