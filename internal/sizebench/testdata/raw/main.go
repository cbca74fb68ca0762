// Command raw is the same turn as the minimal wield program written on openai-go alone: a tool
// definition, a Chat Completions call, the tool run, the result sent back, the answer printed.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/openai/openai-go/v3"
)

type weatherIn struct {
	City string `json:"city"`
}

func main() {
	ctx := context.Background()
	c := openai.NewClient()
	params := openai.ChatCompletionNewParams{
		Model:    "gpt-4.1-mini",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Lisbon?")},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name:        "weather",
			Description: openai.String("The weather in a city now."),
			Parameters: openai.FunctionParameters{
				"type":       "object",
				"properties": map[string]any{"city": map[string]any{"type": "string", "description": "the city to report on"}},
				"required":   []string{"city"},
			},
		})},
	}
	for {
		resp, err := c.Chat.Completions.New(ctx, params)
		if err != nil {
			log.Fatal(err)
		}
		msg := resp.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			fmt.Println(msg.Content)
			return
		}
		params.Messages = append(params.Messages, msg.ToParam())
		for _, call := range msg.ToolCalls {
			var in weatherIn
			if err := json.Unmarshal([]byte(call.Function.Arguments), &in); err != nil {
				log.Fatal(err)
			}
			params.Messages = append(params.Messages, openai.ToolMessage("sunny in "+in.City, call.ID))
		}
	}
}
