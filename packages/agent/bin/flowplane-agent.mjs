#!/usr/bin/env node
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const USAGE = `usage: flowplane-agent --url <server URL> --key <device_ key> [--dir <userDir>] [--http-port <port>]

  --url        the Flowplane server (https://flowplane.example.com); FLOWPLANE_URL; repeat it
               for several instances (each reconnect tries the next)
  --key        a device key (device_…) made under Settings → API keys; FLOWPLANE_DEVICE_KEY
  --dir        where Node-RED keeps its flows, credentials and nodes (default ~/.flowplane-agent);
               install contrib nodes there: cd <dir> && npm install node-red-contrib-…
  --http-port  serve the flows' http-in nodes on this port (default: none)
  --insecure   send the key over plain http:// to another host (else only https://, or http:// to this machine)`;

const [major] = process.versions.node.split(".").map(Number);
if (major < 22) {
  process.stderr.write(`flowplane-agent needs Node.js 22 or later (Node-RED 5 does); this is ${process.version}\n`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    options: { insecure: { type: "boolean" }, url: { type: "string", multiple: true }, key: { type: "string" }, dir: { type: "string" }, "http-port": { type: "string" }, help: { type: "boolean" } },
    strict: true,
  }).values;
} catch (err) {
  process.stderr.write(`${err.message}\n${USAGE}\n`);
  process.exit(2);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const urls = args.url ?? (process.env.FLOWPLANE_URL ? [process.env.FLOWPLANE_URL] : []);
const key = args.key ?? process.env.FLOWPLANE_DEVICE_KEY;
if (urls.length === 0 || !key) {
  process.stderr.write(`--url and --key are required\n${USAGE}\n`);
  process.exit(2);
}
if (!key.startsWith("device_")) {
  process.stderr.write("--key must be a device key (device_…)\n");
  process.exit(2);
}
const httpPort = args["http-port"] ? Number(args["http-port"]) : undefined;
if (httpPort !== undefined && !(Number.isInteger(httpPort) && httpPort > 0 && httpPort < 65536)) {
  process.stderr.write("--http-port must be a port number\n");
  process.exit(2);
}

const { Agent } = await import("../lib/agent.js");
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
for (const u of urls) {
  let parsed;
  try {
    parsed = new URL(u);
  } catch {
    process.stderr.write(`--url: not a URL: ${u}\n`);
    process.exit(2);
  }
  // The device key would travel in clear text: only to this machine, unless asked for.
  if ((parsed.protocol === "http:" || parsed.protocol === "ws:") && !LOOPBACK.has(parsed.hostname) && !args.insecure) {
    process.stderr.write(`--url ${u}: the key would be sent unencrypted; use https:// (or --insecure)\n`);
    process.exit(2);
  }
}
const agent = new Agent({ urls, key, userDir: path.resolve(args.dir ?? process.env.FLOWPLANE_AGENT_DIR ?? path.join(os.homedir(), ".flowplane-agent")), httpPort });
const shutdown = () => {
  agent.stop().finally(() => process.exit(0));
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
await agent.start();
