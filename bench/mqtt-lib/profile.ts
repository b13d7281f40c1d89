/**
 * A focused look at benchmark 12's QoS 0 path, our side only: the flow of flow.ts in a child process
 * (ours-child.ts, optionally under --cpu-prof), driven as bench/mqtt.ts drives it, against a
 * Mosquitto of its own (port 4203). Prints msg/s, latency and the child's CPU time per message
 * (user + system, which a busy machine disturbs far less than msg/s) for each of ROUNDS runs of N
 * messages after a warm-up. Usage: npx tsx bench/mqtt-lib/profile.ts [--cpu-prof <dir>]; MQTT_PROFILE_N,
 * MQTT_PROFILE_ROUNDS.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startMosquitto } from "@/test/mosquitto";
import { nextMessage, stopChild } from "../lib/child";
import { fmt } from "../lib/stats";
import { drive } from "../mqtt";

const PORT = 4203;
const N = Number(process.env.MQTT_PROFILE_N ?? 20_000);
const ROUNDS = Number(process.env.MQTT_PROFILE_ROUNDS ?? 3);
const profDir = process.argv.includes("--cpu-prof") ? process.argv[process.argv.indexOf("--cpu-prof") + 1] : undefined;
const broker = await startMosquitto(PORT, () => [`listener ${PORT} 127.0.0.1`, "allow_anonymous true", "persistence false", "max_queued_messages 0", "max_inflight_messages 0"]);
const url = new URL(`mqtt://127.0.0.1:${PORT}`);
const prefix = `wt_mqttplace/profile/${process.pid}`;
const child = fork(fileURLToPath(new URL("./ours-child.ts", import.meta.url)), [prefix, "0", url.toString()], {
  execArgv: [...process.execArgv, ...(profDir ? ["--cpu-prof", "--cpu-prof-dir", profDir] : [])],
  stdio: ["ignore", "inherit", "inherit", "ipc"],
});
try {
  await nextMessage(child, (m): m is { type: "ready" } => (m as { type?: string })?.type === "ready", 30_000);
  await drive(prefix, 0, 2_000, url);
  const cpu = async () => {
    const reply = nextMessage(child, (m): m is { type: "cpu"; usage: NodeJS.CpuUsage } => (m as { type?: string })?.type === "cpu");
    child.send({ type: "cpu" });
    const { usage } = await reply;
    return usage.user + usage.system;
  };
  for (let round = 0; round < ROUNDS; round++) {
    const before = await cpu();
    const r = await drive(prefix, 0, N, url);
    const perMessage = (await cpu()) - before;
    console.log(`QoS 0: ${Math.round(r.msgPerSec)} msg/s, p50 ${fmt.ms(r.p50)}, p99 ${fmt.ms(r.p99)}, ${r.received}/${N} arrived; our process: ${(perMessage / r.received).toFixed(1)} µs CPU per message`);
  }
} finally {
  child.send({ type: "stop" });
  await stopChild(child, 10_000);
  await broker.stop();
}
