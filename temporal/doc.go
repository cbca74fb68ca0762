// Package temporal runs wield turns on Temporal (https://temporal.io): each turn is a workflow,
// each model call and each tool call an activity, so a turn survives crashes and deploys, waits
// days for a human's approval without holding a process, and spreads over as many machines as
// its tools need.
//
// The turn is the client's: a [Worker] takes a [client.Client] and runs its turns with its
// model, tools, system prompt, default options, approval policy and call limits, deciding each
// step with wield's own pieces (the client's request assembly, the [toolcall.Manager]'s limits,
// approval policy, error processing and return-direct rule, [client.TurnState.Plans] for the
// application's decisions). What the workflow decides is recorded in its history, so a replay
// on another worker makes the same decisions.
//
//   - The workflow (on [Config.TaskQueue]) keeps the loop: model call, tool round, next model
//     call, until the model answers, every tool called is return-direct, or the iteration cap
//     is reached.
//   - A model call is an activity with its own timeout and retry policy; provider errors that
//     are not temporary are not retried.
//   - The tool calls of one response are parallel activities (on [Config.ToolTaskQueue], which
//     may be served by other machines: [NewToolWorker]); their results go back to the model in
//     the model's order. Long calls heartbeat, carrying the tool's progress
//     ([tool.ReportProgress]) as heartbeat details ([Turn.Progress]). Calls of idempotent tools
//     (read-only or idempotent by their metadata) are retried when a worker is lost; any other
//     call runs at most once, and a call whose worker was lost waits for the application's
//     decision, as [client.CallRunning] does in a stored turn.
//   - A turn that needs approval, or whose tool interrupted it, waits: the workflow's query
//     returns the pending [client.TurnState] ([Turn.Pending]), and an update delivers the
//     application's decisions ([Turn.Decide]), checked against the tools before anything runs.
//   - With [Config.Memory], the conversation is loaded and stored by activities, so workers on
//     many machines share it through a memory repository (memory/sqlstore on PostgreSQL).
//   - Everything a turn carries stays under Temporal's payload limit ([Config.MaxPayloadBytes]):
//     a tool round whose results together are too large reaches the model with its largest
//     results replaced by errors saying so; a conversation still too large, or tool calls whose
//     arguments could not fit the model's next input, end the turn with [ErrPayloadTooLarge]
//     rather than leaving it stuck; the calls of a round whose inputs together are large start
//     in batches.
//
// The client's advisors and tool-loop hooks do not run: the workflow is the loop. Model output
// is not streamed token by token; [Turn.Events] reports each model response, tool call and stop
// as it happens.
package temporal
