package tool

import (
	"context"
	"encoding/json"
	"time"
)

// Tool is something a model can call: a definition sent to the model, metadata read by the
// runtime, and Call, which takes the model's arguments as a JSON object and returns the text sent
// back to the model.
//
// Call must be safe for concurrent use: the runtime runs several calls of one tool in parallel.
// An error from Call is reported to the model as a failed tool result unless it is marked with
// [Fatal]; the tool's own error text is what the model sees, so make it useful.
type Tool interface {
	Definition() Definition
	Metadata() Metadata
	Call(ctx context.Context, args string) (string, error)
}

// Definition is what the model is told about a tool.
type Definition struct {
	// Name identifies the tool to the model; it is unique among the tools of one request.
	Name string `json:"name"`
	// Description tells the model when and how to use the tool.
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema (2020-12) of the arguments object.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is the JSON Schema of a typed result, when the tool has one. Models are not
	// sent it; MCP servers advertise it.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// Metadata tells the runtime how to handle a tool's calls. It is never sent to the model.
type Metadata struct {
	// ReturnDirect makes the tool's result the final answer of the turn instead of going back to
	// the model. It applies only when every tool called in one model response is return-direct.
	ReturnDirect bool
	// Timeout bounds one call of the tool, as [Invoke] applies it; zero means no limit beyond the
	// caller's context.
	Timeout time.Duration
	// Sequential tools never run beside other calls of the same response.
	Sequential bool
	// RequiresApproval makes every call of the tool wait for the application's decision before
	// it runs (see the client's approval policy).
	RequiresApproval bool

	// ReadOnly, Destructive, Idempotent and OpenWorld are MCP's tool annotation hints: what the
	// tool says of its effects, for approval policies and MCP clients. They are hints, not
	// guarantees. A nil Destructive or OpenWorld is unknown, which MCP reads as true.

	// ReadOnly: the tool does not change its environment (MCP readOnlyHint).
	ReadOnly bool
	// Destructive: the tool may destroy or overwrite data, not only add to it; meaningful when
	// ReadOnly is false (MCP destructiveHint).
	Destructive *bool
	// Idempotent: calling the tool again with the same arguments has no further effect (MCP
	// idempotentHint).
	Idempotent bool
	// OpenWorld: the tool reaches an open world of outside entities, such as the web (MCP
	// openWorldHint).
	OpenWorld *bool
}

// Provider supplies tools, possibly from a remote source such as an MCP server, at the time a
// request is made.
type Provider interface {
	Tools(ctx context.Context) ([]Tool, error)
}

// ProviderFunc adapts a function to [Provider].
type ProviderFunc func(ctx context.Context) ([]Tool, error)

// Tools calls f.
func (f ProviderFunc) Tools(ctx context.Context) ([]Tool, error) { return f(ctx) }

// List is a fixed set of tools; it is a [Provider].
type List []Tool

// Tools returns the list.
func (l List) Tools(context.Context) ([]Tool, error) { return l, nil }

// Must returns v, or panics if err is not nil. It is meant for package-level tool sets and tests
// where a construction error is a programming error:
//
//	var weather = tool.Must(tool.Func("currentWeather", "Get the weather in location", getWeather))
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
