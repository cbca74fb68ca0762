// Command usercontrolled drives the tool loop in the application instead of the client: the
// automatic tool-calling advisor is off, so tool calls come back to the caller, which runs them
// with a toolcall.Manager and sends the results back, until the model answers. It does so with
// the client's call path and with the model's stream, aggregating each stream with
// chat.Aggregator while forwarding its text as it arrives.
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
	"github.com/wield-ai/wield/toolcall"
)

// WeatherTools answers weather questions.
type WeatherTools struct{}

// CityRequest names a city.
type CityRequest struct {
	City string `json:"city" jsonschema:"The city name"`
}

// GetWeather returns the weather in a city.
func (WeatherTools) GetWeather(in CityRequest) string {
	switch in.City {
	case "Amsterdam":
		return "rainy, 12°C"
	case "Paris":
		return "sunny, 21°C"
	}
	return "unknown"
}

const question = "What is the weather in Amsterdam and Paris?"

func options() (*chat.Options, error) {
	tools, err := tool.Methods(WeatherTools{}, tool.Only("GetWeather"))
	if err != nil {
		return nil, err
	}
	return &chat.Options{Tools: tools}, nil
}

// runCall drives the loop over the client's call path.
func runCall(ctx context.Context, model chat.Model, out io.Writer) error {
	opts, err := options()
	if err != nil {
		return err
	}
	manager := toolcall.New(toolcall.Config{})
	c, err := client.New(model, client.WithoutToolLoop())
	if err != nil {
		return err
	}

	prompt := &chat.Prompt{Messages: []chat.Message{chat.User(question)}, Options: opts}
	resp, err := c.Prompt().Messages(prompt.Messages...).Options(opts).Call(ctx).ChatResponse()
	for err == nil && resp.HasToolCalls() {
		var result *toolcall.Result
		if result, err = manager.Execute(ctx, prompt, resp); err != nil {
			break
		}
		prompt = &chat.Prompt{Messages: result.History, Options: opts}
		resp, err = c.Prompt().Messages(result.History...).Options(opts).Call(ctx).ChatResponse()
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(out, resp.Text())
	return nil
}

// runStream drives the loop over the model's stream, forwarding text as it arrives.
func runStream(ctx context.Context, model chat.Model, out io.Writer) error {
	opts, err := options()
	if err != nil {
		return err
	}
	manager := toolcall.New(toolcall.Config{})
	prompt := &chat.Prompt{Messages: []chat.Message{chat.User(question)}, Options: opts}
	for {
		var agg chat.Aggregator
		for chunk, err := range model.Stream(ctx, prompt) {
			if err != nil {
				return err
			}
			agg.Add(chunk)
			for _, g := range chunk.Generations {
				fmt.Fprint(out, g.Message.Content) // forward, e.g. to server-sent events
			}
		}
		resp := agg.Response()
		if !resp.HasToolCalls() {
			fmt.Fprintln(out)
			return nil
		}
		result, err := manager.Execute(ctx, prompt, resp)
		if err != nil {
			return err
		}
		prompt = &chat.Prompt{Messages: result.History, Options: opts}
	}
}

func scriptedModel() *chattest.Model {
	return chattest.New(
		chattest.Calls(chattest.Call("getWeather", `{"city":"Amsterdam"}`), chattest.Call("getWeather", `{"city":"Paris"}`)),
		chattest.Text("Amsterdam is rainy at 12°C; Paris is sunny at 21°C."),
	)
}

func main() {
	ctx := context.Background()
	if err := runCall(ctx, scriptedModel(), os.Stdout); err != nil {
		log.Fatal(err)
	}
	if err := runStream(ctx, scriptedModel(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}
