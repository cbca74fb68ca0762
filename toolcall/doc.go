// Package toolcall executes the tool calls a model asks for: it decides which tools a request
// offers ([Manager.Resolve], [Manager.Definitions]) and runs the calls of a model response
// ([Manager.Execute]), returning the conversation to send next.
//
// # Execution
//
// The calls of one response, collected from every generation, run in parallel, at most
// [Config.Concurrency] at once. Their results come back in the model's order, all in one tool
// message appended after the assistant message. A tool whose [tool.Metadata] is Sequential runs
// alone: the calls before it finish first and the calls after it start only once it is done.
//
// Each call runs with a context carrying the call ([tool.WithCall]) and the request's tool context
// ([Turn.ToolContext], through [tool.WithContext]); [tool.Metadata.Timeout] bounds it.
// Tools must honour their context: a tool that ignores it is abandoned when its call times out or
// the turn ends, its result discarded.
//
// # Failures
//
// What goes wrong with one call is, by default, told to the model so it can correct itself: an
// unknown tool name (the result lists the available tools, or the ten with the closest names when
// there are many), arguments the tool rejects (tools built with [tool.Func], [tool.Methods] or
// [tool.New] validate them against their schema and say what to fix), any other error from the
// tool, a panic (recovered; the stack is logged) and a timeout all become a [chat.ToolResult] with
// IsError set. A [tool.ErrorProcessor] decides the text, or ends the turn instead ([AlwaysFail]).
// Blank arguments are passed to the tool as {}: streamed calls of tools without parameters may
// carry none.
//
// Some failures always end the turn, returning an error from Execute and cancelling the calls still
// running: an error marked with [tool.Fatal] (returned as a *[tool.ExecutionError]), the caller's
// context being cancelled or expiring (errors.Is(err, ctx.Err()) holds), and, by default, a
// breached call limit ([LimitError]).
//
// # Limits
//
// [Limits] cap the calls of one turn: per tool (default 40) and in total (default 150), as Spring
// AI 2.0.1 does. A [Turn] counts its calls across rounds; without one, the calls answered since
// the last user message of the prompt are counted. A breach either ends the turn
// ([LimitFail], the default) or is told to the model ([LimitTellModel]).
//
// # Approval and interrupts
//
// A round can stop instead of finishing, so that a person decides ([Result.Stopped],
// [Result.Calls]). Before any call runs, the [ApprovalPolicy] of the [Turn] ([AskFlagged] when
// none is set: tools whose metadata sets RequiresApproval) says which calls must wait for
// approval; if any must, none of the round's calls runs. [AskDestructive] reads the MCP hints of
// [tool.Metadata], [AskTools] names tools, [AskAny] combines policies, one's own function decides
// by arguments. While calls run, a tool may stop the turn to ask something by returning an
// [InterruptError] ([Interrupt], [InterruptWith]): the calls already started finish, later
// sequential groups wait. [Manager.ResumeTurn] finishes the round with a [Plan] per call: a
// given result (a rejection, an answer), edited arguments ([ValidateArguments] checks them),
// approval, or a restart whose tool finds the interrupt and the application's data with
// [Resumed]. Calls with a result never run again, and the round's calls are counted against the
// limits only once.
//
// # Return direct
//
// When every call of a response went to a return-direct tool and none failed,
// [Result.ReturnDirect] is set: the tool results are the final answer of the turn.
//
// # Observability
//
// Each call gets an OpenTelemetry span "execute_tool {name}" (GenAI semantic conventions), a child
// of the span in the caller's context, and a gen_ai.client.operation.duration measurement. Tool
// arguments and results go on spans and in logs only with [Config.RecordContent]; without it, a
// failed call's span status and log say what kind of failure it was (error.type) and, for
// invalid arguments, the paths and rules they broke, never the tool's error text or the values,
// which are content too. Panics are logged at error level with their value and stack. The
// [Observer] of the [Turn] passed to [Manager.ExecuteTurn] sees every call start and finish.
// Steps are logged with log/slog at debug level; the tool context is never logged.
package toolcall
