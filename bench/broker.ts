import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
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

function runLoad(options: { url: string; password?: string; pubTopic: string; subTopic: string; qos: 0 | 1 }): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(HERE, "mqtt-load-child.ts")], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, MQTT_LOAD: JSON.stringify({ ...options, seconds: SECONDS, window: WINDOW, payloadBytes: PAYLOAD_BYTES }) },
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
 * 12. The built-in broker against Mosquitto alone, in the same run, measured by the same client
 * process (bench/mqtt-load-child.ts, MQTT 3.1.1 over TCP, 64-byte payloads, `WINDOW` messages in
 * flight): device → broker → device, and device → a flow's BuiltInMqtt subscription → published back
 * → device (what an mqtt-in → mqtt-out flow on `built-in` does, without the engine: the mqtt nodes
 * are another branch's). Our broker runs in this process on its own app (the publish rate limit
 * raised out of the way), with the configured backend; Mosquitto 2 is started on a port of ours.
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
    notes.push(
      `Benchmark 13: ${SECONDS} s per measure after a 1 s warm-up, ${WINDOW} messages in flight, ${PAYLOAD_BYTES}-byte payloads, MQTT 3.1.1 over TCP on 127.0.0.1; one load process (bench/mqtt-load-child.ts) for both brokers. Ours runs inside the bench process with the ${app.db.kind} database and ${app.store.kind} store; Mosquitto runs as its own process with its defaults (no authentication, no persistence). The flow row goes through the BuiltInMqtt interface flows use, not through the engine (the mqtt-in/mqtt-out nodes are branch mqtt's).`,
    );
  } finally {
    mosquitto?.kill("SIGTERM");
    await app.close();
  }
  return { rows, notes };
}
