import { existsSync, mkdirSync, readFileSync, writeFileSync, renameSync } from "node:fs";
import path from "node:path";
import WebSocket from "ws";
import { loadOrCreateKeyPair, openSealed } from "./seal.js";
import { startNodeRed } from "./node-red.js";

const AGENT_VERSION = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;

/** Reconnect backoff: the first retry after 0.5 s, doubling to at most 30 s, ±20 % jitter; reset once connected. */
export const BACKOFF = { initialMs: 500, factor: 2, maxMs: 30_000, jitter: 0.2 };

export function backoffDelay(attempt, random = Math.random) {
  const base = Math.min(BACKOFF.maxMs, BACKOFF.initialMs * BACKOFF.factor ** attempt);
  return Math.round(base * (1 - BACKOFF.jitter + 2 * BACKOFF.jitter * random()));
}

/** Node types a flows.json needs that `has` lacks (tabs, subflows, groups and subflow instances are Node-RED's own). */
export function missingTypes(flows, has) {
  const missing = new Set();
  for (const n of flows) {
    const type = typeof n?.type === "string" ? n.type : "";
    if (!type || type === "tab" || type === "subflow" || type === "group" || type.startsWith("subflow:") || has.has(type)) continue;
    missing.add(type);
  }
  return [...missing].sort();
}

/** `https://host` → `wss://host/ws`; a ws(s):// URL is taken as it is. */
export function socketUrl(url) {
  const u = new URL(url);
  if (u.protocol === "http:" || u.protocol === "https:") {
    u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
    u.pathname = `${u.pathname.replace(/\/+$/, "")}/ws`;
  }
  return u.toString();
}

/**
 * The device agent (SPEC §22): runs Node-RED with the flows deployed to this device, connects out
 * to the server's /ws with its `device_` key (behind NAT: the device dials), says hello (versions,
 * node types, public key, what it runs), applies `agent.deploy`, sends debug / status / errors up,
 * and reconnects with backoff. Offline it goes on running what it last applied, also after a restart.
 */
export class Agent {
  constructor({ urls, key, userDir, httpPort, log = (line) => process.stderr.write(`${line}\n`) }) {
    // Several URLs (instances of one installation): each reconnect tries the next.
    this.urls = urls.map(socketUrl);
    this.urlIndex = 0;
    this.key = key;
    this.userDir = userDir;
    this.httpPort = httpPort;
    this.log = log;
    this.attempt = 0;
    this.ws = null;
    this.stopped = false;
    this.nodeFlows = new Map();
    this.stateFile = path.join(userDir, "flowplane-agent.json");
  }

  async start() {
    mkdirSync(this.userDir, { recursive: true, mode: 0o700 });
    this.keys = loadOrCreateKeyPair(path.join(this.userDir, "agent-key.pem"));
    this.state = existsSync(this.stateFile) ? JSON.parse(readFileSync(this.stateFile, "utf8")) : { applied: {} };
    this.indexFlows(this.readFlowsFile());
    this.nodeRed = await startNodeRed({
      userDir: this.userDir,
      httpPort: this.httpPort,
      on: {
        debug: (d) => this.send({ type: "agent.debug", ...this.debugSource(d), name: d.name, property: d.property, msg: d.msg, format: d.format, ...(typeof d.topic === "string" ? { topic: d.topic } : {}) }),
        status: (s) => {
          const where = this.nodeSource(s.nodeId);
          if (where) this.send({ type: "agent.status", flow_id: where.flow_id, node_id: where.node_id, status: s.status });
        },
        error: (e) => {
          const where = this.nodeSource(e.nodeId);
          this.send({ type: "agent.error", flow_id: where?.flow_id ?? e.flowId, node_id: where?.node_id ?? e.nodeId, message: e.message });
        },
      },
    });
    this.log(`flowplane-agent ${AGENT_VERSION}: Node-RED ${this.nodeRed.version}, ${Object.keys(this.state.applied).length} flow(s) from ${this.userDir}`);
    this.connect();
  }

  async stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.ws?.close(1000, "agent stopping");
    await this.nodeRed?.stop();
  }

  readFlowsFile() {
    const file = path.join(this.userDir, "flows.json");
    try {
      return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : [];
    } catch {
      return [];
    }
  }

  /**
   * Where a debug message comes from, as the server's own runtime says it: a node inside a subflow
   * instance (Node-RED's `_alias` and debug `path`, `<flow>/<instance>/<nested instance alias>…`)
   * reports its flow, the running id the server would give it (`<instance>-<inner id>`) and the
   * subflow source (src/shared/realtime.ts, DebugSubflowSource). The server marks the ids of a
   * definition it had to copy for this device with `~` (services/devices/device-subflows.ts): the
   * original ids are reported.
   */
  debugSource(d) {
    const original = (id) => String(id).split("~")[0];
    const segments = typeof d.path === "string" ? d.path.split("/").map(original) : [];
    if (typeof d.alias !== "string" || segments.length < 2) return { flow_id: d.flowId, node_id: d.nodeId };
    const instancePath = [];
    for (const segment of segments.slice(1)) instancePath.push(instancePath.length === 0 ? segment : `${instancePath[instancePath.length - 1]}-${segment}`);
    const nodeId = original(d.alias);
    const innermost = instancePath[instancePath.length - 1];
    return {
      flow_id: segments[0],
      node_id: `${innermost}-${nodeId}`,
      subflow: { instance_id: instancePath[0], instance_path: instancePath, subflow_id: original(this.nodeFlows.get(d.alias) ?? ""), node_id: nodeId, path: segments.join("/") },
    };
  }

  /**
   * The flow and the id the server knows a running node by, for its statuses and errors: a node of
   * a flow as it is; a node inside a subflow instance (Node-RED runs it as `<instance>-<inner id>`,
   * its flow's `path` saying where) as debugSource reports it. Null: not a node of a deployed flow.
   */
  nodeSource(runningId) {
    const node = this.nodeRed.RED.nodes.getNode(runningId);
    if (node && typeof node._alias === "string" && typeof node._flow?.path === "string") {
      const { flow_id, node_id } = this.debugSource({ path: node._flow.path, alias: node._alias, flowId: node.z, nodeId: runningId });
      return flow_id ? { flow_id, node_id } : null;
    }
    const flowId = this.nodeFlows.get(runningId);
    return flowId ? { flow_id: flowId, node_id: runningId } : null;
  }

  /** Which flow (tab) each node belongs to: statuses and errors are reported per flow. */
  indexFlows(flows) {
    this.nodeFlows = new Map();
    for (const n of flows) if (n && typeof n.id === "string" && typeof n.z === "string") this.nodeFlows.set(n.id, n.z);
  }

  connect() {
    if (this.stopped) return;
    this.url = this.urls[this.urlIndex % this.urls.length];
    const ws = new WebSocket(this.url, { headers: { "x-api-key": this.key }, handshakeTimeout: 10_000 });
    this.ws = ws;
    ws.on("open", () => this.log(`connected to ${this.url}`));
    ws.on("message", (data) => {
      let frame;
      try {
        frame = JSON.parse(data.toString());
      } catch {
        return;
      }
      this.onFrame(frame).catch((err) => this.log(`frame ${frame.type} failed: ${err.message}`));
    });
    ws.on("error", (err) => this.log(`connection error: ${err.message}`));
    ws.on("close", (code, reason) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.ready = false;
      if (this.stopped) return;
      this.urlIndex++;
      const delay = backoffDelay(this.attempt++);
      this.log(`disconnected (${code}${reason.length ? ` ${reason.toString()}` : ""}); retrying in ${delay} ms`);
      this.retryTimer = setTimeout(() => this.connect(), delay);
    });
  }

  send(frame) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN && this.ready) this.ws.send(JSON.stringify(frame));
  }

  async onFrame(frame) {
    switch (frame.type) {
      case "ready":
        this.attempt = 0;
        this.ready = true;
        this.ws.send(
          JSON.stringify({
            type: "agent.hello",
            agent_version: AGENT_VERSION,
            node_red_version: this.nodeRed.version,
            node_types: this.nodeRed.nodeTypes(),
            public_key: this.keys.publicKey,
            applied: this.state.applied,
            ...(this.state.revision ? { revision: this.state.revision } : {}),
          }),
        );
        return;
      case "agent.deploy":
        return this.deploy(frame);
      case "agent.inject":
        return this.inject(frame);
      case "agent.active":
        return this.setActive(frame);
      case "error":
        this.log(`server: ${frame.code} ${frame.message}`);
        return;
      default:
        return;
    }
  }

  /** Applies a deployment as a whole (Node-RED's "full" deploy), then says what runs. */
  async deploy(frame) {
    const flows = frame.flows.map((n) => ({ ...n }));
    const credentials = {};
    try {
      if (frame.sealed) {
        const secrets = JSON.parse(openSealed(this.keys.privateKey, frame.sealed));
        for (const [id, creds] of Object.entries(secrets.credentials ?? {})) credentials[id] = { ...creds };
        // Secret variables: the tab's env entries of Node-RED's "cred" type, their values in the tab's credentials.
        for (const [flowId, vars] of Object.entries(secrets.env ?? {})) {
          const tab = flows.find((n) => n.id === flowId && n.type === "tab");
          if (!tab) continue;
          tab.env = [...(tab.env ?? []).filter((e) => !(e.name in vars)), ...Object.keys(vars).map((name) => ({ name, value: "", type: "cred" }))];
          credentials[flowId] = { ...credentials[flowId], ...vars };
        }
      }
      // Node-RED given a type it lacks would start none of the flows ("Waiting for missing types"):
      // refused whole instead, and what ran before goes on. (The server sends no flow whose types
      // this device did not report; a node removed since the agent said hello ends here.)
      const missing = missingTypes(flows, new Set(this.nodeRed.nodeTypes()));
      if (missing.length > 0) throw new Error(`this device has no node type${missing.length === 1 ? "" : "s"} ${missing.join(", ")}`);
      await this.nodeRed.RED.nodes.setFlows(flows, credentials, "full");
    } catch (err) {
      this.log(`deployment could not be applied: ${err.message}`);
      this.send({ type: "agent.applied", applied: this.state.applied, error: String(err.message).slice(0, 2000), failed: frame.deployments });
      return;
    }
    this.indexFlows(flows);
    this.state = { applied: frame.deployments, ...(typeof frame.revision === "string" ? { revision: frame.revision } : {}) };
    const tmp = `${this.stateFile}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.state), { mode: 0o600 });
    renameSync(tmp, this.stateFile);
    this.log(`applied ${Object.keys(frame.deployments).length} flow(s)`);
    this.send({ type: "agent.applied", applied: this.state.applied });
  }

  /** A debug node's button: Node-RED's POST /debug/{id}/enable|disable sets the running node's `active` so. */
  setActive(frame) {
    const node = this.nodeRed.RED.nodes.getNode(frame.node_id);
    if (!node || node.type !== "debug") {
      this.send({ type: "agent.error", flow_id: frame.flow_id, node_id: frame.node_id, message: "active: no such debug node runs on this device" });
      return;
    }
    node.active = frame.active === true;
  }

  inject(frame) {
    const node = this.nodeRed.RED.nodes.getNode(frame.node_id);
    if (!node) {
      this.send({ type: "agent.error", flow_id: frame.flow_id, node_id: frame.node_id, message: "inject: no such node runs on this device" });
      return;
    }
    if (node.type === "inject" && Array.isArray(node.props)) {
      // The inject node's own properties, with the request's payload and topic in their place (as Node-RED's POST /inject does).
      const props = node.props.filter((p) => !(p.p === "payload" && "payload" in frame) && !(p.p === "topic" && "topic" in frame));
      if ("payload" in frame) props.push({ p: "payload", v: JSON.stringify(frame.payload), vt: "json" });
      if ("topic" in frame) props.push({ p: "topic", v: String(frame.topic), vt: "str" });
      node.receive({ __user_inject_props__: props });
    } else node.receive({ ...("payload" in frame ? { payload: frame.payload } : {}), ...("topic" in frame ? { topic: frame.topic } : {}) });
  }
}
