// Runs a turn against a wield AG-UI endpoint with the AG-UI JavaScript client: a run that stops
// for an approval, then a run that approves it. Every event must parse with @ag-ui/core's
// schemas, and the client's own checks of the event sequence must pass. Prints a summary as JSON.
const { userAgent, run, main } = require("./agui_run.cjs");

const url = process.argv[2];

main(async () => {
  const agent = userAgent(url, "node-thread", "write the notes");
  const first = await run(agent, { runId: "run-1" });
  const interrupts = agent.pendingInterrupts.map((i) => ({ id: i.id, reason: i.reason, toolCallId: i.toolCallId }));
  const second = await run(agent, {
    runId: "run-2",
    resume: agent.pendingInterrupts.map((i) => ({ interruptId: i.id, status: "resolved", payload: { approved: true } })),
  });
  return {
    first: first.events.map((e) => e.type),
    firstOutcome: first.finished && first.finished.outcome,
    interrupts,
    args: first.events.filter((e) => e.type === "TOOL_CALL_ARGS").map((e) => e.delta),
    second: second.events.map((e) => e.type),
    secondOutcome: second.finished && second.finished.outcome,
    result: second.finished && second.finished.result,
    toolResults: second.events.filter((e) => e.type === "TOOL_CALL_RESULT").map((e) => e.content),
    messages: agent.messages.map((m) => m.role),
    pendingAfter: agent.pendingInterrupts.length,
    modelCalls: [...first.events, ...second.events].filter((e) => e.type === "CUSTOM" && e.name === "wield.model_call").map((e) => ({ name: e.name, value: e.value })),
  };
});
