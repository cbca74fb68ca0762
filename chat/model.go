package chat

import (
	"context"
	"iter"
)

// Model is a chat model: a provider's API behind one interface. A Model sends the definitions of
// [Options.Tools] to the provider and returns the tool calls the provider asks for; it never
// executes tools.
//
// Implementations must be safe for concurrent use.
type Model interface {
	// Call sends the prompt and returns the whole answer.
	Call(ctx context.Context, p *Prompt) (*Response, error)
	// Stream sends the prompt and yields the answer as it arrives: each Response holds the deltas
	// of one chunk (text pieces, tool-call fragments keyed by index, usage when reported). A
	// stream that ends early yields a non-nil error as its last element; it never ends silently
	// with a truncated answer. Stopping the iteration cancels the request. As with any
	// iterator, yield is called on the iterating goroutine and never after the iterator returns:
	// callers may reuse what reads the stream for the next one.
	Stream(ctx context.Context, p *Prompt) iter.Seq2[*Response, error]
}

// Info names a model for tracing and logs.
type Info struct {
	// Provider is the GenAI semantic-convention provider name ("openai", "anthropic",
	// "gcp.gemini", "ollama").
	Provider string
	// Model is the configured model name.
	Model string
}

// Describer is implemented by models that can name themselves.
type Describer interface {
	Info() Info
}
