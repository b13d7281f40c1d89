import { isUtf8 } from "node:buffer";

/**
 * Node-RED 5.0's MQTT helpers (10-mqtt.js), ported as they are: topic checks and matching, the MQTT 5
 * property setters, and the conversion of a received payload by the mqtt-in node's output type.
 */

const KNOWN_MEDIA_TYPES: Record<string, "string" | "json" | "buffer"> = {
  "text/css": "string",
  "text/html": "string",
  "text/plain": "string",
  "application/json": "json",
  "application/octet-stream": "buffer",
  "application/pdf": "buffer",
  "application/x-gtar": "buffer",
  "application/x-gzip": "buffer",
  "application/x-tar": "buffer",
  "application/xml": "string",
  "application/zip": "buffer",
  "audio/aac": "buffer",
  "audio/ac3": "buffer",
  "audio/basic": "buffer",
  "audio/mp4": "buffer",
  "audio/ogg": "buffer",
  "image/bmp": "buffer",
  "image/gif": "buffer",
  "image/jpeg": "buffer",
  "image/tiff": "buffer",
  "image/png": "buffer",
};

type Obj = Record<string, unknown>;
const has = (o: unknown, k: string) => !!o && typeof o === "object" && Object.prototype.hasOwnProperty.call(o, k);

/** Whether a topic filter matches a topic (shared subscriptions `$share/name/filter` match their filter). */
export function matchTopic(filter: string, topic: string): boolean {
  if (filter === "#") return true;
  return filterPattern(filter).test(topic);
}

/** Compiled filters (a connection matches every message against each of its filters). */
const patterns = new Map<string, RegExp>();

function filterPattern(filter: string): RegExp {
  const cached = patterns.get(filter);
  if (cached) return cached;
  let ts = filter;
  if (ts.startsWith("$share")) ts = ts.replace(/^\$share\/[^#+/]+\/(.*)/g, "$1");
  const re = new RegExp(
    "^" +
      ts
        .replace(/([[\]?()\\$^*.|])/g, "\\$1")
        .replace(/\+/g, "[^/]+")
        .replace(/\/#$/, "(/.*)?") +
      "$",
  );
  // Bounded: filters come from flows and dynamic subscriptions; past the bound the oldest go.
  if (patterns.size >= 10_000) patterns.delete(patterns.keys().next().value!);
  patterns.set(filter, re);
  return re;
}

export function isValidSubscriptionTopic(topic: string): boolean {
  return /^(#$|(\+|[^+#]*)(\/(\+|[^+#]*))*(\/(\+|#|[^+#]*))?$)/.test(topic);
}

export function isValidPublishTopic(topic: string): boolean {
  if (topic.length === 0) return false;
  return !/[+#\b\f\n\r\t\v\0]/.test(topic);
}

export function setIntProp(src: Obj, dst: Obj, name: string, min?: number | null, max?: number | null, def?: number) {
  if (has(src, name)) {
    const v = parseInt(String(src[name]));
    if (isNaN(v)) return;
    if (min != null && v < min) return;
    if (max != null && v > max) return;
    dst[name] = v;
  } else if (def !== undefined) dst[name] = def;
}

export function setStrProp(src: Obj, dst: Obj, name: string, def?: string) {
  if (src[name] && typeof src[name] === "string") dst[name] = src[name];
  else if (def !== undefined) dst[name] = def;
}

export function setBoolProp(src: Obj, dst: Obj, name: string, def?: boolean) {
  if (src[name] != null) {
    if (src[name] === "true" || src[name] === true) dst[name] = true;
    else if (src[name] === "false" || src[name] === false) dst[name] = false;
  } else if (def !== undefined) dst[name] = def;
}

/** Copies string (and JSON-stringified) user properties; sets `userProperties` only when one is kept. */
export function setUserProperties(src: unknown, dst: Obj) {
  if (!src || typeof src !== "object") return;
  const clone: Record<string, string> = {};
  let count = 0;
  for (const [k, v] of Object.entries(src as Obj)) {
    if (typeof v === "string") {
      clone[k] = v;
      count++;
    } else if (v !== undefined && v !== null) {
      try {
        clone[k] = JSON.stringify(v);
        count++;
      } catch {
        // dropped, as Node-RED does
      }
    }
  }
  if (count) dst.userProperties = clone;
}

export function setBufferProp(src: Obj | undefined, dst: Obj | undefined, name: string) {
  if (!dst || !src) return;
  const v = src[name];
  if (v) dst[name] = Buffer.isBuffer(v) ? Buffer.from(v) : Buffer.from(typeof v === "string" ? v : JSON.stringify(v));
}

export type Datatype = "auto" | "auto-detect" | "buffer" | "utf8" | "json" | "base64";

/**
 * mqtt-in's message for a received publish (Node-RED's subscriptionHandler): the topic, qos, retain,
 * `dup` when the broker sent it again, MQTT 5 properties, and the payload converted by `datatype`. Returns an error (with the message
 * Node-RED reports it with) when the payload must be JSON and is not.
 */
export function receivedMessage(
  datatype: string,
  topic: string,
  payload: Buffer,
  packet: { qos?: number; retain?: boolean; dup?: boolean; properties?: Obj },
  v5: boolean,
): { msg: Obj } | { error: string; msg: Obj } {
  const msg: Obj = { topic, payload: null, qos: packet.qos, retain: packet.retain };
  // Ours: a redelivery (MQTT's DUP flag, e.g. a persistent session's unacknowledged message sent
  // again after a failover) says so; Node-RED's message has no such property, so it is set only then.
  if (packet.dup === true) msg.dup = true;
  if (v5 && packet.properties) {
    setStrProp(packet.properties, msg, "responseTopic");
    setBufferProp(packet.properties, msg, "correlationData");
    setStrProp(packet.properties, msg, "contentType");
    setIntProp(packet.properties, msg, "messageExpiryInterval", 0);
    setBoolProp(packet.properties, msg, "payloadFormatIndicator");
    setStrProp(packet.properties, msg, "reasonString");
    setUserProperties(packet.properties.userProperties, msg);
  }
  const v5isUtf8 = v5 ? msg.payloadFormatIndicator === true : null;
  const v5HasMediaType = v5 ? !!msg.contentType : null;
  const v5MediaTypeLC = v5 ? String(msg.contentType).toLowerCase() : null;
  const failed = (error: string) => ({ error, msg: { payload, topic, qos: packet.qos, retain: packet.retain } });
  let out: unknown = payload;
  if (datatype === "buffer") {
    // as it came
  } else if (datatype === "base64") {
    out = payload.toString("base64");
  } else if (datatype === "utf8") {
    out = payload.toString("utf8");
  } else if (datatype === "json") {
    if (v5isUtf8 || isUtf8(payload)) {
      try {
        out = JSON.parse(payload.toString());
      } catch {
        return failed("Failed to parse JSON string");
      }
    } else return failed("Invalid JSON string");
  } else if (v5isUtf8 || v5HasMediaType) {
    switch (KNOWN_MEDIA_TYPES[v5MediaTypeLC ?? ""]) {
      case "string":
        out = payload.toString();
        break;
      case "buffer":
        break;
      case "json":
        try {
          out = payload.toString();
          const parsed = JSON.parse(out as string);
          if (datatype === "auto-detect") out = parsed;
        } catch {
          return failed("Failed to parse JSON string");
        }
        break;
      default:
        if (v5isUtf8 || isUtf8(payload)) {
          out = payload.toString();
          if (datatype === "auto-detect") {
            try {
              out = JSON.parse(out as string);
            } catch {
              // a string, not JSON
            }
          }
        }
    }
  } else if (isUtf8(payload)) {
    out = payload.toString();
    if (datatype === "auto-detect") {
      try {
        out = JSON.parse(out as string);
      } catch {
        // a string, not JSON
      }
    }
  }
  msg.payload = out;
  return { msg };
}

/** A payload as MQTT sends it (Node-RED's publish): null/undefined → "", objects → JSON, others → text. */
export function payloadToSend(payload: unknown): Buffer | string {
  if (payload === null || payload === undefined) return "";
  if (Buffer.isBuffer(payload)) return payload;
  if (payload instanceof Uint8Array) return Buffer.from(payload);
  if (typeof payload === "object") return JSON.stringify(payload);
  if (typeof payload !== "string") return String(payload);
  return payload;
}
