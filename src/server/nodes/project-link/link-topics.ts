/**
 * FlowFuse's project link nodes (`@flowfuse/nr-project-nodes`) on the organization's built-in MQTT
 * broker (SPEC §20): their topics and their message encoding, kept as FlowFuse writes them so that
 * a device of the organization speaking MQTT can take part (src/server/mqtt/README.md, "Project links").
 *
 * A topic is `ff/v1/<organization id>/p/<instance>/<in|out|res>/<topic>`: `in` carries messages
 * sent to one instance, `out` an instance's broadcasts, `res` the answers to a project link call.
 * The organization's own flows are the instance `flows`, wherever in the cluster they run.
 */
import type { Message } from "../../runtime/types";

/** The instance id of the organization's flows (FlowFuse's projectID of "this instance"). */
export const FLOWS_INSTANCE = "flows";

/** FlowFuse's editor check for a node's topic: no `+ # $`, no control characters, no empty level. */
const SUB_TOPIC = /^[^/$+#\b\f\n\r\t\v\0]+(?:\/[^/$+#\b\f\n\r\t\v\0]+)*$/;
export const isValidLinkTopic = (topic: string) => SUB_TOPIC.test(topic);

/** An instance id as a topic level: `all` (any sender, project link in only), `flows`, or a device's (`dev:` and its id). */
const INSTANCE = /^(?:all|flows|dev:[A-Za-z0-9_.-]{1,128})$/;
export const isValidInstance = (id: string) => INSTANCE.test(id);

export type LinkDirection = "in" | "out" | "res";

export function linkTopic(organizationId: string, instance: string, direction: LinkDirection, topic: string): string {
  return `ff/v1/${organizationId}/p/${instance === "all" ? "+" : instance}/${direction}/${topic}`;
}

/** The node's topic back out of a link topic (everything after the direction level). */
export function subTopicOf(topic: string): string {
  return topic.split("/").slice(6).join("/");
}

const wrap = (type: string, data: unknown) => ({ type, data });

/**
 * FlowFuse's jsonReplacer: undefined, bigint, Map and Set are wrapped so they come back as such
 * (undefined as null, as there), a Buffer goes as its JSON. Functions are left out: a received
 * message never runs code here (FlowFuse's receiver compiles them with `new Function`).
 */
function replacer(_key: string, value: unknown): unknown {
  if (value === undefined) return wrap("undefined", "");
  if (typeof value === "bigint") return wrap("bigint", value.toString());
  if (typeof value === "function") return undefined;
  if (value instanceof Map) return wrap("Map", [...value]);
  if (value instanceof Set) return wrap("Set", [...value]);
  return value;
}

function reviver(key: string, value: unknown): unknown {
  // An own "__proto__" property would become a prototype wherever the message is copied by assignment.
  if (key === "__proto__") return undefined;
  if (typeof value !== "object" || value === null) return value;
  const v = value as { type?: unknown; data?: unknown };
  if (v.data === undefined) return value;
  switch (v.type) {
    case "undefined":
      return null;
    case "Buffer":
      return Array.isArray(v.data) ? Buffer.from(v.data as number[]) : value;
    case "bigint":
      try {
        return BigInt(String(v.data));
      } catch {
        return value;
      }
    case "Map":
      return Array.isArray(v.data) ? new Map(v.data as Array<[unknown, unknown]>) : value;
    case "Set":
      return Array.isArray(v.data) ? new Set(v.data as unknown[]) : value;
    default:
      return value;
  }
}

export function encodeLinkMessage(msg: Message): Buffer {
  return Buffer.from(JSON.stringify(msg, replacer));
}

/** The message a link topic carried; throws on text that is not a JSON object. */
export function decodeLinkMessage(payload: Buffer): Message {
  const value = JSON.parse(payload.toString("utf8"), reviver) as unknown;
  // A plain object: not an array, nor a root that the reviver turned into a Map, a Set or a Buffer.
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) throw new Error("a project link message must be a JSON object");
  return value as Message;
}

/** The user properties FlowFuse's nodes publish with (who sent it); the receiver's msg.projectLink reads them. */
export function senderProperties(nodeId: string): Record<string, string> {
  return { _projectID: FLOWS_INSTANCE, _applicationID: "", _nodeID: nodeId, _publishTime: String(Date.now()) };
}

/** What a receiving node adds to the message: FlowFuse's msg.projectLink, from the publisher's user properties. */
export function withProjectLink(msg: Message, topic: string, properties: Record<string, unknown> | undefined): Message {
  const user = (properties?.userProperties ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" ? v : Array.isArray(v) && typeof v[0] === "string" ? v[0] : "");
  const previous = typeof msg.projectLink === "object" && msg.projectLink !== null ? (msg.projectLink as Record<string, unknown>) : {};
  const link: Record<string, unknown> = {
    ...previous,
    instanceId: str(user._projectID),
    projectId: str(user._projectID),
    applicationId: str(user._applicationID),
    topic: subTopicOf(topic),
  };
  if (str(user._deviceId)) {
    link.deviceId = str(user._deviceId);
    link.deviceName = str(user._deviceName);
    link.deviceType = str(user._deviceType);
  }
  msg.projectLink = link;
  return msg;
}
