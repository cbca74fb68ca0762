package memory_test

import (
	"context"
	"fmt"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
)

func ExampleTrim() {
	conv := []chat.Message{
		chat.User("weather?"),
		chat.Assistant("", chat.ToolCall{ID: "1", Name: "weather"}),
		chat.ToolMessage(chat.ToolResult{ID: "1", Name: "weather", Content: "sunny"}),
		chat.Assistant("Sunny."),
	}
	// Three messages keep the call with its result.
	for _, m := range memory.Trim(conv, 3) {
		fmt.Println(m)
	}
	// Two would start with the result, cut from its call: the window shrinks instead.
	fmt.Println(memory.Trim(conv, 2))
	// Output:
	// assistant:  [call weather]
	// tool:  [result weather: sunny]
	// assistant: Sunny.
	// [assistant: Sunny.]
}

func ExampleAdvisor() {
	model := chattest.New(chattest.Text("Hello, Ada."), chattest.Text("Your name is Ada."))
	mem := memory.NewWindow(memory.NewInMemory(), 20)
	c, err := client.New(model, client.WithAdvisors(memory.NewAdvisor(mem, memory.AdvisorConfig{})))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for _, q := range []string{"I am Ada.", "What is my name?"} {
		answer, _ := c.Prompt(q).Param(client.ParamConversationID, "ada").Call(ctx).Content()
		fmt.Println(answer)
	}
	fmt.Println(len(model.Prompt(1).Messages), "messages sent on the second turn")
	// Output:
	// Hello, Ada.
	// Your name is Ada.
	// 3 messages sent on the second turn
}
