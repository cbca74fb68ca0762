package chat_test

import (
	"fmt"

	"github.com/wield-ai/wield/chat"
)

// Some providers answer with text and tool calls in separate generations; Message joins them
// into the one assistant message a conversation's history keeps.
func ExampleResponse_Message() {
	resp := &chat.Response{Generations: []chat.Generation{
		{Message: chat.Assistant("Let me check the weather.")},
		{Index: 1, Message: chat.Assistant("", chat.ToolCall{ID: "call_1", Name: "weather", Arguments: `{"city":"Paris"}`})},
	}}
	msg := resp.Message()
	fmt.Println(msg.Role, msg.Content)
	for _, c := range msg.ToolCalls {
		fmt.Println(c.Name, c.Arguments)
	}
	// Output:
	// assistant Let me check the weather.
	// weather {"city":"Paris"}
}
