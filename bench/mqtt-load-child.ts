/**
 * The MQTT load of benchmark 12, in a process of its own (so both brokers, ours and Mosquitto, are
 * measured by the same client outside them): a subscriber and a publisher (the `mqtt` package, TCP),
 * `window` messages in flight, each carrying its send time; for `seconds` it counts the messages
 * that came back and their latency (publish → delivery). Prints one JSON line.
 *
 * With `mode: "connect"`: `window` devices at a time connect (clean session), wait for their
 * CONNACK and disconnect, again and again, for `seconds`: connections a second and the CONNACK's
 * latency.
 *
 * Environment: MQTT_LOAD = JSON { url, password?, pubTopic, subTopic, seconds, window, payloadBytes, qos, mode? }.
 */
import mqtt from "mqtt";

interface Options {
  url: string;
  password?: string;
  pubTopic: string;
  subTopic: string;
  seconds: number;
  window: number;
  payloadBytes: number;
  qos: 0 | 1;
  mode?: "messages" | "connect";
}

const o = JSON.parse(process.env.MQTT_LOAD ?? "{}") as Options;
/** True during the measured window. */
let measuring = false;
/** A warm-up second, then `seconds` measured (`measuring` true meanwhile): how many seconds it lasted. */
async function measuredWindow(): Promise<number> {
  await new Promise((r) => setTimeout(r, 1_000));
  measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, o.seconds * 1000));
  measuring = false;
  return (performance.now() - t0) / 1000;
}
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

if (o.mode === "connect") {
  const latencies: number[] = [];
  let stopped = false;
  let failed = 0;
  const loop = async (n: number) => {
    for (let i = 0; !stopped; i++) {
      const t = performance.now();
      await new Promise<void>((resolve) => {
        const c = mqtt.connect(o.url, { clientId: `bench-conn-${process.pid}-${n}-${i}`, username: "bench", password: o.password, reconnectPeriod: 0, protocolVersion: 4, clean: true });
        c.once("connect", () => {
          if (measuring) latencies.push(performance.now() - t);
          c.end(false, {}, () => resolve());
        });
        c.once("error", () => {
          failed++;
          c.end(true);
          resolve();
        });
      });
    }
  };
  const loops = Array.from({ length: o.window }, (_, n) => loop(n));
  const elapsed = await measuredWindow();
  stopped = true;
  await Promise.all(loops);
  latencies.sort((a, b) => a - b);
  console.log(JSON.stringify({ perSecond: latencies.length / elapsed, received: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failed }));
  process.exit(0);
}
const connect = (clientId: string) =>
  new Promise<mqtt.MqttClient>((resolve, reject) => {
    const c = mqtt.connect(o.url, { clientId, username: "bench", password: o.password, reconnectPeriod: 0, protocolVersion: 4 });
    c.once("connect", () => resolve(c));
    c.once("error", reject);
  });

const sub = await connect(`bench-sub-${process.pid}`);
const pub = await connect(`bench-pub-${process.pid}`);
await new Promise<void>((resolve, reject) => sub.subscribe(o.subTopic, { qos: o.qos }, (err) => (err ? reject(err) : resolve())));

const latencies: number[] = [];
let received = 0;
let stopped = false;
const payload = Buffer.alloc(Math.max(16, o.payloadBytes));
const send = () => {
  if (stopped) return;
  payload.writeDoubleBE(performance.now(), 0);
  pub.publish(o.pubTopic, Buffer.from(payload), { qos: o.qos });
};
sub.on("message", (_topic, message) => {
  if (measuring) {
    received++;
    latencies.push(performance.now() - message.readDoubleBE(0));
  }
  send();
});
for (let i = 0; i < o.window; i++) send();
const elapsed = await measuredWindow();
stopped = true;
latencies.sort((a, b) => a - b);
const at = (p: number) => percentile(latencies, p);
console.log(JSON.stringify({ perSecond: received / elapsed, received, p50: at(50), p99: at(99) }));
sub.end(true);
pub.end(true);
process.exit(0);
