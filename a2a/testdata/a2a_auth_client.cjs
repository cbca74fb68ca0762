// Drives a wield agent whose tool needs a credential with the A2A JavaScript SDK's client
// (@a2a-js/sdk, v0.3 compatibility layer): the task stops in auth-required naming the
// credential, a message with it in a data part resumes the task, and tasks/get reads it back.
// Prints what it saw as JSON.
const { connect, send, text, data, partText, state, main } = require('./a2a_js.cjs');

const base = process.argv[2];
const secret = process.argv[3];

main(async () => {
  const client = await connect(base);
  const out = {};
  const first = await send(client, [text('list my repositories')]);
  out.first = state(first.status.state);
  for (const part of first.status.message.parts) {
    if (part.content && part.content.$case === 'data' && part.content.value.pending) out.pending = part.content.value.pending;
  }
  const task = { id: first.id, contextId: first.contextId };
  const creds = {};
  creds[out.pending[0].credential] = secret;
  const done = await send(client, [data({ credentials: creds })], task);
  out.final = state(done.status.state);
  out.answer = (done.artifacts || []).map((a) => partText(a.parts)).join('');
  const got = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
  out.after = state(got.status.state);
  out.leaked = JSON.stringify(got, (k, v) => (typeof v === 'bigint' ? v.toString() : v)).includes(secret);
  return out;
});
