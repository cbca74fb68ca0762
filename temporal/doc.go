// Package temporal runs wield turns on Temporal (https://temporal.io): each turn is a workflow,
// each model call and each tool call an activity, so a turn survives crashes and deploys, waits
// days for a human's approval without holding a process, and spreads over as many machines as
// its tools need.
//
// The turn is the client's: a [Worker] takes a [client.Client] and runs its turns with the
// client's own loop, in the workflow: its advisor chain (memory, tool search, the
// application's), loop hooks and [toolcall.Manager] (approval, limits, error processing,
// interrupts, return direct) are the same code as in a process, and only model calls, tool
// calls and advisors' I/O leave the workflow, as activities (package engine says the rule such
// code follows). What the workflow decides is recorded in its history, so a replay on another
// worker makes the same decisions ([NewClientReplayer]).
//
//   - The workflow (on [Config.TaskQueue]) runs the loop: model call, tool round, next model
//     call, until the model answers, every tool called is return-direct, or the iteration cap
//     is reached; past its history bounds it continues as new between two rounds.
//   - A model call is an activity with its own timeout and retry policy; provider errors that
//     are not temporary are not retried. It streams: its text so far travels in its heartbeats
//     ([Config.StreamInterval]), which [Turn.Events] shows while the call runs.
//   - The tool calls of one response are parallel activities (on [Config.ToolTaskQueue], which
//     may be served by other machines: [NewToolWorker]); their results go back to the model in
//     the model's order. Long calls heartbeat, carrying the tool's progress
//     ([tool.ReportProgress]) as heartbeat details ([Turn.Progress]), and the events of the
//     agents a call runs ([client.AgentTool], a remote agent), which [Turn.Events] shows,
//     attributed, while the call runs. Calls of idempotent tools
//     (read-only or idempotent by their metadata) are retried when a worker is lost; any other
//     call runs at most once, and a call whose worker was lost waits for the application's
//     decision, as [client.CallRunning] does in a stored turn.
//   - A turn that needs approval, or whose tool interrupted it, waits: the workflow's query
//     returns the pending [client.TurnState] ([Turn.Pending]), and an update delivers the
//     application's decisions ([Turn.Decide]), checked against the tools before anything runs.
//   - With [Config.Memory], a memory advisor in the loop loads and stores the conversation
//     through recorded steps, so workers on many machines share it through a memory repository
//     (memory/sqlstore on PostgreSQL).
//   - Everything a turn carries stays under Temporal's payload limit ([Config.MaxPayloadBytes]):
//     a tool round whose results together are too large reaches the model with its largest
//     results replaced by errors saying so; a conversation still too large, or tool calls whose
//     arguments could not fit the model's next input, end the turn with [ErrPayloadTooLarge]
//     rather than leaving it stuck; the calls of a round whose inputs together are large start
//     in batches.
//
// A sub-agent among the client's own tools ([client.AgentTool]) runs its turn as a child
// workflow, with a history, limits and continue-as-new of its own; its stop stops the calling
// turn, whose resume runs the sub-agent's next turn, and [Turn.Events] reads its events from it.
//
// Turns started before the client's loop ran the workflow's own loop, which runs no advisor or
// hook; they replay on it, and [Config.WorkflowLoop] (deprecated) still starts turns on it.
package temporal
