package augment_test

import (
	"context"
	"fmt"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/tool/augment"
)

type Thinking struct {
	InnerThought string `json:"innerThought" jsonschema:"Your reasoning for calling this tool"`
	Confidence   string `json:"confidence,omitempty" jsonschema:"low, medium or high"`
}

type WeatherIn struct {
	City string `json:"city"`
}

func ExampleTools() {
	weather := tool.Must(tool.Func("weather", "Get the weather in a city",
		func(_ context.Context, in WeatherIn) (string, error) { return "sunny in " + in.City, nil }))

	tools, err := augment.Tools([]tool.Tool{weather}, func(_ context.Context, e augment.Event[Thinking]) error {
		fmt.Printf("%s: %s (%s)\n", e.Definition.Name, e.Args.InnerThought, e.Args.Confidence)
		return nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(tools[0].Definition().InputSchema))

	// The model fills in the extra fields; the weather function never sees them.
	out, err := tools[0].Call(context.Background(), `{"innerThought":"the user is going to Oslo","confidence":"high","city":"Oslo"}`)
	fmt.Println(out, err)
	// Output:
	// {"type":"object","properties":{"innerThought":{"type":"string","description":"Your reasoning for calling this tool"},"confidence":{"type":"string","description":"low, medium or high"},"city":{"type":"string"}},"required":["innerThought","city"],"additionalProperties":false}
	// weather: the user is going to Oslo (high)
	// sunny in Oslo <nil>
}
