import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * The MQTT differential cases (cases.json, shared with the Node-RED recorder scripts/mqtt-diff/record.mjs)
 * and what both sides' arrivals are compared as.
 */
export interface MqttStep {
  to: "in" | "out";
  msg: Record<string, unknown>;
  waitMs?: number;
}
export interface MqttCase {
  name: string;
  /** Node-RED mqtt-broker properties of b1 (beside broker 127.0.0.1 and port 1883). */
  broker?: Record<string, unknown>;
  /** A second broker b2 with these properties (the out node uses it with outBroker: "b2"). */
  brokers2?: Record<string, unknown>;
  outBroker?: "b1" | "b2";
  in: Record<string, unknown>;
  out?: Record<string, unknown>;
  steps: MqttStep[];
}
export interface MqttArrival {
  collector: "in" | "catch";
  msg: Record<string, unknown>;
}
export interface MqttRecorded {
  node_red: string;
  cases: Record<string, { arrivals: MqttArrival[] }>;
}

const dir = path.dirname(new URL(import.meta.url).pathname);
export const mqttCases = (JSON.parse(readFileSync(path.join(dir, "cases.json"), "utf8")) as { cases: MqttCase[] }).cases;
export const recordedPath = path.join(dir, "cases.recorded.json");

/** `$T` → the case's topic prefix, and `{__buffer: [...]}` → a Buffer, everywhere in a value. */
export function materialize(value: unknown, prefix: string): unknown {
  if (typeof value === "string") return value.split("$T").join(prefix);
  if (Array.isArray(value)) return value.map((v) => materialize(v, prefix));
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (Array.isArray(o.__buffer)) return Buffer.from(o.__buffer as number[]);
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, materialize(v, prefix)]));
  }
  return value;
}

/**
 * What is compared: JSON (a Buffer as {type: "Buffer", data}), the prefix back to `$T`, no property
 * starting with `_` (`_msgid`; Node-RED's `_topic` for a broker on localhost, which we do not set);
 * for a caught error only its message, the failing node's Node-RED type and the message's topic.
 */
export function normalize(arrivals: MqttArrival[], prefix: string): MqttArrival[] {
  const back = (v: unknown): unknown => {
    if (typeof v === "string") return v.split(prefix).join("$T");
    if (Array.isArray(v)) return v.map(back);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([k]) => !k.startsWith("_")).map(([k, x]) => [k, back(x)]));
    return v;
  };
  return arrivals.map(({ collector, msg }) => {
    const json = back(JSON.parse(JSON.stringify(msg))) as Record<string, unknown>;
    if (collector === "catch") {
      const error = (json.error ?? {}) as { message?: string; source?: { type?: string } };
      return { collector, msg: { error: error.message, source: error.source?.type, topic: json.topic } };
    }
    return { collector, msg: json };
  });
}
