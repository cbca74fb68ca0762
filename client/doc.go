// Package client is wield's chat client: a fluent request, an advisor chain that reads like HTTP
// middleware, and the tool loop.
//
//	c, err := client.New(model)
//	...
//	answer, err := c.Prompt("What day is tomorrow?").Tools(&DateTimeTools{}).Call(ctx).Content()
//
// # Advisors
//
// Every call goes through a chain of advisors ordered by [Advisor.Order], lower first (outer).
// An [Advisor] wraps the rest of the chain like HTTP middleware wraps a handler, for calls and
// streams alike: on a stream, events reach the consumer through [Request.Emit] while the chain
// runs. The default orders are relative to
// [HighestPrecedence]: memory advisors at [OrderMemory] (200), the tool loop at
// [OrderToolCalling] (300). An advisor ordered above the tool loop runs inside it, once per model
// call; one ordered below runs once per turn.
//
// # The tool loop
//
// The [ToolLoop] is registered automatically unless the client or the call opts out
// ([WithoutToolLoop], [Spec.WithoutToolLoop]), in which case tool calls come back to the caller
// for a user-controlled loop or for delegation. It runs the model's tool calls through a
// [toolcall.Manager] (in parallel, results in the model's order), sends the results back and
// repeats until the model answers, every called tool is return-direct, or the iteration cap is
// reached; [Response.Outcome] says which. Usage is summed over every model call.
//
// The loop lives only there, one implementation for calls and streams. Extensions customise it
// through [ToolLoopHooks] (initialize, before call, after call, next instructions, finalize, and
// an end hook that runs however the turn ends), composed with [ChainHooks], and become tool loops
// by embedding a *ToolLoop; a chain holds at most one, a custom one replacing the default.
// [Response.Messages] holds what the turn added to the conversation.
//
// # Approval, interrupts and resumable turns
//
// A tool can require approval ([tool.Metadata].RequiresApproval), and an approval policy
// ([WithApproval], [Spec.Approval]; see [toolcall.ApprovalPolicy]) decides per call, by tool,
// MCP hint or arguments. When a model response asks for calls that need approval, none of them
// runs: the turn ends with [OutcomeApproval] and [Response.Pending], a [TurnState] that is plain
// JSON. A tool can also stop the turn to ask something ([toolcall.Interrupt]): [OutcomeInterrupted].
// The application decides each pending call ([TurnState.Pending]: [Approve], [ApproveWith],
// [Reject], [Answer], [Restart]) and continues the turn with [Client.Resume], in this process or
// another; it goes on exactly where it stopped, and calls with a result never run again.
// Both sides are bounded: a decision's id, path, text, arguments and data come to at most
// [MaxDecisionBytes] (1 MiB; over it, [ErrInvalidDecision] before anything runs), and a tool's
// interrupt message and data to at most [toolcall.MaxInterruptBytes] (1 MiB; over it, the call
// fails with an error the model reads, and nothing is stored).
//
// With a [TurnStore] ([WithTurnStore]; memory.Turns makes one of a memory repository) the loop
// saves the turn's state under the conversation when it stops, before a round's calls start and
// after each round, so a turn interrupted in one process is resumed in another, each state once
// ([ErrAlreadyResumed]). A turn that fails after a tool round returns a [TurnError] whose state
// retries it from the next model call without running the round's calls again.
//
// # Agents as tools
//
// [AgentTool] turns a client into a tool. Its turn has its own loop, limits and counters; on a
// stream its events reach the caller's stream attributed to it ([Event.Agent]); its approvals
// and interrupts stop the calling turn, whose resume reaches back down into it.
//
// # Streaming
//
// [Spec.Stream] gives the text of every model call of the turn as it arrives, and an event
// stream for user interfaces that also reports each tool call as it starts and finishes (name,
// id, arguments, result, duration, error). Tools run between rounds.
//
// # Observability
//
// With the OpenTelemetry API only: a span per model call ("chat {model}", GenAI semantic
// conventions), an "invoke_agent" span per tool loop as the parent of the chat spans and of the
// manager's "execute_tool" spans, the gen_ai.client.operation.duration and
// gen_ai.client.token.usage metrics, and log/slog debug logs of each step (never tool arguments
// or tool context).
package client
