package toolcall

import (
	"context"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
)

// ToolRunner is implemented by a [engine.Runtime] that runs the bodies of tool calls as steps
// of its engine (activities, in a Temporal workflow). Everything else of a round stays with the
// Manager, in the engine's deterministic code: approval, limits, grouping and concurrency,
// error processing, interrupts, events. RunTool returns what [tool.Invoke] would for t called
// with call.Arguments, with the error's kind kept ([tool.ArgumentError], [tool.PanicError],
// [tool.ErrTimeout], [tool.Fatal], an [InterruptError] with its data), since the Manager
// decides by it; resume is the resumption a restarted call's tool reads ([Resumed]).
//
// [engine.Runtime]: https://pkg.go.dev/github.com/wield-ai/wield/engine#Runtime
type ToolRunner interface {
	RunTool(ctx context.Context, t tool.Tool, call chat.ToolCall, resume *Resumption) (tool.Result, error)
}
