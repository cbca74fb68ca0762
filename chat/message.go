package chat

import (
	"iter"
	"slices"
	"strings"

	"github.com/wield-ai/wield/content"
)

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
//
// A message's content is Content, as one text part when it is not empty, followed by Parts in
// order: a text-only message needs only Content, and [Message.AllParts] walks both. An
// assistant message's Reasoning comes before its content and its ToolCalls after it, the order
// every supported API uses.
type Message struct {
	Role Role `json:"role"`
	// Content is the text of the message; read a message's whole text with [Message.Text].
	Content string `json:"content,omitempty"`
	// Parts are the message's images, documents, audio and further text, after Content.
	Parts []content.Part `json:"parts,omitempty"`
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
	// Parts are images, documents or audio the tool returned, after Content (see
	// [ToolResult.AllParts]).
	Parts []content.Part `json:"parts,omitempty"`
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

// User returns a user message: text, then any parts (images, documents, audio).
func User(text string, parts ...content.Part) Message {
	return Message{Role: RoleUser, Content: text, Parts: parts}
}

// Assistant returns an assistant message with text and, optionally, tool calls.
func Assistant(text string, calls ...ToolCall) Message {
	return Message{Role: RoleAssistant, Content: text, ToolCalls: calls}
}

// ToolMessage returns a tool message carrying results.
func ToolMessage(results ...ToolResult) Message {
	return Message{Role: RoleTool, ToolResults: results}
}

// Clone returns a copy of m whose slices are its own, so changing one cannot change the other.
// The bytes of media parts are shared: treat part data as read-only once it is in a message.
func (m Message) Clone() Message {
	m.Parts = slices.Clone(m.Parts)
	m.ToolCalls = slices.Clone(m.ToolCalls)
	m.Reasoning = slices.Clone(m.Reasoning)
	if m.ToolResults != nil {
		m.ToolResults = slices.Clone(m.ToolResults)
		for i := range m.ToolResults {
			m.ToolResults[i].Parts = slices.Clone(m.ToolResults[i].Parts)
		}
	}
	return m
}

// AllParts yields the message's content in order: Content as a text part when it is not
// empty, then Parts.
func (m Message) AllParts() iter.Seq[content.Part] { return allParts(m.Content, m.Parts) }

// Text returns the message's text: Content followed by the text of its text parts.
func (m Message) Text() string { return joinText(m.Content, m.Parts) }

// HasMedia reports whether the message carries a part that is not text.
func (m Message) HasMedia() bool { return hasMedia(m.Parts) }

// AllParts yields the result's content in order: Content as a text part when it is not empty,
// then Parts.
func (r ToolResult) AllParts() iter.Seq[content.Part] { return allParts(r.Content, r.Parts) }

// Text returns the result's text: Content followed by the text of its text parts.
func (r ToolResult) Text() string { return joinText(r.Content, r.Parts) }

// HasMedia reports whether the result carries a part that is not text.
func (r ToolResult) HasMedia() bool { return hasMedia(r.Parts) }

func allParts(text string, parts []content.Part) iter.Seq[content.Part] {
	return func(yield func(content.Part) bool) {
		if text != "" && !yield(content.Text(text)) {
			return
		}
		for _, p := range parts {
			if !yield(p) {
				return
			}
		}
	}
}

func joinText(text string, parts []content.Part) string {
	if len(parts) == 0 {
		return text
	}
	var b strings.Builder
	b.WriteString(text)
	for _, p := range parts {
		if p.Kind == content.KindText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func hasMedia(parts []content.Part) bool {
	for _, p := range parts {
		if p.Kind != content.KindText {
			return true
		}
	}
	return false
}

// String renders the message for logs and debugging.
func (m Message) String() string {
	var b strings.Builder
	b.WriteString(string(m.Role))
	b.WriteString(": ")
	b.WriteString(m.Content)
	writeParts(&b, m.Parts)
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
		writeParts(&b, r.Parts)
		b.WriteString("]")
	}
	return b.String()
}

// writeParts renders parts for logs: text as it is, media as a short description, never bytes.
func writeParts(b *strings.Builder, parts []content.Part) {
	for _, p := range parts {
		if p.Kind != content.KindText {
			b.WriteString(" ")
		}
		b.WriteString(p.String())
	}
}
