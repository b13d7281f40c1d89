import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import mqtt from "mqtt";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";

const B = "13 Built-in MQTT broker";
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..");
/** This branch's ports: our TCP listener and our own Mosquitto. */
const MQTT_PORT = Number(process.env.BENCH_MQTT_PORT ?? 4530);
const MOSQUITTO_PORT = Number(process.env.BENCH_MOSQUITTO_PORT ?? 4540);
const SECONDS = Number(process.env.BENCH_MQTT_SECONDS ?? 5);
const WINDOW = Number(process.env.BENCH_MQTT_WINDOW ?? 50);
const PAYLOAD_BYTES = 64;

interface LoadResult {
  perSecond: number;
  received: number;
  p50: number;
  p99: number;
}

function runLoad(options: { url: string; password?: string; pubTopic: string; subTopic: string; qos: 0 | 1; mode?: "connect"; window?: number }): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(HERE, "mqtt-load-child.ts")], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, MQTT_LOAD: JSON.stringify({ seconds: SECONDS, window: WINDOW, payloadBytes: PAYLOAD_BYTES, ...options }) },
    });
    let out = "";
    let err = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
    child.once("exit", (code) => {
      const line = out.trim().split("\n").pop() ?? "";
      try {
        resolve(JSON.parse(line) as LoadResult);
      } catch {
        reject(new Error(`load child failed (code ${code}): ${err.slice(-500)}`));
      }
    });
  });
}

/**
 * A Node-RED flows.json as a user would import it: mqtt in (`in<tag>/#`, the bytes as a Buffer)
 * → change (topic `in<tag>/…` to `out<tag>/…`) → mqtt out, on an mqtt-broker whose server is
 * `built-in` (this application's broker, no address or credentials).
 */
function relayFlow(tag: string, qos: 0 | 1) {
  const id = (n: string) => `${n}${tag}0000.bench${qos}`;
  return [
    { id: id("f"), type: "tab", label: `relay ${tag}`, disabled: false, info: "" },
    { id: id("i"), type: "mqtt in", z: id("f"), name: "", topic: `in${tag}/#`, qos: String(qos), datatype: "buffer", broker: id("b"), nl: false, rap: false, rh: 0, inputs: 0, x: 100, y: 80, wires: [[id("c")]] },
    { id: id("c"), type: "change", z: id("f"), name: "", rules: [{ t: "change", p: "topic", pt: "msg", from: `in${tag}/`, fromt: "str", to: `out${tag}/`, tot: "str" }], x: 300, y: 80, wires: [[id("o")]] },
    { id: id("o"), type: "mqtt out", z: id("f"), name: "", topic: "", qos: String(qos), retain: "false", respTopic: "", contentType: "", userProps: "", correl: "", expiry: "", broker: id("b"), x: 500, y: 80, wires: [] },
    { id: id("b"), type: "mqtt-broker", name: "built-in", broker: "built-in", port: "1883", clientid: "", autoConnect: true, usetls: false, protocolVersion: "4", keepalive: "60", cleansession: true, autoUnsubscribe: true },
  ];
}

/** Resolves once a message published on `in<tag>/probe` comes back on `out<tag>/probe` (the flow runs). */
async function relayReady(url: string, password: string, tag: string): Promise<void> {
  const c = await mqtt.connectAsync(url, { username: "bench", password, reconnectPeriod: 0 });
  try {
    await c.subscribeAsync(`out${tag}/probe`);
    const back = new Promise<void>((resolve) => c.once("message", () => resolve()));
    const deadline = Date.now() + 20_000;
    let arrived = false;
    void back.then(() => (arrived = true));
    while (!arrived) {
      if (Date.now() > deadline) throw new Error(`the relay flow ${tag} did not answer within 20 s`);
      await c.publishAsync(`in${tag}/probe`, "probe");
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await c.endAsync();
  }
}

/** Devices connecting at a time in the CONNECT row (under the organization's 100 connections). */
const CONNECTING = 20;

/** Messages queued for the persistent subscriber that is away, and their size. */
const AWAY_MESSAGES = 1_000;
const AWAY_PAYLOAD_BYTES = 8 * 1024;

interface AwayResult {
  /** Publishes a second while the subscriber is away (each waits for its PUBACK). */
  perSecond: number;
  /** From the returning CONNECT to the last queued message received. */
  replayMs: number;
}

/**
 * A persistent subscriber (clean session false, QoS 1) that is away while a device publishes
 * AWAY_MESSAGES of AWAY_PAYLOAD_BYTES one after another (each waiting for its PUBACK), then comes
 * back and takes the queue; its session is ended afterwards (a clean-session CONNECT).
 */
async function awaySubscriber(url: string, password: string | undefined, tag: string): Promise<AwayResult> {
  const options = { username: "bench", password, reconnectPeriod: 0, protocolVersion: 4 as const };
  const clientId = `away-${tag}-${process.pid}`;
  const topic = `away${tag}/t`;
  const away = await mqtt.connectAsync(url, { ...options, clientId, clean: false });
  await away.subscribeAsync(topic, { qos: 1 });
  await away.endAsync();
  const device = await mqtt.connectAsync(url, { ...options, clientId: `device-${tag}-${process.pid}` });
  const payload = Buffer.alloc(AWAY_PAYLOAD_BYTES, 7);
  const t0 = performance.now();
  for (let i = 0; i < AWAY_MESSAGES; i++) await device.publishAsync(topic, payload, { qos: 1 });
  const perSecond = AWAY_MESSAGES / ((performance.now() - t0) / 1000);
  await device.endAsync();
  let received = 0;
  const t1 = performance.now();
  const back = mqtt.connect(url, { ...options, clientId, clean: false });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the away subscriber got ${received} of ${AWAY_MESSAGES} queued messages in 60 s`)), 60_000);
    back.on("message", () => {
      if (++received === AWAY_MESSAGES) {
        clearTimeout(timer);
        resolve();
      }
    });
    back.once("error", reject);
  });
  const replayMs = performance.now() - t1;
  await back.endAsync();
  const clean = await mqtt.connectAsync(url, { ...options, clientId, clean: true });
  await clean.endAsync();
  return { perSecond, replayMs };
}

async function startMosquitto(): Promise<ChildProcess> {
  const child = spawn("mosquitto", ["-p", String(MOSQUITTO_PORT)], { stdio: ["ignore", "pipe", "pipe"] });
  await new Promise<void>((resolve, reject) => {
    let log = "";
    const onData = (c: Buffer) => {
      log += c.toString();
      if (log.includes("running")) resolve();
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`mosquitto exited (${code}): ${log}`)));
    setTimeout(resolve, 1_500);
  });
  return child;
}

/**
 * 13. The built-in broker against Mosquitto alone, in the same run, measured by the same client
 * process (bench/mqtt-load-child.ts, MQTT 3.1.1 over TCP, 64-byte payloads, `WINDOW` messages in
 * flight): device → broker → device; device → a flow's BuiltInMqtt subscription → published back
 * → device (the interface alone); and device → mqtt in → change → mqtt out → device, a flow of
 * Node-RED's nodes imported and deployed on `broker: "built-in"` (the engine and the nodes'
 * shared connection included), QoS 0 and 1. Our broker runs in this process on its own app (the
 * publish rate limit raised out of the way), with the configured backend; Mosquitto 2 is started
 * on a port of ours.
 */
export async function benchBroker(ctx: BenchContext): Promise<BenchOutcome> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const app = await createTestApp({ MQTT_PUBLISH_RATE_PER_ORGANIZATION: "100000000", RATE_LIMIT_API_PER_CREDENTIAL: "100000000" });
  let mosquitto: ChildProcess | undefined;
  try {
    await app.mqtt.listen({ port: MQTT_PORT, host: "127.0.0.1" });
    const owner = await signUp(restClient(app));
    const key = await restClient(app)("POST", "/api-keys", { token: owner.accessToken, body: { name: "bench", kind: "device" } });
    const password = key.body.secret as string;
    const org = owner.organizationId;
    const ours = `mqtt://127.0.0.1:${MQTT_PORT}`;
    // The flow's part: what arrives on in/… goes back out on out/….
    const stop = await app.mqtt.builtIn.subscribe(org, "in/#", { qos: 0 }, (m) =>
      app.mqtt.builtIn.publish(org, { topic: `out/${m.topic.slice(3)}`, payload: m.payload, qos: 0, retain: false }),
    );
    mosquitto = await startMosquitto();
    const mosq = `mqtt://127.0.0.1:${MOSQUITTO_PORT}`;
    const row = (measure: string, r: LoadResult, other?: LoadResult, note?: string): Row => ({
      benchmark: B,
      measure,
      result: `${fmt.int(r.perSecond)} msg/s; p50 ${fmt.ms(r.p50)}, p99 ${fmt.ms(r.p99)}`,
      nodeRed: other ? `Mosquitto: ${fmt.int(other.perSecond)} msg/s; p50 ${fmt.ms(other.p50)}, p99 ${fmt.ms(other.p99)}` : undefined,
      notes: note,
    });
    for (const qos of [0, 1] as const) {
      ctx.log(`broker: device → device, QoS ${qos}`);
      const direct = await runLoad({ url: ours, password, pubTopic: "bench/t", subTopic: "bench/t", qos });
      const mosqDirect = await runLoad({ url: mosq, pubTopic: "bench/t", subTopic: "bench/t", qos });
      rows.push(row(`device → broker → device, QoS ${qos}`, direct, mosqDirect));
    }
    ctx.log("broker: device → flow subscription → publish back → device");
    const viaFlow = await runLoad({ url: ours, password, pubTopic: "in/t", subTopic: "out/t", qos: 0 });
    const mosqTwoHops = await runLoad({ url: mosq, pubTopic: "bench/t", subTopic: "bench/t", qos: 0 });
    rows.push(row("device → BuiltInMqtt subscriber → publish back → device, QoS 0", viaFlow, mosqTwoHops, "Mosquitto column: device → device (it has no flows)"));
    await stop();
    // The same path through a deployed flow of real nodes: mqtt in → change → mqtt out on `built-in`.
    const request = restClient(app);
    for (const qos of [0, 1] as const) {
      const tag = `q${qos}`;
      const imported = await request("POST", "/flows/import", { token: owner.accessToken, body: { flows: relayFlow(tag, qos) } });
      if (imported.status !== 201) throw new Error(`importing the relay flow: ${imported.status} ${imported.text}`);
      const deployed = await request("POST", `/flows/${imported.body.flows[0].id}/deploy`, { token: owner.accessToken });
      if (deployed.status !== 200) throw new Error(`deploying the relay flow: ${deployed.status} ${deployed.text}`);
      await relayReady(ours, password, tag);
      ctx.log(`broker: device → mqtt in → change → mqtt out → device, QoS ${qos}`);
      const viaNodes = await runLoad({ url: ours, password, pubTopic: `in${tag}/t`, subTopic: `out${tag}/t`, qos });
      const mosqSame = await runLoad({ url: mosq, pubTopic: "bench/t", subTopic: "bench/t", qos });
      rows.push(row(`device → mqtt in → change → mqtt out (built-in) → device, QoS ${qos}`, viaNodes, mosqSame, "a deployed flow of Node-RED's nodes; Mosquitto column: device → device"));
    }
    ctx.log(`broker: ${CONNECTING} devices at a time connect and disconnect`);
    const connects = await runLoad({ url: ours, password, pubTopic: "", subTopic: "", qos: 0, mode: "connect", window: CONNECTING });
    const mosqConnects = await runLoad({ url: mosq, pubTopic: "", subTopic: "", qos: 0, mode: "connect", window: CONNECTING });
    rows.push({
      benchmark: B,
      measure: `CONNECT → CONNACK → DISCONNECT, ${CONNECTING} devices at a time (clean session)`,
      result: `${fmt.int(connects.perSecond)} connections/s; CONNACK p50 ${fmt.ms(connects.p50)}, p99 ${fmt.ms(connects.p99)}`,
      nodeRed: `Mosquitto: ${fmt.int(mosqConnects.perSecond)} connections/s; p50 ${fmt.ms(mosqConnects.p50)}, p99 ${fmt.ms(mosqConnects.p99)}`,
      notes: "ours checks each CONNECT's API key (its cache), the organization's connection limit and the online entries; Mosquitto with no authentication",
    });
    ctx.log("broker: a persistent subscriber away, then back");
    const awayOurs = await awaySubscriber(ours, password, "ours");
    const awayMosq = await awaySubscriber(mosq, undefined, "mosq");
    rows.push({
      benchmark: B,
      measure: `device → broker, QoS 1, one after another, ${fmt.int(AWAY_MESSAGES)} messages of ${AWAY_PAYLOAD_BYTES / 1024} KiB queued for a persistent subscriber that is away; then its return`,
      result: `${fmt.int(awayOurs.perSecond)} msg/s; the queue replayed in ${fmt.int(awayOurs.replayMs)} ms`,
      nodeRed: `Mosquitto: ${fmt.int(awayMosq.perSecond)} msg/s; replayed in ${fmt.int(awayMosq.replayMs)} ms`,
      notes: app.store.kind === "memory" ? "ours writes the queue to the database (a row per message); Mosquitto keeps it in memory (no persistence)" : "ours keeps the queue in Redis; Mosquitto in memory (no persistence)",
    });
    notes.push(
      `Benchmark 13: ${SECONDS} s per measure after a 1 s warm-up, ${WINDOW} messages in flight, ${PAYLOAD_BYTES}-byte payloads, MQTT 3.1.1 over TCP on 127.0.0.1; one load process (bench/mqtt-load-child.ts) for both brokers. Ours runs inside the bench process with the ${app.db.kind} database and ${app.store.kind} store; Mosquitto runs as its own process with its defaults (no authentication, no persistence). The BuiltInMqtt row goes through the interface flows use, without the engine; the mqtt in → change → mqtt out rows through a flow imported as Node-RED flows.json and deployed (the engine, the nodes, their shared connection to \`built-in\`).`,
    );
  } finally {
    mosquitto?.kill("SIGTERM");
    await app.close();
  }
  return { rows, notes };
}
