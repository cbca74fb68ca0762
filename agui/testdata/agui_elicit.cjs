// Answers an MCP server's question through a wield AG-UI endpoint with the AG-UI JavaScript
// client: a run that stops at the question (an interrupt whose responseSchema is the answer's),
// then a run that accepts it with content. Every event must parse with @ag-ui/core's schemas.
// Prints a summary as JSON.
const { userAgent, run, main } = require("./agui_run.cjs");

const url = process.argv[2];

main(async () => {
  const agent = userAgent(url, "node-elicit", "book me seats");
  const first = await run(agent, { runId: "run-1" });
  const interrupts = agent.pendingInterrupts.map((i) => ({ ...i }));
  const i = interrupts[0];
  // The answer follows the interrupt's responseSchema: an action from its enumeration, and
  // content with the requested schema's required fields.
  const schema = i.responseSchema;
  const actions = schema.properties.action.enum;
  const required = schema.properties.content.required;
  const content = Object.fromEntries(required.map((k) => [k, 2]));
  const second = await run(agent, {
    runId: "run-2",
    resume: [{ interruptId: i.id, status: "resolved", payload: { action: "accept", content } }],
  });
  return {
    first: first.events.map((e) => e.type),
    firstOutcome: first.finished && first.finished.outcome,
    interrupt: { id: i.id, reason: i.reason, message: i.message, toolCallId: i.toolCallId, server: i.metadata && i.metadata.server },
    actions,
    required,
    second: second.events.map((e) => e.type),
    results: second.events.filter((e) => e.type === "TOOL_CALL_RESULT").map((e) => e.content),
    result: second.finished && second.finished.result,
    pendingAfter: agent.pendingInterrupts.length,
  };
});
