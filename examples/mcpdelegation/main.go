// Command mcpdelegation runs the tool loop in this process while every tool call executes in
// another: an MCP server (./toolserver) that owns the tools, the "remote agent" of MCP Mesh's
// delegation mode. The model only asks for tools; this process, the consumer, sends each call to
// the agent over MCP and feeds the results back to the model until it answers.
//
// It does so twice: with the client's own tool loop (runLoop), and with the loop written out by
// hand (runDelegated), the model's calls coming back to the caller, which runs them with a
// toolcall.Manager. That is the pattern of Spring AI with internalToolExecutionEnabled(false):
// the tool calls may arrive in a generation of their own after a text-only one, and every
// generation is searched for them (chat.Response.ToolCalls does).
//
// The model here is scripted (package chattest) but answers from the tool results it receives,
// so what it says comes from the agent; any chat.Model can take its place. Run it from the
// module root:
//
//	go run ./examples/mcpdelegation
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/toolcall"
)

const question = "What's the weather in Paris, and how many people live there?"

// runLoop lets the client run the tool loop: the agent's tools are a tool.Provider, listed
// from the server when the request is made.
func runLoop(ctx context.Context, model chat.Model, agent *mcp.Client, out io.Writer) error {
	c, err := client.New(model)
	if err != nil {
		return err
	}
	answer, err := c.Prompt(question).Tools(agent).Call(ctx).Content()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, answer)
	return nil
}

// runDelegated writes the loop out: the model returns tool calls without running them, and the
// consumer executes them on the agent and loops back to the model.
func runDelegated(ctx context.Context, model chat.Model, agent *mcp.Client, out io.Writer) error {
	tools, err := agent.Tools(ctx)
	if err != nil {
		return err
	}
	opts := &chat.Options{Tools: tools}
	manager := toolcall.New(toolcall.Config{})
	c, err := client.New(model, client.WithoutToolLoop())
	if err != nil {
		return err
	}

	prompt := &chat.Prompt{Messages: []chat.Message{chat.User(question)}, Options: opts}
	for {
		resp, err := c.Prompt().Messages(prompt.Messages...).Options(opts).Call(ctx).ChatResponse()
		if err != nil {
			return err
		}
		if !resp.HasToolCalls() { // tool calls from every generation, not only the first
			fmt.Fprintln(out, resp.Text())
			return nil
		}
		for _, call := range resp.ToolCalls() {
			fmt.Fprintf(out, "delegating %s(%s)\n", call.Name, call.Arguments)
		}
		result, err := manager.Execute(ctx, prompt, resp)
		if err != nil {
			return err
		}
		prompt = &chat.Prompt{Messages: result.History, Options: opts}
	}
}

// scriptedModel plays a model that, like Claude through Spring AI, answers with a text-only
// generation followed by one holding the tool calls, then answers from the tool results.
func scriptedModel() *chattest.Model {
	return chattest.New(
		chattest.Respond(func(context.Context, *chat.Prompt) (*chat.Response, error) {
			return &chat.Response{Generations: []chat.Generation{
				{Index: 0, Message: chat.Assistant("I'll look up the weather and the city for you."), FinishReason: chat.FinishStop},
				{Index: 1, Message: chat.Assistant("",
					chat.ToolCall{ID: "toolu_weather", Name: "getWeather", Arguments: `{"city":"Paris"}`},
					chat.ToolCall{ID: "toolu_city", Name: "getCityInfo", Arguments: `{"city":"Paris"}`, Index: 1},
				), FinishReason: chat.FinishToolCalls},
			}}, nil
		}),
		chattest.Respond(answer),
	)
}

// answer reads the agent's results from the tool message, as a real model would.
func answer(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
	last := p.Messages[len(p.Messages)-1]
	var weather struct {
		Temperature float64 `json:"temperature"`
		Conditions  string  `json:"conditions"`
	}
	var city struct {
		Country    string `json:"country"`
		Population int    `json:"population"`
	}
	for _, r := range last.ToolResults {
		if r.IsError {
			return nil, fmt.Errorf("%s failed: %s", r.Name, r.Content)
		}
		var err error
		switch r.Name {
		case "getWeather":
			err = json.Unmarshal([]byte(r.Content), &weather)
		case "getCityInfo":
			err = json.Unmarshal([]byte(r.Content), &city)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Name, err)
		}
	}
	if weather.Conditions == "" || city.Country == "" {
		return nil, errors.New("missing tool results")
	}
	text := fmt.Sprintf("It is %s and %.0f°F in Paris, %s, a city of %d people.",
		weather.Conditions, weather.Temperature, city.Country, city.Population)
	return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant(text), FinishReason: chat.FinishStop}}}, nil
}

func main() {
	server := flag.String("server", "go run ./examples/mcpdelegation/toolserver",
		"command starting the tool server (the agent), with its arguments")
	flag.Parse()
	log.SetFlags(0)

	ctx := context.Background()
	fields := strings.Fields(*server)
	agent, err := mcp.Connect(ctx, mcp.ServerConfig{Name: "agent", Command: fields[0], Args: fields[1:], Stderr: os.Stderr})
	if err != nil {
		log.Fatal(err)
	}
	defer agent.Close()

	fmt.Println("== the client's tool loop")
	if err := runLoop(ctx, scriptedModel(), agent, os.Stdout); err != nil {
		log.Fatal(err)
	}
	fmt.Println("== the loop written out, calls delegated with toolcall.Manager")
	if err := runDelegated(ctx, scriptedModel(), agent, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
