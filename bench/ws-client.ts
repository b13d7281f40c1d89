/**
 * A WebSocket client in its own process for benchmark 5: connects to /ws with a bearer token,
 * subscribes to `debug`, parses every frame as a real client would, and counts. The parent asks
 * over IPC: {type: "count"} → {type: "count", debug, dropped, frames, lastDebugAt}; {type: "exit"}.
 */
import WebSocket from "ws";

const [url, token] = process.argv.slice(2);
if (!url || !token || !process.send) throw new Error("usage: ws-client.ts <ws url> <token> (forked with IPC)");
const send = process.send.bind(process);

let debug = 0;
let dropped = 0;
let frames = 0;
let lastDebugAt = 0;

const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
ws.on("message", (data) => {
  frames++;
  const frame = JSON.parse(data.toString()) as { type?: string; topic?: string; count?: number };
  if (frame.type === "event" && frame.topic === "debug") {
    debug++;
    lastDebugAt = Date.now();
  } else if (frame.type === "dropped") dropped += frame.count ?? 0;
  else if (frame.type === "ready") ws.send(JSON.stringify({ type: "subscribe", topics: ["debug"] }));
  else if (frame.type === "subscribed") send({ type: "ready" });
});
ws.on("error", (err) => send({ type: "error", message: err.message }));
ws.on("close", (code) => send({ type: "closed", code }));

process.on("message", (m: { type?: string }) => {
  if (m.type === "count") send({ type: "count", debug, dropped, frames, lastDebugAt });
  else if (m.type === "exit") {
    ws.close();
    process.exit(0);
  }
});
process.on("disconnect", () => process.exit(0));
