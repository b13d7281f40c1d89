/**
 * The built-in broker's one namespace, split by organization (SPEC §20): every topic and client id a
 * client or a flow names is the organization's own, and the broker stores and routes it as
 * `<organization id>/<topic>` and `<organization id>:<client id>`. Organization ids hold neither
 * `/`, `+`, `#` nor `:`, so a prefixed filter can only ever match its own organization's topics.
 */

/** Why a topic or filter is refused (the caller turns it into the MQTT refusal). */
export type TopicRefusal = "empty" | "system" | "shared" | "wildcard" | "invalid";

/** The internal topic of an organization's topic. */
export function internalTopic(organizationId: string, topic: string): string {
  return `${organizationId}/${topic}`;
}

/** The organization's own topic for an internal one, or null when it belongs to another organization. */
export function externalTopic(organizationId: string, internal: string): string | null {
  const prefix = `${organizationId}/`;
  return internal.startsWith(prefix) ? internal.slice(prefix.length) : null;
}

/** An internal topic's organization and its own topic; null for a topic outside every space. */
export function splitTopic(internal: string): { organizationId: string; topic: string } | null {
  const at = internal.indexOf("/");
  return at > 0 ? { organizationId: internal.slice(0, at), topic: internal.slice(at + 1) } : null;
}

export function internalClientId(organizationId: string, clientId: string): string {
  return `${organizationId}:${clientId}`;
}

/** The organization and the client's own id of an internal client id (null: not one of ours). */
export function splitClientId(internal: string): { organizationId: string; clientId: string } | null {
  const i = internal.indexOf(":");
  if (i <= 0) return null;
  return { organizationId: internal.slice(0, i), clientId: internal.slice(i + 1) };
}

/**
 * A topic a client or a flow may publish to: not empty, no wildcard, not a `$` topic (`$SYS/…`
 * is the broker's, and the broker's own `$SYS` topics are never in an organization's space).
 */
export function checkPublishTopic(topic: string): TopicRefusal | null {
  if (topic.length === 0) return "empty";
  if (topic.includes("+") || topic.includes("#")) return "wildcard";
  if (topic.startsWith("$")) return "system";
  if (topic.includes("\u0000")) return "invalid";
  return null;
}

/**
 * A filter a client or a flow may subscribe to: MQTT's wildcard rules (`+` a whole level, `#` the
 * last level), no `$SYS/…` (the broker's own topics are not the organization's) and no shared
 * subscriptions (`$share/…`: an MQTT 5 feature this broker does not have; refused rather than
 * taken as a literal topic).
 */
export function checkSubscribeFilter(filter: string): TopicRefusal | null {
  if (filter.length === 0) return "empty";
  if (filter.startsWith("$share/") || filter === "$share") return "shared";
  if (filter.startsWith("$")) return "system";
  if (filter.includes("\u0000")) return "invalid";
  const levels = filter.split("/");
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i]!;
    if (level.includes("#") && (level !== "#" || i !== levels.length - 1)) return "invalid";
    if (level.includes("+") && level !== "+") return "invalid";
  }
  return null;
}
