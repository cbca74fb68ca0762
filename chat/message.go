package chat

import "strings"

// Role says who wrote a message.
type Role string

// The roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn of a conversation. Every field survives a JSON round trip, so a
// conversation can be stored and resumed intact.
type Message struct {
	Role Role `json:"role"`
	// Content is the text of the message.
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolResults are the results a tool message carries, one per call answered.
	ToolResults []ToolResult `json:"toolResults,omitempty"`
	// Reasoning is the model's thinking that the provider requires back on the next turn
	// (Anthropic thinking blocks, OpenAI reasoning items, Gemini thought signatures).
	Reasoning []Reasoning `json:"reasoning,omitempty"`
}

// ToolCall is a model's request to run a tool.
type ToolCall struct {
	// ID is the provider's id for the call; the result must carry the same id.
	ID string `json:"id,omitempty"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Arguments is the JSON object of arguments, as the model wrote it. In a streamed chunk it is a
	// fragment to be concatenated with the others of the same Index.
	Arguments string `json:"arguments,omitempty"`
	// Index is the call's position in its message. Streams use it to join fragments.
	Index int `json:"index,omitempty"`
	// Signature is an opaque value the provider attached to the call and needs back with it
	// (Gemini's thoughtSignature).
	Signature string `json:"signature,omitempty"`
}

// ToolResult is the outcome of one tool call, sent back to the model.
type ToolResult struct {
	// ID is the id of the call answered.
	ID string `json:"id,omitempty"`
	// Name is the name of the tool called.
	Name string `json:"name"`
	// Content is the text the model reads: the tool's result, or what went wrong.
	Content string `json:"content"`
	// IsError marks a failed call; the model sees Content as the error.
	IsError bool `json:"isError,omitempty"`
}

// Reasoning is a piece of a model's thinking kept in the conversation because the provider needs
// it back (signed or encrypted) to continue a tool loop. Only the provider that produced it sends
// it back; others drop it.
type Reasoning struct {
	// Provider is the provider that produced it ("anthropic", "openai", "gemini").
	Provider string `json:"provider"`
	// ID is the provider's id of the reasoning item, when it has one.
	ID string `json:"id,omitempty"`
	// Text is the readable thinking or summary.
	Text string `json:"text,omitempty"`
	// Signature authenticates Text to the provider.
	Signature string `json:"signature,omitempty"`
	// Encrypted is opaque reasoning the provider returns encrypted or redacted.
	Encrypted string `json:"encrypted,omitempty"`
}

// System returns a system message.
func System(text string) Message { return Message{Role: RoleSystem, Content: text} }

// User returns a user message.
func User(text string) Message { return Message{Role: RoleUser, Content: text} }

// Assistant returns an assistant message with text and, optionally, tool calls.
func Assistant(text string, calls ...ToolCall) Message {
	return Message{Role: RoleAssistant, Content: text, ToolCalls: calls}
}

// ToolMessage returns a tool message carrying results.
func ToolMessage(results ...ToolResult) Message {
	return Message{Role: RoleTool, ToolResults: results}
}

// String renders the message for logs and debugging.
func (m Message) String() string {
	var b strings.Builder
	b.WriteString(string(m.Role))
	b.WriteString(": ")
	b.WriteString(m.Content)
	for _, c := range m.ToolCalls {
		b.WriteString(" [call ")
		b.WriteString(c.Name)
		b.WriteString(c.Arguments)
		b.WriteString("]")
	}
	for _, r := range m.ToolResults {
		b.WriteString(" [result ")
		b.WriteString(r.Name)
		b.WriteString(": ")
		b.WriteString(r.Content)
		b.WriteString("]")
	}
	return b.String()
}
