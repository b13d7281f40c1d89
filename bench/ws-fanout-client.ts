/**
 * Many WebSocket clients in one process for the 100-client debug benchmark: opens <connections>
 * sockets to /ws with a bearer token, subscribes each to `debug`, parses every frame as a real
 * client would and records, for every debug event, receive time − the time the bench put in the
 * injected payload (`msg.t`, in ms since the epoch with sub-millisecond precision; same machine,
 * so the clocks agree). IPC: {type: "reset"}; {type: "count"} → {type: "count", debug, dropped,
 * lastDebugAt, closed}; {type: "report"} → the same plus `latencies`; {type: "exit"}.
 */
import WebSocket from "ws";

const [url, token, connectionsArg] = process.argv.slice(2);
const connections = Number(connectionsArg);
if (!url || !token || !Number.isInteger(connections) || connections < 1 || !process.send) throw new Error("usage: ws-fanout-client.ts <ws url> <token> <connections> (forked with IPC)");
const send = process.send.bind(process);
const now = () => performance.timeOrigin + performance.now();

let debug = 0;
let dropped = 0;
let closed = 0;
let lastDebugAt = 0;
let latencies: number[] = [];
let subscribed = 0;

interface Frame {
  type?: string;
  topic?: string;
  count?: number;
  data?: { msg?: { t?: number; flush?: boolean } };
}

const sockets: WebSocket[] = [];
for (let i = 0; i < connections; i++) {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
  ws.on("message", (data) => {
    const received = now();
    const frame = JSON.parse(data.toString()) as Frame;
    if (frame.type === "event" && frame.topic === "debug") {
      const msg = frame.data?.msg;
      if (msg?.flush) return;
      debug++;
      lastDebugAt = received;
      if (typeof msg?.t === "number") latencies.push(Math.round((received - msg.t) * 100) / 100);
    } else if (frame.type === "dropped") dropped += frame.count ?? 0;
    else if (frame.type === "ready") ws.send(JSON.stringify({ type: "subscribe", topics: ["debug"] }));
    else if (frame.type === "subscribed" && ++subscribed === connections) send({ type: "ready" });
  });
  ws.on("error", (err) => send({ type: "error", message: err.message }));
  ws.on("close", () => closed++);
  sockets.push(ws);
}

process.on("message", (m: { type?: string }) => {
  if (m.type === "reset") {
    debug = 0;
    dropped = 0;
    lastDebugAt = 0;
    latencies = [];
    send({ type: "reset" });
  } else if (m.type === "count") send({ type: "count", debug, dropped, lastDebugAt, closed });
  else if (m.type === "report") send({ type: "report", debug, dropped, lastDebugAt, closed, latencies });
  else if (m.type === "exit") {
    for (const ws of sockets) ws.close();
    process.exit(0);
  }
});
process.on("disconnect", () => process.exit(0));
