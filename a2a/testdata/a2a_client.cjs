// Drives a wield agent served over A2A with the A2A JavaScript SDK's client (@a2a-js/sdk, through
// its v0.3 compatibility layer): a streamed task that stops for approval, a reply that resumes it,
// tasks/get, and a task cancelled while it waits. Prints what it saw as JSON.
const { connect, message, send, text, data, partText, state, main } = require('./a2a_js.cjs');

const base = process.argv[2];

main(async () => {
  const client = await connect(base);
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
  const done = await send(client, [data({ decisions: [{ id: pending[0].id, approved: true }] })], task);
  out.final = state(done.status.state);
  out.answer = (done.artifacts || []).map((a) => partText(a.parts)).join('');
  const after = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
  out.after = state(after.status.state);
  // A second task waits; cancel it.
  const t2 = await send(client, [text('delete more')]);
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
  return out;
});
