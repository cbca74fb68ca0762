package gemini_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider/gemini"
	"github.com/wield-ai/wield/tool"
)

// weatherTool is a minimal tool.Tool; wield's typed tools infer the schema for you.
type weatherTool struct{}

func (weatherTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "weather",
		Description: "Get weather information for a location",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"the city"}},"required":["location"]}`),
	}
}
func (weatherTool) Metadata() tool.Metadata { return tool.Metadata{} }
func (weatherTool) Call(context.Context, string) (string, error) {
	return "40 C", nil
}

func Example() {
	srv := providertest.Recorded("testdata/fantasy-tool-loop-gemini-2.5-flash/01-response.json", "application/json") // leave BaseURL empty to talk to Gemini itself
	defer srv.Close()

	ctx := context.Background()
	m, err := gemini.New(ctx, gemini.Config{
		Model:   "gemini-2.5-flash",
		APIKey:  "test-key", // empty: $GEMINI_API_KEY, then $GOOGLE_API_KEY
		BaseURL: srv.URL,
	})
	if err != nil {
		log.Fatal(err)
	}
	resp, err := m.Call(ctx, &chat.Prompt{
		Messages: []chat.Message{chat.System("You are a helpful assistant"), chat.User("What's the weather in Florence,Italy?")},
		Options:  &chat.Options{Tools: []tool.Tool{weatherTool{}}, MaxTokens: 4000},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, call := range resp.ToolCalls() {
		fmt.Println(call.Name, call.Arguments, call.Signature != "")
	}
	fmt.Println(resp.Generations[0].FinishReason, resp.Usage.ReasoningTokens)
	// Output:
	// weather {"location":"Florence,Italy"} true
	// tool_calls 48
}

func ExampleConvertSchema() {
	s, err := gemini.ConvertSchema(json.RawMessage(`{
		"type": "object",
		"properties": {"unit": {"type": ["null", "string"], "enum": ["C", "F", null]}},
		"additionalProperties": false}`))
	if err != nil {
		log.Fatal(err)
	}
	b, _ := json.Marshal(s)
	fmt.Println(string(b))
	// Output:
	// {"properties":{"unit":{"enum":["C","F"],"nullable":true,"type":"STRING"}},"type":"OBJECT"}
}

func Example_stream() {
	srv := providertest.Recorded("testdata/adk-text-stream-single-event-gemini-2.5-flash/01-response.sse", "text/event-stream")
	defer srv.Close()

	ctx := context.Background()
	m, err := gemini.New(ctx, gemini.Config{APIKey: "test-key", BaseURL: srv.URL})
	if err != nil {
		log.Fatal(err)
	}
	prompt := &chat.Prompt{
		Messages: []chat.Message{chat.User("What is the capital of France? One word.")},
		Options: &chat.Options{Temperature: chat.Ptr(0.0), Extra: map[string]any{
			gemini.ExtraThinkingBudget:  1024, // Gemini-specific settings go in Extra
			gemini.ExtraIncludeThoughts: true, // thought summaries arrive as chat.Reasoning
		}},
	}
	var agg chat.Aggregator
	for chunk, err := range m.Stream(ctx, prompt) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(chunk.Text()) // show text as it arrives
		agg.Add(chunk)
	}
	resp := agg.Response()
	fmt.Println()
	fmt.Println(resp.Generations[0].FinishReason, resp.Usage.TotalTokens)
	// Output:
	// Paris
	// stop 45
}
