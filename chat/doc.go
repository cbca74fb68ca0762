// Package chat holds the provider-neutral conversation types: [Message], [ToolCall],
// [ToolResult], [Prompt], [Options], [Response] and the [Model] interface every provider
// implements, with [Aggregate] to turn a stream of deltas into one response.
//
// A model never executes tools. It receives tool definitions through [Options.Tools], answers
// with tool calls, and the caller (the client's tool-calling loop or the application) runs them
// and sends the results back as a [RoleTool] message.
package chat
