// What the AG-UI Node clients share: an agent on a thread that starts with one user message, a
// run whose every event must parse with @ag-ui/core's schemas, and a main that prints a
// failure's stack and exits 1.
const { HttpAgent } = require("@ag-ui/client");
const { EventSchemas } = require("@ag-ui/core/schemas");

// userAgent is an AG-UI client for the endpoint at url, on threadId, whose thread starts with
// the user saying content.
function userAgent(url, threadId, content) {
  return new HttpAgent({ url, threadId, initialMessages: [{ id: "u1", role: "user", content }] });
}

// run runs the agent once and returns its events and the RUN_FINISHED event's outcome,
// interrupts and result; a failed run or an event that does not parse throws.
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

// main runs body and prints the summary it returns as JSON.
function main(body) {
  body().then((out) => process.stdout.write(JSON.stringify(out))).catch((err) => {
    process.stderr.write(String(err && err.stack || err) + "\n");
    process.exit(1);
  });
}

module.exports = { userAgent, run, main };
