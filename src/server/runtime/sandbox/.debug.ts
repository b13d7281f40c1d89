import { createFunctionSandbox } from "./function-sandbox";
const s = await createFunctionSandbox({ code: "async function spin() { while (true) { await null; } } await spin(); return msg;", outputs: 1, timeoutMs: 100, flowContext: new Map(), nodeInfo: { id: "a", name: "b", flowId: "c" } });
for (let i = 0; i < 3; i++) {
  const t = Date.now();
  try { console.log(await s.run({ _msgid: "x", payload: 1 })); } catch (e) { console.log("ERR", e); }
  console.log(Date.now() - t);
}
