// The TypeScript SDK's client for TestServedToolAsksTSClient: node asking-client.cjs URL MODE.
// MODE "willing" declares elicitation and sampling and answers them; "unwilling" declares neither.
// It calls the server's confirm and summarize tools and prints their results as one JSON line.
"use strict";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ElicitRequestSchema, CreateMessageRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

async function main() {
  const [url, mode] = process.argv.slice(2);
  const willing = mode === "willing";
  const client = new Client(
    { name: "asking-client", version: "0.0.0" },
    { capabilities: willing ? { elicitation: { form: {} }, sampling: {} } : {} },
  );
  if (willing) {
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { ok: true } }));
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
      model: "ts-model",
      role: "assistant",
      content: { type: "text", text: req.params.messages[0].content.text.toLowerCase() },
    }));
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const out = {};
  for (const name of ["confirm", "summarize"]) {
    const res = await client.callTool({ name, arguments: name === "summarize" ? { text: "abc" } : {} });
    out[name] = { text: res.content.map((c) => c.text || "").join(""), isError: !!res.isError };
  }
  await client.close();
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + "\n");
  process.exit(1);
});
