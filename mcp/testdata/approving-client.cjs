// The TypeScript SDK's client for TestServedApprovalTSClient: node approving-client.cjs URL MODE.
// MODE "accept" approves every call and answers every question with "savings"; "decline"
// declines every question; "none" declares no elicitation. It calls pay, pick and both, and
// prints their results, with the questions it was asked, as one JSON line.
"use strict";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

async function main() {
  const [url, mode] = process.argv.slice(2);
  const client = new Client(
    { name: "approving-client", version: "0.0.0" },
    { capabilities: mode === "none" ? {} : { elicitation: { form: {} } } },
  );
  const asked = [];
  if (mode !== "none") {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      if (mode === "decline") return { action: "decline" };
      const props = (req.params.requestedSchema || {}).properties || {};
      return { action: "accept", content: "answer" in props ? { answer: "savings" } : {} };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const out = { asked };
  for (const name of ["pay", "pick", "both"]) {
    const res = await client.callTool({ name, arguments: { amount: 5 } });
    out[name] = { text: (res.content || []).map((c) => c.text || "").join(""), isError: !!res.isError };
  }
  await client.close();
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + "\n");
  process.exit(1);
});
