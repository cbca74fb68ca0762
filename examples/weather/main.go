// Command weather turns a typed Go function into a tool with tool.Func: the input schema is
// inferred from WeatherRequest and the arguments are validated before the function runs.
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
)

// Unit is a temperature unit.
type Unit string

// WeatherRequest is the tool's input.
type WeatherRequest struct {
	Location string `json:"location" jsonschema:"The city, e.g. Copenhagen"`
	Unit     Unit   `json:"unit,omitempty" jsonschema:"The temperature unit" enum:"C,F"`
}

// WeatherResponse is the tool's result, sent to the model as JSON.
type WeatherResponse struct {
	Temp float64 `json:"temp"`
	Unit Unit    `json:"unit"`
}

// WeatherService knows the weather.
type WeatherService struct{}

// GetWeather returns the weather in a location.
func (WeatherService) GetWeather(_ context.Context, in WeatherRequest) (WeatherResponse, error) {
	if in.Unit == "F" {
		return WeatherResponse{Temp: 86, Unit: "F"}, nil
	}
	return WeatherResponse{Temp: 30, Unit: "C"}, nil
}

func run(ctx context.Context, model chat.Model, out io.Writer) error {
	currentWeather, err := tool.Func("currentWeather", "Get the weather in location", WeatherService{}.GetWeather)
	if err != nil {
		return err
	}
	c, err := client.New(model)
	if err != nil {
		return err
	}
	answer, err := c.
		Prompt("What's the weather like in Copenhagen?").
		Tools(currentWeather).
		Call(ctx).Content()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, answer)
	return nil
}

func scriptedModel() *chattest.Model {
	return chattest.New(
		chattest.Calls(chattest.Call("currentWeather", `{"location":"Copenhagen","unit":"C"}`)),
		chattest.Text("It is 30°C in Copenhagen."),
	)
}

func main() {
	if err := run(context.Background(), scriptedModel(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}
