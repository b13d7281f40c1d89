/**
 * The differential-test case shape (issue 21), declared here until src/test/node-red-diff/types.ts
 * lands on main; the parser nodes' cases.ts files import it from here.
 */
export interface DiffCase {
  name: string;
  /** Node-RED flows.json nodes under test (no `z`, no tab); ids not among `nodes` in `wires` are collectors. */
  nodes: Array<Record<string, unknown> & { id: string; type: string; wires?: string[][] }>;
  /** Node receiving `send` (defaults to the first node). */
  input?: string;
  /** Messages delivered to `input` in order (JSON; `_msgid` added). `delayMs` waits before that one. */
  send: Array<{ msg: Record<string, unknown>; delayMs?: number }>;
  /** Stop after this many collected messages, else after `settleMs` (default 300) of quiet. */
  expect?: number;
  settleMs?: number;
  /** Message properties compared (default: every property but _msgid; parts.id normalized). */
  compare?: string[];
  flow?: Record<string, unknown>;
  global?: Record<string, unknown>;
  env?: Record<string, string>;
  /** A deliberate difference from Node-RED: why (our behaviour is asserted in the node's own test). */
  differs?: string;
}
