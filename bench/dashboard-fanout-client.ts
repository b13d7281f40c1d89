/**
 * Dashboard viewers in one process for the fan-out benchmark: opens <connections> dashboard
 * sockets to <url> with the session cookie, waits for each one's `dashboard.page`, parses every
 * frame as a browser would and records, for each `dashboard.update` of the widget, receive time −
 * the time the bench put in the payload (`payload.t`, ms since the epoch; same machine, same
 * clock). IPC: {type: "reset"}; {type: "report"} → {type: "report", updates, closed, latencies};
 * {type: "exit"}.
 */
import WebSocket from "ws";

const [url, cookie, connectionsArg, widgetId] = process.argv.slice(2);
const connections = Number(connectionsArg);
if (!url || !cookie || !widgetId || !Number.isInteger(connections) || connections < 1 || !process.send) throw new Error("usage: dashboard-fanout-client.ts <ws url> <cookie> <connections> <widget id> (forked with IPC)");
const send = process.send.bind(process);
const now = () => performance.timeOrigin + performance.now();

let updates = 0;
let closed = 0;
let pages = 0;
let latencies: number[] = [];
const sockets: WebSocket[] = [];
for (let i = 0; i < connections; i++) {
  const ws = new WebSocket(url, { headers: { cookie } });
  ws.on("message", (data) => {
    const received = now();
    const frame = JSON.parse(data.toString()) as { type?: string; widget_id?: string; msg?: { payload?: { t?: number } } };
    if (frame.type === "dashboard.update" && frame.widget_id === widgetId) {
      updates++;
      const t = frame.msg?.payload?.t;
      if (typeof t === "number") latencies.push(Math.round((received - t) * 100) / 100);
    } else if (frame.type === "dashboard.page" && ++pages === connections) send({ type: "ready" });
  });
  ws.on("error", (err) => send({ type: "error", message: err.message }));
  ws.on("close", () => closed++);
  sockets.push(ws);
}

process.on("message", (m: { type?: string }) => {
  if (m.type === "reset") {
    updates = 0;
    latencies = [];
    send({ type: "reset" });
  } else if (m.type === "report") send({ type: "report", updates, closed, latencies });
  else if (m.type === "exit") {
    for (const ws of sockets) ws.close();
    process.exit(0);
  }
});
process.on("disconnect", () => process.exit(0));
