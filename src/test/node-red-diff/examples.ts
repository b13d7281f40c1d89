/**
 * Node-RED 5.0's own example flows (vendored at src/test/fixtures/node-red-examples) as
 * differential cases: what scripts/diff-examples.ts runs in Node-RED and in ours, and what
 * node-red-examples.test.ts runs in ours against the answers it recorded
 * (src/test/fixtures/node-red-examples.recorded.json). Per example file: tabs and comments are
 * dropped, `z` stripped (groups, junctions, subflow definitions and configuration nodes are kept and
 * go through our import as the rest), debug nodes removed (the wires to them then name collectors,
 * by the debug node's id); inject nodes neither fire at start nor repeat. Each inject node is one
 * case: `{}` delivered into it. An example without inject but with http-in nodes is one case
 * driven by HTTP requests to its paths. Each side serves its http-in paths and websocket listeners
 * on a port, and the examples' `localhost:1880` is that side's (pointAt).
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { normalizeArrivals } from "./normalize";
import type { Arrival, DiffCase, DiffRequest, NodeRedNode } from "./types";

export const EXAMPLES_DIR = path.resolve(import.meta.dirname, "../fixtures/node-red-examples");
/** Node-RED's answers to the examples, as diff:examples last recorded them, and what it concluded per case. */
export const EXAMPLES_RECORDED = path.resolve(import.meta.dirname, "../fixtures/node-red-examples.recorded.json");
export const EXAMPLE_SETTLE_MS = 1500;

export type ExampleStatus = "same" | "different" | "nondeterministic" | "error";

export interface RecordedExamples {
  node_red: string;
  /** Per case (`<file> <inject id>`): its result, and Node-RED's arrivals as compared (normalizeExample). */
  cases: Record<string, { status: ExampleStatus; arrivals: Arrival[] }>;
}

/** Where one side serves the examples' own server (`http://localhost:1880`, `ws://localhost:1880`). */
export interface ExampleSide {
  http: string;
  ws: string;
}

/** Groups, junctions and subflows are kept: they go through our import (groups' members that are debug nodes are then left out). */
const DROPPED = new Set(["tab", "comment"]);
/**
 * Node types we do not offer, each a deliberate absence said in the help of the nodes we offer
 * instead (host access, listening servers).
 */
const listens = (n: NodeRedNode) => n.server === "server" || n.server === true;
const UNOFFERED: Array<[(n: NodeRedNode) => boolean, string]> = [
  [(n) => n.type === "exec", "exec: no host processes"],
  [(n) => n.type === "watch", "watch: no host file system (files are the organization's, file nodes' help)"],
  [(n) => n.type === "tcp in" && listens(n), "tcp in: listening TCP servers are not offered, only clients (tcp in, tcp request / tcp out help)"],
  [(n) => n.type === "tcp out" && (n.beserver === "server" || n.beserver === "reply"), "tcp out: listening on or replying to a TCP port is not offered, only its client mode (tcp out help)"],
  [(n) => n.type === "udp in", "udp in: listening UDP sockets are not offered, only udp out (udp out help)"],
];

/**
 * Where the example flows reach their own Node-RED (`http://localhost:1880/hello`,
 * `ws://localhost:1880/ws1`): on each side the server that serves the case's http-in paths and
 * websocket listeners. Ours serves them under the organization (`/hooks/{slug}`,
 * `/ws/hooks/{slug}`; http in / websocket-listener help).
 */
const NODE_RED_LOCAL = /\b(https?|wss?):\/\/localhost:1880/g;
/** The file the storage examples write and read (Node-RED: on the disk; ours: the organization's files). */
export const EXAMPLE_FILES = ["/tmp/hello.txt"];

export function exampleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? exampleFiles(path.join(dir, e.name)) : e.name.endsWith(".json") ? [path.join(dir, e.name)] : []))
    .sort();
}

/** Flows that use randomness: their results need not match run to run. */
export function usesRandom(nodes: NodeRedNode[]): boolean {
  return nodes.some((n) => {
    const text = JSON.stringify(n);
    if (/\$random\s*\(/.test(text)) return true;
    if (n.type === "delay" && (n.randomFirst !== undefined && n.pauseType === "random")) return true;
    if (n.type === "function" && /Math\.random/.test(String(n.func ?? "") + String(n.initialize ?? ""))) return true;
    return false;
  });
}

/**
 * Node-RED's ids often hold a dot ("d1073c30.cb321"), which our import renames (ids are
 * [A-Za-z0-9_-]): the same ids on both sides keep the collectors and the input named alike. Every
 * quoted occurrence (wires, links, catch/status scopes) follows.
 */
function renameIds(raw: NodeRedNode[]): NodeRedNode[] {
  let text = JSON.stringify(raw);
  for (const n of raw) {
    const to = n.id.replace(/[^A-Za-z0-9_-]/g, "_");
    if (to !== n.id) text = text.split(JSON.stringify(n.id)).join(JSON.stringify(to));
  }
  return JSON.parse(text) as NodeRedNode[];
}

/**
 * The nodes of an example as a case's nodes (its subflow definitions with the nodes inside them,
 * and its configuration nodes, as they are), or why the file is skipped.
 */
export function prepare(original: NodeRedNode[]): { nodes: NodeRedNode[]; subflows: NodeRedNode[]; configNodes: NodeRedNode[] } | { skipped: string } {
  const raw = renameIds(original);
  for (const n of raw) {
    const hit = UNOFFERED.find(([offered]) => offered(n));
    if (hit) return { skipped: `${hit[1]} (node "${n.type}")` };
  }
  const definitions = new Set(raw.filter((n) => n.type === "subflow").map((n) => n.id));
  const subflows = raw.filter((n) => definitions.has(n.id) || (typeof n.z === "string" && definitions.has(n.z)));
  const rest = raw.filter((n) => !subflows.includes(n) && !DROPPED.has(n.type));
  // Configuration nodes: no wires, global (no `z`).
  const configNodes = rest.filter((n) => !Array.isArray(n.wires) && n.type !== "debug" && n.type !== "group").map(({ z: _z, ...n }) => n as NodeRedNode);
  const kept = rest.filter((n) => Array.isArray(n.wires) || n.type === "debug" || n.type === "group");
  const debugs = new Set(kept.filter((n) => n.type === "debug").map((n) => n.id));
  const nodes = kept
    .filter((n) => !debugs.has(n.id))
    .map((n) => {
      const { z: _z, ...rest } = n;
      const node: NodeRedNode = { ...rest };
      if (node.type === "inject") Object.assign(node, { once: false, repeat: "", crontab: "" });
      return node;
    });
  // An example served only through its http-in paths (no inject, no debug) is driven by requests to them.
  const served = nodes.some((n) => n.type === "http in");
  if (debugs.size === 0 && !served) return { skipped: "no debug node" };
  if (!nodes.some((n) => n.type === "inject") && !served) return { skipped: "no inject node" };
  return { nodes, subflows, configNodes };
}

/** The example's own server (`localhost:1880`) as each side serves it. */
export function pointAt<T>(value: T, side: { http: string; ws: string }): T {
  return JSON.parse(JSON.stringify(value).replace(NODE_RED_LOCAL, (_m, scheme: string) => (scheme.startsWith("ws") ? side.ws : side.http))) as T;
}

/**
 * The requests a served example gets (one per http-in node, in the file's order): its method and
 * path (a route parameter given "Nick"); a POST sends "Nick" as text, or with `upload` a file
 * `hello.txt` as multipart/form-data (http-driver.ts records the answers).
 */
export function exampleRequests(nodes: NodeRedNode[]): DiffRequest[] {
  return nodes
    .filter((n) => n.type === "http in")
    .map((n) => {
      const method = String(n.method ?? "get").toUpperCase();
      const path = String(n.url ?? "/").replace(/:(\w+)\??/g, "Nick");
      if (method === "GET" || method === "HEAD") return { method, path };
      return n.upload === true ? { method, path, upload: { field: "file", filename: "hello.txt", content: "Hello, World!" } } : { method, path, body: "Nick" };
    });
}

const isDate = (s: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(s);
/** Values that differ run to run: epoch milliseconds and ISO-8601 dates; keys sorted (their order is not compared). */
function fixVolatile(v: unknown): unknown {
  if (typeof v === "number" && v >= 1.5e12 && v <= 4.1e12) return "<timestamp>";
  if (typeof v === "string" && isDate(v)) return "<date>";
  if (Array.isArray(v)) return v.map(fixVolatile);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => [k, fixVolatile(x)]));
  return v;
}
/**
 * Arrivals as compared: volatile values fixed, and the side's own server address (in an http
 * request's `responseUrl`, say) written as `<server>`.
 */
export const normalizeExample = (c: DiffCase, arrivals: Arrival[], side: { http: string; ws: string }) =>
  sessionsByOrder(normalizeArrivals(c, arrivals)).map((a) => JSON.parse(JSON.stringify(fixVolatile(transportless(a))).split(side.http).join("<server>").split(side.ws).join("<server>")) as Arrival);

/**
 * An http request's answer from the example's own server (it has `statusCode`, `responseUrl` and
 * `headers`): of the server's response headers only `content-type` is compared. The rest are each
 * server's own by design: Express adds `ETag`, `X-Powered-By`, `Date`, `Content-Length`; a webhook
 * of ours answers with the security headers every webhook carries (http response help).
 */
/** A websocket client's session id (random on both sides) as its order of first appearance. */
function sessionsByOrder(arrivals: Arrival[]): Arrival[] {
  const ids = new Map<string, string>();
  return arrivals.map((a) => {
    const session = a.msg._session as { id?: unknown } | undefined;
    if (!session || typeof session !== "object" || typeof session.id !== "string") return a;
    if (!ids.has(session.id)) ids.set(session.id, `session${ids.size + 1}`);
    return { ...a, msg: { ...a.msg, _session: { ...session, id: ids.get(session.id) } } };
  });
}

function transportless(a: Arrival): Arrival {
  const msg = a.msg;
  if (typeof msg.statusCode !== "number" || typeof msg.responseUrl !== "string" || msg.headers === null || typeof msg.headers !== "object") return a;
  const headers = msg.headers as Record<string, unknown>;
  return { ...a, msg: { ...msg, headers: "content-type" in headers ? { "content-type": headers["content-type"] } : {} } };
}

/**
 * Before the first message of an example with websocket nodes: its client connects to its
 * listener as the flow starts, which takes a moment on both sides (a user clicks the inject later).
 */
export const SOCKET_CONNECT_MS = 500;

/** An example file's cases (one per inject node, or one driven over HTTP), or why it is skipped. */
export function exampleCases(rel: string, raw: NodeRedNode[]): { cases: DiffCase[]; random: boolean } | { skipped: string } {
  const prepared = prepare(raw);
  if ("skipped" in prepared) return prepared;
  const injects = prepared.nodes.filter((n) => n.type === "inject");
  const sockets = prepared.nodes.some((n) => n.type.startsWith("websocket"));
  const inputs = injects.length > 0 ? injects.map((n) => ({ id: n.id, driven: false })) : [{ id: "http", driven: true }];
  const cases = inputs.map(
    (input): DiffCase => ({
      name: `${rel} ${input.id}`,
      nodes: structuredClone(prepared.nodes),
      ...(prepared.subflows.length > 0 ? { subflows: structuredClone(prepared.subflows) } : {}),
      ...(prepared.configNodes.length > 0 ? { configNodes: structuredClone(prepared.configNodes) } : {}),
      input: input.driven ? prepared.nodes[0]!.id : input.id,
      send: input.driven ? [] : [{ msg: {}, ...(sockets ? { delayMs: SOCKET_CONNECT_MS } : {}) }],
      ...(input.driven ? { requests: exampleRequests(prepared.nodes) } : {}),
      settleMs: EXAMPLE_SETTLE_MS,
    }),
  );
  return { cases, random: usesRandom(prepared.nodes) };
}

/** The case's inject id (or "http") from its name. */
export const exampleInput = (c: DiffCase) => c.name.slice(c.name.lastIndexOf(" ") + 1);
