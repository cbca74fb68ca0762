package client_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
)

type WeatherRequest struct {
	City string `json:"city"`
}

func getWeather(_ context.Context, in WeatherRequest) (string, error) {
	return "sunny in " + in.City, nil
}

func Example() {
	weather := tool.Must(tool.Func("currentWeather", "Get the weather in a city", getWeather))
	model := chattest.New(
		chattest.Calls(chattest.Call("currentWeather", `{"city":"Paris"}`)),
		chattest.Text("It is sunny in Paris."),
	)
	c, err := client.New(model, client.WithSystem("Be brief."))
	if err != nil {
		panic(err)
	}
	answer, err := c.Prompt("What is the weather in Paris?").Tools(weather).Call(context.Background()).Content()
	fmt.Println(answer, err)
	// Output: It is sunny in Paris. <nil>
}

func ExampleSpec_Stream() {
	weather := tool.Must(tool.Func("currentWeather", "Get the weather in a city", getWeather))
	model := chattest.New(
		chattest.Calls(chattest.Call("currentWeather", `{"city":"Paris"}`)).WithText("Let me check. "),
		chattest.Text("It is sunny."),
	).WithChunkSize(100)
	c, err := client.New(model)
	if err != nil {
		panic(err)
	}
	s := c.Prompt("Weather in Paris?").Tools(weather).Stream(context.Background())
	for ev, err := range s.Events() {
		switch {
		case err != nil:
			fmt.Println("error:", err)
		case ev.Chunk != nil:
			fmt.Printf("text %q\n", ev.Text())
		case ev.Tool != nil && ev.Tool.Kind == client.ToolStarted:
			fmt.Println("started", ev.Tool.Call.Name, ev.Tool.Call.Arguments)
		case ev.Tool != nil:
			fmt.Println("finished", ev.Tool.Call.Name, ev.Tool.Result.Content)
		case ev.Done != nil:
			fmt.Println("done:", ev.Done.Outcome)
		}
	}
	// Output:
	// text "Let me check. "
	// started currentWeather {"city":"Paris"}
	// finished currentWeather sunny in Paris
	// text "It is sunny."
	// done: answer
}

func ExampleEntity() {
	type Forecast struct {
		City  string  `json:"city"`
		TempC float64 `json:"tempC"`
	}
	model := chattest.New(chattest.Text(`{"city":"Paris","tempC":21}`))
	c, err := client.New(model)
	if err != nil {
		panic(err)
	}
	f, err := client.Entity[Forecast](context.Background(), c.Prompt("Forecast for Paris?"))
	fmt.Printf("%+v %v\n", f, err)
	// Output: {City:Paris TempC:21} <nil>
}

// logAdvisor runs inside the tool loop, once per model call.
type logAdvisor struct{}

func (logAdvisor) Order() int { return client.OrderToolCalling + 100 }

func (logAdvisor) Advise(ctx context.Context, req *client.Request, next client.Next) (*client.Response, error) {
	fmt.Printf("iteration %d: %d messages\n", req.Turn.Iteration, len(req.Prompt.Messages))
	return next(ctx, req)
}

func ExampleAdvisor() {
	model := chattest.New(chattest.Calls(chattest.Call("currentWeather", `{"city":"Paris"}`)), chattest.Text("Sunny."))
	weather := tool.Must(tool.Func("currentWeather", "Get the weather in a city", getWeather))
	c, err := client.New(model, client.WithAdvisors(logAdvisor{}))
	if err != nil {
		panic(err)
	}
	answer, _ := c.Prompt("Weather in Paris?").Tools(weather).Call(context.Background()).Content()
	fmt.Println(answer)
	// Output:
	// iteration 0: 1 messages
	// iteration 1: 3 messages
	// Sunny.
}

// pinned is a custom tool loop: it reuses the loop and, through a hook, offers an extra tool
// from the second iteration on.
type pinned struct {
	*client.ToolLoop
}

func newPinned(extra tool.Tool) *pinned {
	return &pinned{client.NewToolLoop(client.ToolLoopConfig{Hooks: client.ToolLoopHooks{
		BeforeCall: func(ctx context.Context, req *client.Request) (*client.Request, error) {
			if req.Turn.Iteration == 0 {
				return req, nil
			}
			o := req.Prompt.Options.Clone()
			o.Tools = append(o.Tools, extra)
			return req.WithOptions(o), nil
		},
	}})}
}

func ExampleToolLoopHooks() {
	model := chattest.New(
		chattest.Calls(chattest.Call("currentWeather", `{"city":"Paris"}`)),
		chattest.Calls(chattest.Call("umbrella", `{}`)),
		chattest.Text("No umbrella needed."),
	)
	weather := tool.Must(tool.Func("currentWeather", "Get the weather in a city", getWeather))
	umbrella := tool.Must(tool.Func("umbrella", "Whether to take an umbrella",
		func(context.Context, struct{}) (string, error) { return "no", nil }))
	c, err := client.New(model, client.WithAdvisors(newPinned(umbrella))) // replaces the default loop
	if err != nil {
		panic(err)
	}
	answer, _ := c.Prompt("Umbrella?").Tools(weather).Call(context.Background()).Content()
	for i, p := range model.Prompts() {
		fmt.Println(i, len(p.Options.Tools), "tools")
	}
	fmt.Println(answer)
	// Output:
	// 0 1 tools
	// 1 2 tools
	// 2 2 tools
	// No umbrella needed.
}

// A turn takes a slot of a limited pool in InitializeLoop and gives it back in EndLoop, which
// runs however the turn ends: here the model fails on the second turn.
func ExampleToolLoopHooks_endLoop() {
	slots := make(chan struct{}, 2)
	type slotKey struct{}
	loop := client.NewToolLoop(client.ToolLoopConfig{Hooks: client.ToolLoopHooks{
		InitializeLoop: func(ctx context.Context, req *client.Request) (*client.Request, error) {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			req.Turn.SetValue(slotKey{}, true)
			return req, nil
		},
		EndLoop: func(_ context.Context, req *client.Request, _ *client.Response, err error) {
			if req.Turn.Value(slotKey{}) != nil {
				<-slots
			}
			fmt.Println("turn ended, error:", err)
		},
	}})
	model := chattest.New(chattest.Text("Hello."), chattest.Fail(errors.New("overloaded")))
	c, err := client.New(model, client.WithAdvisors(loop))
	if err != nil {
		panic(err)
	}
	for range 2 {
		_, _ = c.Prompt("Hi").Call(context.Background()).Content()
	}
	fmt.Println("slots in use:", len(slots))
	// Output:
	// turn ended, error: <nil>
	// turn ended, error: client: model call: overloaded
	// slots in use: 0
}

var (
	_ client.Advisor = (*client.ToolLoop)(nil)
	_ chat.Model     = (*chattest.Model)(nil)
)
