/**
 * Differential tests against Node-RED (SPEC §12): one case is a small Node-RED flow, the messages
 * sent into it, and what reaches its collectors. Cases are data, one file per node type
 * (`src/server/nodes/<type>/cases.ts`, `export const cases: DiffCase[]`); Node-RED's answers are
 * recorded beside them (`cases.recorded.json`, by `npm run diff:record`, Node-RED 5.0 with 4.1's answers
 * where they differ), so `npm test` compares our
 * engine with them without Node-RED.
 */
export type NodeRedNode = Record<string, unknown> & { id: string; type: string; wires?: string[][] };

export interface DiffCase {
  name: string;
  /**
   * Node-RED flows.json nodes under test (no `z`, no tab). `wires` name other nodes of the case or
   * collectors: any id not among `nodes` (e.g. "out", "out2") is a collector that records, in
   * order, every message reaching it.
   */
  nodes: NodeRedNode[];
  /**
   * Node-RED subflow definitions the case's `subflow:<id>` instances use: `subflow` objects (with
   * `in`, `out`, `status`, `env`) and the nodes inside them (their `z` is the definition's id), as
   * in a flows.json. Wires inside a definition never name collectors.
   */
  subflows?: NodeRedNode[];
  /**
   * Node-RED configuration nodes the case's nodes name (a websocket-listener, a websocket-client),
   * as in a flows.json (no `z`): global in Node-RED, the organization's configuration nodes here.
   */
  configNodes?: NodeRedNode[];
  /**
   * HTTP requests to the case's http-in paths, made after `send` against each side's server
   * (Node-RED's at its root, ours at `/hooks/{slug}`): each answer is an arrival of collector
   * `<METHOD> <path>` (http-driver.ts).
   */
  requests?: DiffRequest[];
  /** Its http request nodes call the echo server (echo-server.ts, ECHO_URL), started for it on both sides. */
  echo?: boolean;
  /** The node receiving `send` (default: the first node). */
  input?: string;
  /** Messages delivered to `input`, in order (`_msgid` added); `delayMs` waits before that one. */
  send: Array<{ msg: Record<string, unknown>; delayMs?: number }>;
  /** Stop once this many messages were collected (then a short grace for extra ones), else after `settleMs` of quiet. */
  expect?: number;
  /** Quiet time that ends a case without `expect` (default 200 ms); also the longest wait for `expect` is 5 s + this. */
  settleMs?: number;
  /** Message properties compared (default: every property but `_msgid`). `parts.id` values are normalized to their order of appearance. */
  compare?: string[];
  /**
   * Message properties left out on both sides before comparing, as dotted paths ("error.stack"),
   * each a deliberate difference with its reason (`ignoreWhy`); the differential test asserts that
   * Node-RED's answer has them (so the exception is not vacuous) and compares everything else.
   */
  ignore?: string[];
  ignoreWhy?: string;
  /** Flow context (`flow`) preset before the first message. */
  flow?: Record<string, unknown>;
  /** Global context preset before the first message. */
  global?: Record<string, unknown>;
  /** Variables, as a Node-RED tab's `env` (strings). */
  env?: Record<string, string>;
  /**
   * Arrivals compared in order per collector, not across collectors: why (a known difference in how
   * branches that run side by side interleave, said in the case).
   */
  orderPerCollector?: string;
  /**
   * A deliberate difference (sandbox, tenancy): why. The differential test then asserts that our
   * answer differs from Node-RED's, and the node's own test asserts ours.
   */
  differs?: string;
}

/** One request of a case's HTTP driver: `path` as sent (query string included). */
export interface DiffRequest {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
  /** A multipart/form-data upload of one file instead of `body`. */
  upload?: { field: string; filename: string; content: string };
}

export interface Arrival {
  collector: string;
  msg: Record<string, unknown>;
}

export interface RecordedCases {
  /** Node-RED's version that answered: the reference, Node-RED 5.0 (SPEC §23). */
  node_red: string;
  /**
   * Node-RED 4.1's version (4.1.15), present when some case answered differently there: those
   * cases keep 4.1's arrivals as `node_red_4` beside 5.0's (`npm run diff:record` carries them
   * over from the file it rewrites). Not compared with ours; the differential test asserts they
   * still differ from 5.0's, so the note is not stale.
   */
  node_red_4?: string;
  cases: Record<string, { arrivals: Arrival[]; node_red_4?: Arrival[] }>;
}
