/** Benchmark 2's webhook function, the same code on both sides (http.ts, node-red-http-child.ts). */
export const WEBHOOK_FUNCTION = "msg.payload = { ok: true, n: msg.payload.n }; return msg;";
