import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** The Mosquitto the MQTT tests use: the machine's shared one (topics under wt_mqtt/), or MQTT_TEST_URL. */
export const MOSQUITTO_URL = process.env.MQTT_TEST_URL ?? "mqtt://127.0.0.1:1883";

export interface OwnMosquitto {
  port: number;
  dir: string;
  stop(): Promise<void>;
  /** Stops it and starts it again on the same port (files in `dir` may have changed meanwhile). */
  restart(): Promise<void>;
}

async function waitForPort(port: number, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: "127.0.0.1", port }, () => {
        s.destroy();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`mosquitto did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A Mosquitto of a test's own (`mosquitto -c <conf>`), for configurations the shared one lacks
 * (TLS, passwords): `config(dir)` returns the configuration's lines, given a directory for its files.
 */
export async function startMosquitto(port: number, config: (dir: string) => string[]): Promise<OwnMosquitto> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "wt-mqtt-mosquitto-"));
  // Started as root, Mosquitto reads its files as the mosquitto user.
  chmodSync(dir, 0o755);
  const conf = path.join(dir, "mosquitto.conf");
  writeFileSync(conf, [...config(dir), ""].join("\n"));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn("mosquitto", ["-c", conf], { stdio: "ignore" });
    await waitForPort(port);
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once("exit", () => resolve());
      c.kill("SIGTERM");
    });
  };
  await start();
  return {
    port,
    dir,
    restart: async () => {
      await stop();
      await start();
    },
    stop: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
