// Preloaded into the Node MCP servers the tests start (NODE_OPTIONS="--require <this file>").
// Every TCP listener is bound to 127.0.0.1, whatever host the server asks for (server-everything
// listens on all interfaces), and the address it got is written to stderr as
// "WIELD_LISTENING 127.0.0.1:<port>", so tests can pass PORT=0 and learn the port without races.
"use strict";
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const isPort = (v) => typeof v === "number" || (typeof v === "string" && /^\d+$/.test(v));
  if (args.length === 0 || typeof args[0] === "function") {
    args.unshift(0, "127.0.0.1");
  } else if (isPort(args[0])) {
    if (typeof args[1] === "string") args[1] = "127.0.0.1";
    else args.splice(1, 0, "127.0.0.1");
  } else if (args[0] !== null && typeof args[0] === "object" && args[0].path === undefined) {
    args[0] = { ...args[0], host: "127.0.0.1" };
  }
  this.once("listening", () => {
    const a = this.address();
    if (a && typeof a === "object") process.stderr.write(`WIELD_LISTENING ${a.address}:${a.port}\n`);
  });
  return listen.apply(this, args);
};
