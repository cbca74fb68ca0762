// A small A2A agent built on the A2A JavaScript SDK's server (@a2a-js/sdk: DefaultRequestHandler
// and its v0.3 JSON-RPC handler, on node:http), for wield's remote-agent tool. It prints
// "PORT <n>" once listening on 127.0.0.1. Its agent:
//   "approve: X"  asks for approval (input-required), then deletes X on "yes";
//   "slow"        works until the task is cancelled;
//   anything else answers "echo: <text>".
// GET /runs reports how many deletions ran and how many tasks were cancelled.
const http = require('node:http');
const { TaskState, Role } = require('@a2a-js/sdk');
const { DefaultRequestHandler, InMemoryTaskStore, ServerCallContext } = require('@a2a-js/sdk/server');
const { LegacyJsonRpcTransportHandler } = require('@a2a-js/sdk/compat/v0_3/server');

const counts = { deleted: 0, canceled: 0 };
const cancelled = new Set();

const text = (t) => ({ content: { $case: 'text', value: t }, metadata: undefined, filename: '', mediaType: '' });
const agentMsg = (ctx, t) => ({ messageId: `m-${Math.random().toString(36).slice(2)}`, contextId: ctx.contextId, taskId: ctx.taskId,
  role: Role.ROLE_AGENT, parts: [text(t)], metadata: undefined, extensions: [], referenceTaskIds: [] });
const status = (ctx, state, t) => ({ kind: 'statusUpdate', data: { taskId: ctx.taskId, contextId: ctx.contextId,
  status: { state, message: t ? agentMsg(ctx, t) : undefined, timestamp: new Date().toISOString() }, metadata: undefined } });
const artifact = (ctx, t) => ({ kind: 'artifactUpdate', data: { taskId: ctx.taskId, contextId: ctx.contextId,
  artifact: { artifactId: 'answer', name: 'answer', description: '', parts: [text(t)], metadata: undefined, extensions: [] },
  append: false, lastChunk: true, metadata: undefined } });
const taskEvent = (ctx, state) => ({ kind: 'task', data: ctx.task || { id: ctx.taskId, contextId: ctx.contextId,
  status: { state, message: undefined, timestamp: new Date().toISOString() }, artifacts: [], history: [ctx.userMessage], metadata: undefined } });
const userText = (m) => (m.parts || []).filter((p) => p.content && p.content.$case === 'text').map((p) => p.content.value).join('');

const executor = {
  async execute(ctx, bus) {
    const said = userText(ctx.userMessage).trim();
    bus.publish(taskEvent(ctx, TaskState.TASK_STATE_SUBMITTED));
    if (ctx.task) {
      const what = (ctx.task.history[0] && userText(ctx.task.history[0]).replace(/^approve:\s*/, '')) || '?';
      if (said.toLowerCase() === 'yes') {
        counts.deleted++;
        bus.publish(artifact(ctx, `deleted ${what}`));
        bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED));
      } else {
        bus.publish(status(ctx, TaskState.TASK_STATE_REJECTED, `not deleting ${what}`));
      }
      bus.finished();
      return;
    }
    if (said.startsWith('approve:')) {
      const what = said.slice('approve:'.length).trim();
      bus.publish(status(ctx, TaskState.TASK_STATE_WORKING, `Looking at ${what}.`));
      bus.publish(status(ctx, TaskState.TASK_STATE_INPUT_REQUIRED, `Delete ${what}?`));
      bus.finished();
      return;
    }
    if (said === 'slow') {
      bus.publish(status(ctx, TaskState.TASK_STATE_WORKING, 'working'));
      while (!cancelled.has(ctx.taskId)) await new Promise((r) => setTimeout(r, 10));
      counts.canceled++;
      bus.publish(status(ctx, TaskState.TASK_STATE_CANCELED));
      bus.finished();
      return;
    }
    bus.publish(status(ctx, TaskState.TASK_STATE_WORKING, 'thinking'));
    bus.publish(artifact(ctx, `echo: ${said}`));
    bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED));
    bus.finished();
  },
  async cancelTask(taskId) {
    cancelled.add(taskId);
  },
};

let port = 0;
const card = () => ({ name: 'JS Agent', description: 'An agent on the A2A JavaScript SDK', version: '1.0.0',
  supportedInterfaces: [{ url: `http://127.0.0.1:${port}/`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' }],
  capabilities: { streaming: true, pushNotifications: false, extensions: [] }, defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'], skills: [], securitySchemes: {}, securityRequirements: [], signatures: [] });
let handler;

const server = http.createServer(async (req, res) => {
  if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ name: 'JS Agent', description: 'An agent on the A2A JavaScript SDK', url: `http://127.0.0.1:${port}/`,
      version: '1.0.0', protocolVersion: '0.3.0', preferredTransport: 'JSONRPC', capabilities: { streaming: process.env.NO_STREAM ? false : true },
      defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [] }));
    return;
  }
  if (req.method === 'GET' && req.url === '/runs') {
    res.end(JSON.stringify(counts));
    return;
  }
  let body = '';
  for await (const chunk of req) body += chunk;
  const result = await handler.handle(body, new ServerCallContext({ requestedVersion: '0.3' }));
  if (result && typeof result[Symbol.asyncIterator] === 'function') {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    for await (const ev of result) res.write(`data: ${JSON.stringify(ev)}\n\n`);
    res.end();
    return;
  }
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(result));
});
server.listen(0, '127.0.0.1', () => {
  port = server.address().port;
  handler = new LegacyJsonRpcTransportHandler(new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor));
  process.stdout.write(`PORT ${port}\n`);
});
