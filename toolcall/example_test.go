package toolcall_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// WeatherIn is the input of the weather tool; its JSON Schema is inferred by tool.Func.
type WeatherIn struct {
	City string `json:"city" jsonschema:"the city, in English"`
}

func currentWeather(_ context.Context, in WeatherIn) (string, error) {
	temps := map[string]int{"Paris": 18, "Rome": 24}
	t, ok := temps[in.City]
	if !ok {
		return "", fmt.Errorf("no weather station in %q; known cities: Paris, Rome", in.City)
	}
	return fmt.Sprintf("%d°C in %s", t, in.City), nil
}

var weather = tool.Must(tool.Func("currentWeather", "Get the weather in a city", currentWeather,
	tool.WithTimeout(5*time.Second)))

func ExampleManager_Execute() {
	m := toolcall.New(toolcall.Config{})
	p := &chat.Prompt{
		Messages: []chat.Message{chat.User("What's the weather in Paris, Rome, Atlantis and Oslo?")},
		Options:  &chat.Options{Tools: []tool.Tool{weather}},
	}
	// The model's answer asks for four calls; they run in parallel.
	resp := &chat.Response{Generations: []chat.Generation{{
		Message: chat.Assistant("",
			chat.ToolCall{ID: "call_1", Name: "currentWeather", Arguments: `{"city":"Paris"}`},
			chat.ToolCall{ID: "call_2", Name: "currentWeather", Arguments: `{"city":"Rome"}`},
			chat.ToolCall{ID: "call_3", Name: "currentWeather", Arguments: `{"city":"Atlantis"}`},
			chat.ToolCall{ID: "call_4", Name: "currentWeather", Arguments: `{"town":"Oslo"}`}),
		FinishReason: chat.FinishToolCalls,
	}}}

	res, err := m.Execute(context.Background(), p, resp)
	if err != nil {
		fmt.Println("turn ended:", err)
		return
	}
	// The history to send back to the model: the prompt, the assistant's calls and one tool
	// message with the results in the model's order; the failed calls are error results the model
	// can act on.
	for _, msg := range res.History {
		fmt.Println(msg.Role, len(msg.ToolCalls), "calls", len(msg.ToolResults), "results")
	}
	for _, r := range res.ToolResults() {
		fmt.Printf("%s error=%v: %s\n", r.ID, r.IsError, r.Content)
	}
	fmt.Println("return direct:", res.ReturnDirect)
	// Output:
	// user 0 calls 0 results
	// assistant 4 calls 0 results
	// tool 0 calls 4 results
	// call_1 error=false: 18°C in Paris
	// call_2 error=false: 24°C in Rome
	// call_3 error=true: no weather station in "Atlantis"; known cities: Paris, Rome
	// call_4 error=true: invalid arguments: /: unexpected property "town" (allowed: "city"); /: missing required property "city"
	// return direct: false
}

func ExampleAlwaysFail() {
	m := toolcall.New(toolcall.Config{ErrorProcessor: toolcall.AlwaysFail()})
	p := &chat.Prompt{
		Messages: []chat.Message{chat.User("Weather in Atlantis?")},
		Options:  &chat.Options{Tools: []tool.Tool{weather}},
	}
	resp := &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("",
		chat.ToolCall{ID: "call_1", Name: "currentWeather", Arguments: `{"city":"Atlantis"}`})}}}

	_, err := m.Execute(context.Background(), p, resp)
	var ee *tool.ExecutionError
	if errors.As(err, &ee) {
		fmt.Println("the turn ended; failed tool:", ee.Tool, "call:", ee.CallID)
	}
	// Output:
	// the turn ended; failed tool: currentWeather call: call_1
}

func ExampleManager_Definitions() {
	r, err := tool.NewStaticResolver(weather)
	if err != nil {
		panic(err)
	}
	m := toolcall.New(toolcall.Config{Resolver: r})
	// Tools named are resolved; the definitions go to the model.
	defs, err := m.Definitions(context.Background(), nil, []string{"currentWeather"})
	if err != nil {
		panic(err)
	}
	for _, d := range defs {
		fmt.Println(d.Name, "-", d.Description)
	}
	// Output:
	// currentWeather - Get the weather in a city
}

// printer is an Observer printing what happens.
type printer struct{}

func (printer) ToolStarted(_ context.Context, c chat.ToolCall) { fmt.Println("started", c.ID) }
func (printer) ToolFinished(_ context.Context, c chat.ToolCall, r chat.ToolResult, _ time.Duration) {
	fmt.Println("finished", c.ID, r.Content)
}

func ExampleManager_ExecuteTurn() {
	m := toolcall.New(toolcall.Config{})
	p := &chat.Prompt{Options: &chat.Options{Tools: []tool.Tool{weather}}}
	resp := &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("",
		chat.ToolCall{ID: "call_1", Name: "currentWeather", Arguments: `{"city":"Rome"}`})}}}

	turn := &toolcall.Turn{Observer: printer{}}
	if _, err := m.ExecuteTurn(context.Background(), turn, p, resp); err != nil {
		panic(err)
	}
	// Output:
	// started call_1
	// finished call_1 24°C in Rome
}
