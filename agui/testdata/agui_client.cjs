// Runs a turn against a wield AG-UI endpoint with the AG-UI JavaScript client: a run that stops
// for an approval, then a run that approves it. Every event must parse with @ag-ui/core's
// schemas, and the client's own checks of the event sequence must pass. Prints a summary as JSON.
const { HttpAgent } = require("@ag-ui/client");
const { EventSchemas } = require("@ag-ui/core/schemas");

const url = process.argv[2];

async function run(agent, params) {
  const events = [];
  let failed = null;
  let finished = null;
  await agent.runAgent(params, {
    onEvent({ event }) {
      const parsed = EventSchemas.safeParse(event);
      if (!parsed.success) {
        throw new Error(`event ${event.type} does not parse: ${JSON.stringify(parsed.error.issues)}`);
      }
      events.push(event);
    },
    onRunFinishedEvent(params) {
      finished = { outcome: params.outcome, interrupts: params.interrupts, result: params.result };
    },
    onRunFailed({ error }) {
      failed = String(error);
    },
  });
  if (failed) throw new Error(failed);
  return { events, finished };
}

(async () => {
  const agent = new HttpAgent({
    url,
    threadId: "node-thread",
    initialMessages: [{ id: "u1", role: "user", content: "write the notes" }],
  });
  const first = await run(agent, { runId: "run-1" });
  const interrupts = agent.pendingInterrupts.map((i) => ({ id: i.id, reason: i.reason, toolCallId: i.toolCallId }));
  const second = await run(agent, {
    runId: "run-2",
    resume: agent.pendingInterrupts.map((i) => ({ interruptId: i.id, status: "resolved", payload: { approved: true } })),
  });
  const out = {
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
  process.stdout.write(JSON.stringify(out));
})().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + "\n");
  process.exit(1);
});
