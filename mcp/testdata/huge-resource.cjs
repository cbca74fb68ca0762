// A minimal MCP server over stdio whose one resource, demo://huge, is a text of HUGE_BYTES
// (default 1 GiB) bytes, streamed in 1 MiB chunks so that this process never holds it.
const size = Number(process.env.HUGE_BYTES || 1 << 30);
const out = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const chunk = Buffer.alloc(1 << 20, "a");
async function huge(id) {
  const write = (b) => process.stdout.write(b) || new Promise((r) => process.stdout.once("drain", r));
  await write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"contents":[{"uri":"demo://huge","mimeType":"text/plain","text":"`);
  for (let left = size; left > 0; left -= chunk.length) {
    await write(left >= chunk.length ? chunk : chunk.subarray(0, left));
  }
  await write(`"}]}}\n`);
}
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  switch (m.method) {
    case "initialize":
      return out({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { resources: {} }, serverInfo: { name: "huge", version: "1" } } });
    case "resources/list":
      return out({ jsonrpc: "2.0", id: m.id, result: { resources: [{ uri: "demo://huge", name: "huge", size }] } });
    case "resources/read":
      return void huge(m.id);
    default:
      return out({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "method not found" } });
  }
});
