import { CONFIG_REF_KEY, type ConfigNodeUsage, type ConfigNodeView } from "@/shared/config-nodes";
import { configNodeLabelOf } from "@/shared/node-labels";

/**
 * What the editor's configuration-node parts (the picker in a node's form, the dialog, the
 * Configuration tab) compute from the server's views (SPEC §19), kept pure so it is tested alone.
 */

/** A credential a type declares (its definition's `credentials`, listed in the catalog). */
export interface CredentialDeclaration {
  type: "text" | "password" | "pem";
  title: string;
  description?: string;
}

/** The configuration-node type a property of a node's JSON Schema names, or null when it is an ordinary property. */
export function configRefType(prop: Record<string, unknown>): string | null {
  const type = prop[CONFIG_REF_KEY];
  return typeof type === "string" && type !== "" ? type : null;
}

/**
 * How a configuration node is named in pickers and lists: its name, else what Node-RED's editor
 * calls it (an MQTT broker's address, a database's name), else its type and id.
 */
export function configNodeLabel(node: Pick<ConfigNodeView, "id" | "type" | "name"> & { config?: ConfigNodeView["config"] }): string {
  return configNodeLabelOf(node);
}

/** How many nodes name it: nodes of flows, of subflow definitions, and other configuration nodes. */
export function userCount(usedBy: readonly ConfigNodeUsage[]): number {
  return usedBy.reduce((n, u) => n + Math.max(u.node_ids.length, 1), 0);
}

export function usageText(usedBy: readonly ConfigNodeUsage[]): string {
  const n = userCount(usedBy);
  return n === 0 ? "Unused" : `${n} user${n === 1 ? "" : "s"}`;
}

/** Where a user is: "flow", "subflow" or "configuration node", for the lists that name them. */
export function usageKind(u: ConfigNodeUsage): "flow" | "subflow" | "configuration node" {
  return u.flow_id ? "flow" : u.subflow_id ? "subflow" : "configuration node";
}

/**
 * The deployed flows that run an older revision of it than the stored one: what "Deploy users"
 * (`POST /config-nodes/{id}/deploy`) would bring up to date. A flow not deployed, or whose
 * deployment does not carry it, has a null revision and is not counted.
 */
export function staleUsers(node: Pick<ConfigNodeView, "revision" | "used_by">): ConfigNodeUsage[] {
  return node.used_by.filter((u) => u.flow_id && typeof u.deployed_revision === "number" && u.deployed_revision < node.revision);
}

/** A credential field's draft: keep what is stored, write a new value, or clear it. */
export type CredentialDraft = { mode: "keep" } | { mode: "replace"; value: string } | { mode: "clear" };

/**
 * The `credentials` of a create or update (SPEC §19: a string sets, null clears, an omitted key is
 * kept); undefined when nothing changes, so an update without new values keeps them all. An empty
 * replacement is "keep": an empty credential is cleared, never stored as "".
 */
export function credentialsInput(drafts: Readonly<Record<string, CredentialDraft>>): Record<string, string | null> | undefined {
  const out: Record<string, string | null> = {};
  for (const [name, d] of Object.entries(drafts)) {
    if (d.mode === "clear") out[name] = null;
    else if (d.mode === "replace" && d.value !== "") out[name] = d.value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * A refusal's field errors by where the dialog shows them: `name`, the type's form (paths relative
 * to the config, as the node form takes them: `config.servername` → `servername`), the
 * credentials (`credentials.ca` → `ca`), and the rest (shown above the form).
 */
export function splitFieldErrors(fields: Readonly<Record<string, string>>): { name?: string; config: Record<string, string>; credentials: Record<string, string>; other: string[] } {
  const out: { name?: string; config: Record<string, string>; credentials: Record<string, string>; other: string[] } = { config: {}, credentials: {}, other: [] };
  for (const [path, message] of Object.entries(fields)) {
    if (path === "name") out.name = message;
    else if (path.startsWith("config.") || path.startsWith("config[")) out.config[path.slice(path.startsWith("config.") ? 7 : 6)] = message;
    else if (path.startsWith("credentials.")) out.credentials[path.slice(12)] = message;
    else out.other.push(path && path !== "config" && path !== "credentials" ? `${path}: ${message}` : message);
  }
  return out;
}

/** The organization's configuration nodes by type (types in name order, nodes by label), for the Configuration tab. */
export function groupByType(nodes: readonly ConfigNodeView[]): { type: string; nodes: ConfigNodeView[] }[] {
  const byType = new Map<string, ConfigNodeView[]>();
  for (const n of nodes) byType.set(n.type, [...(byType.get(n.type) ?? []), n]);
  return [...byType.keys()]
    .sort((a, b) => a.localeCompare(b))
    .map((type) => ({ type, nodes: byType.get(type)!.sort((a, b) => configNodeLabel(a).localeCompare(configNodeLabel(b)) || a.id.localeCompare(b.id)) }));
}

/** The catalog fields the editor reads of a configuration type (SPEC §19), whatever else an entry carries. */
export interface ConfigTypeInfo {
  kind?: string;
  credentials?: Record<string, CredentialDeclaration>;
}

export const isConfigType = (entry: ConfigTypeInfo | undefined): boolean => entry?.kind === "config";

/** The declared credentials of a type, in declaration order. */
export function credentialsOf(entry: ConfigTypeInfo | undefined): [string, CredentialDeclaration][] {
  return Object.entries(entry?.credentials ?? {});
}
