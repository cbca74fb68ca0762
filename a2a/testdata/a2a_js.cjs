// What the A2A JavaScript SDK clients share (@a2a-js/sdk, through its v0.3 compatibility
// layer): a client for an agent's URL, user messages and parts in the SDK's shapes, reading
// text and states back, and a main that prints a failure's stack and exits 1.
const { ClientFactory, JsonRpcTransportFactory, DefaultAgentCardResolver } = require('@a2a-js/sdk/client');
const { Role, TaskState } = require('@a2a-js/sdk');

// connect resolves the agent card at base and returns a JSON-RPC client for it.
function connect(base) {
  const compat = { legacyCompat: { enabled: true } };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory(compat)],
    cardResolver: new DefaultAgentCardResolver(compat),
  });
  return factory.createFromUrl(base);
}

let n = 0;
// message is a user message with parts, continuing task when it is given.
function message(parts, task) {
  return {
    messageId: `js-${++n}`, role: Role.ROLE_USER, parts,
    taskId: task ? task.id : '', contextId: task ? task.contextId : '',
    metadata: undefined, extensions: [], referenceTaskIds: [],
  };
}
// send sends message(parts, task) and returns the task the reply carries.
async function send(client, parts, task) {
  const res = await client.sendMessage({ tenant: '', message: message(parts, task), configuration: undefined, metadata: undefined });
  return res.id !== undefined && res.status ? res : (res.payload && res.payload.value) || res;
}
const text = (t) => ({ content: { $case: 'text', value: t } });
const data = (v) => ({ content: { $case: 'data', value: v } });
const partText = (ps) => (ps || []).filter((p) => p.content && p.content.$case === 'text').map((p) => p.content.value).join('');
const state = (s) => TaskState[s];

// main runs body and prints the summary it returns as JSON.
function main(body) {
  body().then((out) => process.stdout.write(JSON.stringify(out))).catch((e) => {
    console.error(e && e.stack || e);
    process.exit(1);
  });
}

module.exports = { connect, message, send, text, data, partText, state, main };
