/**
 * The MQTT load of benchmark 12, in a process of its own (so both brokers, ours and Mosquitto, are
 * measured by the same client outside them): a subscriber and a publisher (the `mqtt` package, TCP),
 * `window` messages in flight, each carrying its send time; for `seconds` it counts the messages
 * that came back and their latency (publish → delivery). Prints one JSON line.
 *
 * Environment: MQTT_LOAD = JSON { url, password?, pubTopic, subTopic, seconds, window, payloadBytes, qos }.
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
}

const o = JSON.parse(process.env.MQTT_LOAD ?? "{}") as Options;
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
let measuring = false;
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
// Warm-up second, then the measured window.
for (let i = 0; i < o.window; i++) send();
await new Promise((r) => setTimeout(r, 1_000));
measuring = true;
const t0 = performance.now();
await new Promise((r) => setTimeout(r, o.seconds * 1000));
measuring = false;
const elapsed = (performance.now() - t0) / 1000;
stopped = true;
latencies.sort((a, b) => a - b);
const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil((p / 100) * latencies.length) - 1))] ?? Number.NaN;
console.log(JSON.stringify({ perSecond: received / elapsed, received, p50: at(50), p99: at(99) }));
sub.end(true);
pub.end(true);
process.exit(0);
