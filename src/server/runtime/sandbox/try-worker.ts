/**
 * Smoke check of the worker-thread sandbox from plain Node (not a test):
 * `node --import tsx src/server/runtime/sandbox/try-worker.ts`.
 */
import { SandboxPool, type FunctionSandboxOptions } from "./function-sandbox";

const pool = new SandboxPool();
const createFunctionSandbox = (options: FunctionSandboxOptions) => pool.create(options);
const sandboxDiagnostics = () => pool.diagnostics();

const flowContext = new Map<string, unknown>();
const sandbox = await createFunctionSandbox({
  code: "flow.set('seen', msg.payload); msg.payload = msg.payload * 2; return msg;",
  outputs: 1,
  timeoutMs: 100,
  initialize: "node.log('init ran');",
  flowContext,
  nodeInfo: { id: "n", name: "n", flowId: "f" },
});
console.log("initResult", JSON.stringify(sandbox.initResult));
console.log("run", JSON.stringify(await sandbox.run({ _msgid: "m1", payload: 21 })), "flow.seen =", flowContext.get("seen"));
const bomb = await createFunctionSandbox({
  code: "const o = Object.assign({}, new Array(1e5).fill(1)); for (;;) ({ ...o });",
  outputs: 1,
  timeoutMs: 100,
  flowContext: new Map(),
  nodeInfo: { id: "b", name: "b", flowId: "g" },
});
const started = Date.now();
try {
  await bomb.run({ _msgid: "m2", payload: 0 });
} catch (err) {
  console.log("bomb:", err instanceof Error ? err.message : err, `after ${Date.now() - started} ms`, sandboxDiagnostics());
}
sandbox.close();
bomb.close();
await pool.close();
