import http from "node:http";
import { createRequire } from "node:module";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const require = createRequire(import.meta.url);

/** Node-RED's log levels (its `log` module): what the agent reports as node errors. */
const LOG_ERROR = 20;

/**
 * Node-RED embedded in the agent's process: `RED.init` / `RED.start` with the agent's own userDir,
 * no editor and no admin API (httpAdminRoot false), http-in nodes served only when a port is given. Its
 * flows.json (and flows_cred.json, encrypted with a secret kept in the userDir) persist there, so
 * the last deployment runs again after a restart, before the server is reachable.
 *
 * `on` receives what the flows do: debug messages (the debug node's comms publish), node statuses
 * and node errors (a logging handler), each with the flow (tab) it belongs to.
 */
export async function startNodeRed({ userDir, httpPort, on, logLevel = "warn" }) {
  const RED = require("node-red");
  // The runtime's event bus (@node-red/util, resolved from node-red's own dependencies).
  const { events } = createRequire(require.resolve("node-red"))("@node-red/util");
  const secretFile = path.join(userDir, ".credential-secret");
  if (!existsSync(secretFile)) writeFileSync(secretFile, randomBytes(32).toString("hex"), { mode: 0o600 });
  // Node-RED's http-in routes (RED.httpNode, an express app once init ran) answer the server's requests.
  const server = http.createServer((req, res) => RED.httpNode(req, res));
  const settings = {
    userDir,
    flowFile: "flows.json",
    credentialSecret: readFileSync(secretFile, "utf8").trim(),
    httpAdminRoot: false,
    // http-in nodes always get their routes; they are served only on --http-port.
    httpNodeRoot: "/",
    disableEditor: true,
    uiPort: httpPort ?? 0,
    diagnostics: { enabled: false },
    runtimeState: { enabled: false },
    telemetry: { enabled: false },
    externalModules: { autoInstall: false, palette: { allowInstall: false, allowUpload: false } },
    editorTheme: { tours: false },
    logging: {
      console: { level: logLevel, metrics: false, audit: false },
      flowplane: {
        level: "error",
        metrics: false,
        audit: false,
        handler: () => (entry) => {
          if (entry.level <= LOG_ERROR && entry.id && entry.z) on.error({ flowId: entry.z, nodeId: entry.id, message: String(entry.msg) });
        },
      },
    },
  };
  RED.init(server, settings);
  events.on("comms", (event) => {
    if (event.topic !== "debug") return;
    const d = event.data ?? {};
    // A node's error or warning shown in Node-RED's debug sidebar: errors reach the server through the logging handler.
    if (d.level !== undefined) return;
    on.debug({ flowId: d.z, nodeId: d._alias ?? d.id, runningId: d.id, alias: d._alias, path: d.path, name: d.name ?? "", property: d.property ?? "payload", msg: decodeDebug(d.msg, d.format), format: d.format ?? "", topic: d.topic });
  });
  events.on("node-status", (event) => on.status({ nodeId: event.id, status: event.status && Object.keys(event.status).length ? event.status : null }));
  await RED.start();
  if (httpPort) await new Promise((resolve) => server.listen(httpPort, resolve));
  return {
    RED,
    version: RED.version(),
    nodeTypes() {
      const sets = RED.nodes.getNodeList() ?? [];
      return [...new Set(sets.filter((s) => s.enabled !== false).flatMap((s) => s.types ?? []))].sort();
    },
    async stop() {
      await RED.stop();
      server.close();
    },
  };
}

/** The debug node sends its message encoded for the editor (RED.util.encodeObject): back to a value. */
function decodeDebug(msg, format) {
  if (typeof msg !== "string") return msg;
  if (format === "Object" || /^array\[/.test(format ?? "") || format === "null") {
    try {
      return JSON.parse(msg);
    } catch {
      return msg;
    }
  }
  if (format === "number") return Number(msg);
  if (format === "boolean") return msg === "true";
  return msg;
}
