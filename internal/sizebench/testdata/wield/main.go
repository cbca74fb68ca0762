// Command wield is the minimal library program the size benchmark measures: one tool made with
// tool.Func, a Chat Completions model from openai.New, one turn through the client.
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/provider/openai"
	"github.com/wield-ai/wield/tool"
)

type weatherIn struct {
	City string `json:"city" jsonschema:"the city to report on"`
}

func main() {
	weather, err := tool.Func("weather", "The weather in a city now.",
		func(_ context.Context, in weatherIn) (string, error) { return "sunny in " + in.City, nil })
	if err != nil {
		log.Fatal(err)
	}
	model, err := openai.New(openai.Config{Model: "gpt-4.1-mini"})
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.New(model)
	if err != nil {
		log.Fatal(err)
	}
	answer, err := c.Prompt("What is the weather in Lisbon?").Tools(weather).Call(context.Background()).Content()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
}
