package bedrock_test

import (
	"context"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider/bedrock"
	"github.com/wield-ai/wield/tool"
)

type calcArgs struct {
	Operation string  `json:"operation" jsonschema:"add, subtract, multiply or divide"`
	A         float64 `json:"a"`
	B         float64 `json:"b"`
}

func calculate(_ context.Context, in calcArgs) (float64, error) { return in.A * in.B, nil }

// A model on Bedrock asks for a tool call.
func Example() {
	srv := providertest.Recorded("testdata/converse/lcgo-converse-tool-loop-nova-2-lite/01-response.json", "application/json")
	defer srv.Close()

	m, err := bedrock.New(context.Background(), bedrock.Config{
		Model:   "us.amazon.nova-2-lite-v1:0",
		Region:  "us-east-1",
		BaseURL: srv.URL, // leave empty for https://bedrock-runtime.{region}.amazonaws.com
		// Leave AWS nil to load the AWS configuration chain; here fixed credentials.
		AWS: &aws.Config{Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")},
	})
	if err != nil {
		log.Fatal(err)
	}
	calculator := tool.Must(tool.Func("calculator", "A calculator", calculate))
	resp, err := m.Call(context.Background(), &chat.Prompt{
		Messages: []chat.Message{chat.User("Calculate 15 * 8")},
		Options:  &chat.Options{Tools: []tool.Tool{calculator}, MaxTokens: 512},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range resp.ToolCalls() {
		fmt.Println(c.Name, c.Arguments)
	}
	fmt.Println(resp.Result().FinishReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output:
	// calculator {"a":15.0,"b":8.0,"operation":"multiply"}
	// tool_calls 980 45
}

// Stream yields text and tool-call fragments as the event stream delivers them.
func ExampleModel_Stream() {
	srv := providertest.Recorded("testdata/converse/openllmetry-converse-stream-tool-use-claude-3-sonnet/01-response.eventstream", "application/vnd.amazon.eventstream")
	defer srv.Close()

	m, err := bedrock.New(context.Background(), bedrock.Config{
		Model: "anthropic.claude-3-sonnet-20240229-v1:0", Region: "us-east-1", BaseURL: srv.URL,
		AWS: &aws.Config{Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")},
	})
	if err != nil {
		log.Fatal(err)
	}
	resp, err := chat.Aggregate(m.Stream(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("What is the weather in Barcelona?")}}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text())
	fmt.Println(resp.ToolCalls()[0].Name, resp.ToolCalls()[0].Arguments)
	// Output:
	// Okay, let me check the weather for Barcelona using the available tool:
	// get_weather {"location": "Barcelona"}
}

// Prompt caching for a tool loop, and the model's own parameters.
func ExampleConfig() {
	cfg := bedrock.Config{
		Model:  "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
		Region: "us-west-2",
		Cache:  bedrock.CacheAuto, // checkpoints after the tools, the system prompt and the last turn
	}
	thinking := &chat.Options{Extra: map[string]any{
		bedrock.ExtraAdditionalFields: map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": 2048}},
	}}
	_, _ = cfg, thinking
}
