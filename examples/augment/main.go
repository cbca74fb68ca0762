// Command augment shows tool argument augmentation: the model is asked for its reasoning with
// every tool call; the reasoning is logged and the tool never sees it.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/tool/augment"
)

// AgentThinking is what the model is asked to add to every call.
type AgentThinking struct {
	InnerThought string `json:"innerThought" jsonschema:"Your reasoning for calling this tool"`
	Confidence   string `json:"confidence,omitempty" jsonschema:"Confidence level (low, medium, high)"`
}

// WeatherRequest is the input of currentWeather.
type WeatherRequest struct {
	Location string `json:"location"`
}

func currentWeather(_ context.Context, in WeatherRequest) (string, error) {
	return "18°C and sunny in " + in.Location, nil
}

func run(ctx context.Context, model chat.Model, out io.Writer) error {
	weather, err := tool.Func("currentWeather", "Get the weather in location", currentWeather)
	if err != nil {
		return err
	}
	tools, err := augment.Tools([]tool.Tool{weather}, func(_ context.Context, e augment.Event[AgentThinking]) error {
		fmt.Fprintf(out, "tool: %s | reasoning: %s | confidence: %s\n", e.Definition.Name, e.Args.InnerThought, e.Args.Confidence)
		return nil
	})
	if err != nil {
		return err
	}
	c, err := client.New(model)
	if err != nil {
		return err
	}
	answer, err := c.Prompt("What's the weather in Amsterdam?").Tools(tools[0]).Call(ctx).Content()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "answer:", answer)
	return nil
}

func scriptedModel() *chattest.Model {
	return chattest.New(
		chattest.Calls(chattest.Call("currentWeather",
			`{"innerThought":"The user asks about Amsterdam's weather; currentWeather answers that.","confidence":"high","location":"Amsterdam"}`)),
		chattest.Text("It is 18°C and sunny in Amsterdam."),
	)
}

func main() {
	if err := run(context.Background(), scriptedModel(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}
