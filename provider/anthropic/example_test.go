package anthropic_test

import (
	"context"
	"fmt"
	"log"

	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider/anthropic"
	"github.com/wield-ai/wield/tool"
)

type weatherArgs struct {
	City  string `json:"city" jsonschema:"the city"`
	Units string `json:"units,omitempty" jsonschema:"celsius or fahrenheit"`
}

func getWeather(_ context.Context, in weatherArgs) (string, error) {
	return "The weather in " + in.City + " is 68 degrees " + in.Units + ".", nil
}

// The model answers with text and a tool call in one generation.
func Example() {
	srv := providertest.Recorded("testdata/sdk-tool-runner-basic/01-response.json", "application/json")
	defer srv.Close()

	m, err := anthropic.New(anthropic.Config{
		BaseURL: srv.URL, // leave empty for $ANTHROPIC_BASE_URL or api.anthropic.com
		APIKey:  "sk-ant-example",
		Model:   "claude-3-7-sonnet-latest",
	})
	if err != nil {
		log.Fatal(err)
	}
	weather := tool.Must(tool.Func("get_weather", "Get weather", getWeather))
	resp, err := m.Call(context.Background(), &chat.Prompt{
		Messages: []chat.Message{chat.User("What's the weather in San Francisco? Use fahrenheit.")},
		Options:  &chat.Options{Tools: []tool.Tool{weather}, MaxTokens: 512},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text())
	for _, c := range resp.ToolCalls() {
		fmt.Println(c.Name, c.Arguments)
	}
	fmt.Println(resp.Result().FinishReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output:
	// I'll get the current weather in San Francisco for you in Fahrenheit.
	// get_weather {"city":"San Francisco","units":"fahrenheit"}
	// tool_calls 402 89
}

// Stream yields deltas as they arrive; an Aggregator joins them into the whole answer.
func ExampleModel_Stream() {
	srv := providertest.Recorded("testdata/lcgo-text-stream-claude-3-opus/01-response.sse", "text/event-stream")
	defer srv.Close()

	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-example"})
	if err != nil {
		log.Fatal(err)
	}
	var agg chat.Aggregator
	for chunk, err := range m.Stream(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("Count from 1 to 5")}}) {
		if err != nil {
			log.Fatal(err)
		}
		agg.Add(chunk)
	}
	resp := agg.Response()
	fmt.Printf("%q %s\n", resp.Text(), resp.Result().FinishReason)
	// Output: "1\n2\n3\n4\n5" stop
}

// Extended thinking for every call, switched off for one; Anthropic-specific request fields
// through SDK request options.
func ExampleConfig_thinking() {
	m, err := anthropic.New(anthropic.Config{
		Model:          "claude-sonnet-4-5",
		ThinkingBudget: 8000, // max_tokens defaults to the budget + 4096
	})
	if err != nil {
		log.Fatal(err)
	}
	quick := &chat.Options{Extra: map[string]any{
		anthropic.ExtraThinkingBudget: 0,
		anthropic.ExtraRequestOptions: []option.RequestOption{
			option.WithJSONSet("metadata", map[string]any{"user_id": "user-42"}),
		},
	}}
	_ = m
	_ = quick
}

// Claude on Amazon Bedrock: the AWS configuration chain finds the credentials (environment,
// shared files, SSO, roles); requests are signed with SigV4.
func ExampleNewBedrock() {
	srv := providertest.Recorded("testdata/bedrock/openllmetry-anthropic-python-sdk-invoke-claude-3-haiku/01-response.json", "application/json")
	defer srv.Close()

	m, err := anthropic.NewBedrock(context.Background(), anthropic.BedrockConfig{
		Config: anthropic.Config{
			Model:   "anthropic.claude-3-haiku-20240307-v1:0",
			BaseURL: srv.URL, // leave empty for https://bedrock-runtime.{region}.amazonaws.com
		},
		Region: "us-east-1",
		// The AWS configuration is loaded with config.LoadDefaultConfig unless given; here it is
		// given, with fixed credentials.
		AWS: &aws.Config{Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")},
	})
	if err != nil {
		log.Fatal(err)
	}
	resp, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("Tell me a joke about OpenTelemetry")}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Info().Provider, resp.ID, resp.Usage.OutputTokens)
	// Output: aws.bedrock msg_bdrk_01BpNWhDaaMSLb423BECgv49 50
}

// Claude on Google Vertex AI: Application Default Credentials unless credentials are given.
func ExampleNewVertex() {
	srv := providertest.Recorded("testdata/vertex/fantasy-vertex-anthropic-tool-loop-claude-3-7-sonnet/02-response.json", "application/json")
	defer srv.Close()

	m, err := anthropic.NewVertex(context.Background(), anthropic.VertexConfig{
		Config: anthropic.Config{
			Model:   "claude-3-7-sonnet@20250219",
			BaseURL: srv.URL, // leave empty for https://{region}-aiplatform.googleapis.com
		},
		Region:      "us-east5",
		ProjectID:   "my-project",
		Credentials: &google.Credentials{TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.example"})},
	})
	if err != nil {
		log.Fatal(err)
	}
	resp, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("What's the weather in Florence,Italy?")}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Info().Provider, resp.ID)
	// Output: gcp.vertex_ai msg_vrtx_01FsGwyqeLHKapS8XjDajNhG
}

// Prompt caching in a tool loop: CacheAuto marks the last tool, the system prompt and the last
// turn, so every round reads the previous round's request from the cache. The usage tells how
// much was read and written.
func ExampleCache() {
	srv := providertest.Recorded("testdata/cache/lcgo-cache-control-tools-and-tool-result-hit-claude-sonnet-4-5/02-response.json", "application/json")
	defer srv.Close()

	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-example", Cache: anthropic.CacheAuto})
	if err != nil {
		log.Fatal(err)
	}
	// One call may choose other breakpoints, or none with false.
	opts := &chat.Options{Extra: map[string]any{anthropic.ExtraCache: anthropic.Cache{Messages: 2, TTL: "1h"}}}
	resp, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("What's the weather in Paris?")}, Options: opts})
	if err != nil {
		log.Fatal(err)
	}
	u := resp.Usage
	fmt.Println(u.InputTokens, u.CachedInputTokens, u.CacheWriteInputTokens)
	// Output: 1955 1877 72
}
