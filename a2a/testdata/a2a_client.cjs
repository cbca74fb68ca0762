// Drives a wield agent served over A2A with the A2A JavaScript SDK's client (@a2a-js/sdk, through
// its v0.3 compatibility layer): a streamed task that stops for approval, a reply that resumes it,
// tasks/get, and a task cancelled while it waits. Prints what it saw as JSON.
const { ClientFactory, JsonRpcTransportFactory, DefaultAgentCardResolver } = require('@a2a-js/sdk/client');
const { Role, TaskState } = require('@a2a-js/sdk');

const base = process.argv[2];
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

async function main() {
  const compat = { legacyCompat: { enabled: true } };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory(compat)],
    cardResolver: new DefaultAgentCardResolver(compat),
  });
  const client = await factory.createFromUrl(base);
  const out = { events: [] };
  let task = null;
  let pending = null;
  for await (const ev of client.sendMessageStream({ tenant: '', message: message([text('delete my notes')]), configuration: undefined, metadata: undefined })) {
    const p = ev.payload || ev;
    const kind = p.$case;
    const v = p.value;
    if (kind === 'task') task = { id: v.id, contextId: v.contextId };
    if (kind === 'statusUpdate') {
      task = task || { id: v.taskId, contextId: v.contextId };
      out.events.push(`status:${state(v.status.state)}`);
      const msg = v.status.message;
      for (const part of (msg && msg.parts) || []) {
        if (part.content && part.content.$case === 'data' && part.content.value.pending) pending = part.content.value.pending;
        if (part.content && part.content.$case === 'data' && part.content.value.tool) out.events.push(`tool:${part.content.value.event}:${part.content.value.tool}`);
      }
    } else {
      out.events.push(kind);
    }
  }
  out.pending = pending;
  out.taskId = task.id;
  const got = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
  out.waiting = state(got.status.state);
  // Resume: approve the pending call by id.
  const res = await client.sendMessage({ tenant: '', message: message([data({ decisions: [{ id: pending[0].id, approved: true }] })], task), configuration: undefined, metadata: undefined });
  const done = res.id !== undefined && res.status ? res : (res.payload && res.payload.value) || res;
  out.final = state(done.status.state);
  out.answer = (done.artifacts || []).map((a) => partText(a.parts)).join('');
  const after = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
  out.after = state(after.status.state);
  // A second task waits; cancel it.
  const second = await client.sendMessage({ tenant: '', message: message([text('delete more')]), configuration: undefined, metadata: undefined });
  const t2 = second.id !== undefined ? second : second.payload.value;
  out.secondState = state(t2.status.state);
  const canceled = await client.cancelTask({ tenant: '', id: t2.id, metadata: undefined });
  out.canceled = state(canceled.status.state);
  // An unknown task is an error.
  try {
    await client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined });
    out.unknown = 'found';
  } catch (e) {
    out.unknown = e.constructor.name + ': ' + e.message;
  }
  process.stdout.write(JSON.stringify(out));
}
main().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
