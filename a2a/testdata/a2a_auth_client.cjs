// Drives a wield agent whose tool needs a credential with the A2A JavaScript SDK's client
// (@a2a-js/sdk, v0.3 compatibility layer): the task stops in auth-required naming the
// credential, a message with it in a data part resumes the task, and tasks/get reads it back.
// Prints what it saw as JSON.
const { ClientFactory, JsonRpcTransportFactory, DefaultAgentCardResolver } = require('@a2a-js/sdk/client');
const { Role, TaskState } = require('@a2a-js/sdk');

const base = process.argv[2];
const secret = process.argv[3];
let n = 0;
function message(parts, task) {
  return {
    messageId: `js-${++n}`, role: Role.ROLE_USER, parts,
    taskId: task ? task.id : '', contextId: task ? task.contextId : '',
    metadata: undefined, extensions: [], referenceTaskIds: [],
  };
}
const text = (t) => ({ content: { $case: 'text', value: t } });
const data = (v) => ({ content: { $case: 'data', value: v } });
const partText = (ps) => (ps || []).filter((p) => p.content && p.content.$case === 'text').map((p) => p.content.value).join('');
const state = (s) => TaskState[s];
const taskOf = (res) => (res.id !== undefined && res.status ? res : (res.payload && res.payload.value) || res);

async function main() {
  const compat = { legacyCompat: { enabled: true } };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory(compat)],
    cardResolver: new DefaultAgentCardResolver(compat),
  });
  const client = await factory.createFromUrl(base);
  const out = {};
  const first = taskOf(await client.sendMessage({ tenant: '', message: message([text('list my repositories')]), configuration: undefined, metadata: undefined }));
  out.first = state(first.status.state);
  for (const part of first.status.message.parts) {
    if (part.content && part.content.$case === 'data' && part.content.value.pending) out.pending = part.content.value.pending;
  }
  const task = { id: first.id, contextId: first.contextId };
  const creds = {};
  creds[out.pending[0].credential] = secret;
  const done = taskOf(await client.sendMessage({ tenant: '', message: message([data({ credentials: creds })], task), configuration: undefined, metadata: undefined }));
  out.final = state(done.status.state);
  out.answer = (done.artifacts || []).map((a) => partText(a.parts)).join('');
  const got = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
  out.after = state(got.status.state);
  out.leaked = JSON.stringify(got, (k, v) => (typeof v === 'bigint' ? v.toString() : v)).includes(secret);
  process.stdout.write(JSON.stringify(out));
}
main().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
