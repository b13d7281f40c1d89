import { z } from "zod";
import { NAME_MAX_CHARS, NAME_TOO_LONG } from "./policy";

/**
 * SPEC §19: configuration nodes, as the server stores them and the browser edits them. One contract
 * for the REST/tRPC doors, the import/export mapping, the deploy snapshot and the editor's picker.
 *
 * - A configuration node is a resource of the organization (`/config-nodes`), not a node of a
 *   flow's canvas. Its type is a node type whose definition says `kind: "config"` (tls-config,
 *   http-proxy, global-config, mqtt-broker, ui-base …); its `config` is parsed by that type's
 *   schema, as a flow node's is.
 * - Its id is the one Node-RED gave it where that id is valid here (so a re-import of the same
 *   flows.json updates it instead of duplicating), else a deterministic rewrite of it
 *   (`configNodeIdFromNodeRed`).
 * - Credentials (Node-RED's `credentials`: user, password, token, PEM key/cert/ca …) are declared
 *   by the type, written only (`credentials` on create/update), stored encrypted, and read back as
 *   `{ <name>: { set: boolean } }`, never as values.
 * - A node (of a flow, of a subflow definition, or another configuration node) names one in a
 *   property of its schema built with `configNodeRef(type)`: the JSON Schema the editor receives
 *   carries `CONFIG_REF_KEY` with the type, so the form shows a picker; the server checks at save
 *   that the id is a configuration node of that type in the same organization.
 */

/** JSON Schema keyword (emitted through zod's `.meta`) that marks a property as a reference to a configuration node of a type. */
export const CONFIG_REF_KEY = "x-config-node";

export const configNodeIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1-64 letters, digits, _ or -");

/**
 * Node-RED ids such as `e3b0c442.98fc1c` are not valid ids here; the same Node-RED id always maps
 * to the same id, so that importing the same file twice finds the node it created the first time.
 */
export function configNodeIdFromNodeRed(nodeRedId: string): string | null {
  if (configNodeIdSchema.safeParse(nodeRedId).success) return nodeRedId;
  const rewritten = nodeRedId.replace(/[^A-Za-z0-9_-]/g, "-");
  return configNodeIdSchema.safeParse(rewritten).success ? rewritten : null;
}

/** A Node-RED node's reference to a configuration node (its `broker`, `tls` …) as ours: "" for none or one that maps to no id. */
export function configRefFromNodeRed(value: unknown): string {
  return typeof value === "string" && value !== "" ? (configNodeIdFromNodeRed(value) ?? "") : "";
}

/**
 * A property of a node's config schema that names a configuration node of `type` (Node-RED's
 * `broker: { type: "mqtt-broker", required: true }`). Optional references accept "" for "none".
 */
export function configNodeRef(type: string, options: { title: string; description?: string; required?: boolean }) {
  const base = options.required ? configNodeIdSchema : z.union([z.literal(""), configNodeIdSchema]).default("");
  return base.meta({ title: options.title, ...(options.description ? { description: options.description } : {}), [CONFIG_REF_KEY]: type });
}

/** A credential as read back: whether it holds a value, never the value. */
export const credentialStateSchema = z.object({ set: z.boolean() });

/** Credentials as written: a string sets (may hold `${NAME}`), null clears, an omitted key is kept. */
export const credentialsInputSchema = z.record(z.string().min(1).max(64), z.string().max(65_536).nullable());

export const configNodeUsageSchema = z.object({
  /** A flow whose nodes name it: the flow and the node ids. */
  flow_id: z.string().optional(),
  /** A subflow definition whose nodes name it. */
  subflow_id: z.string().optional(),
  /** Another configuration node that names it (a ui-group its ui-page, an mqtt-broker its tls-config). */
  config_node_id: z.string().optional(),
  name: z.string(),
  node_ids: z.array(z.string()),
  /** For flows: the revision of this configuration node the flow's running deployment carries; null when not deployed or not using it. */
  deployed_revision: z.number().int().nullable().optional(),
});
export type ConfigNodeUsage = z.infer<typeof configNodeUsageSchema>;

export const configNodeView = z.object({
  id: z.string(),
  type: z.string(),
  name: z.string(),
  config: z.record(z.string(), z.unknown()),
  credentials: z.record(z.string(), credentialStateSchema),
  revision: z.number().int(),
  used_by: z.array(configNodeUsageSchema),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ConfigNodeView = z.infer<typeof configNodeView>;

export const listConfigNodesInput = z.object({ type: z.string().min(1).max(64).optional() });
export const listConfigNodesOutput = z.object({ config_nodes: z.array(configNodeView) });

export const createConfigNodeInput = z.object({
  id: configNodeIdSchema.optional(),
  type: z.string().min(1).max(64),
  name: z.string().trim().max(NAME_MAX_CHARS, NAME_TOO_LONG).default(""),
  config: z.record(z.string(), z.unknown()).default({}),
  credentials: credentialsInputSchema.optional(),
});
export type CreateConfigNodeInput = z.infer<typeof createConfigNodeInput>;

export const updateConfigNodeInput = z.object({
  id: configNodeIdSchema,
  name: z.string().trim().max(NAME_MAX_CHARS, NAME_TOO_LONG).optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  credentials: credentialsInputSchema.optional(),
  /** The revision the client edited; a stale one is refused with 409 REVISION_CONFLICT and nothing is written. */
  revision: z.coerce.number().int().min(1).optional(),
});
export type UpdateConfigNodeInput = z.infer<typeof updateConfigNodeInput>;

export const configNodeIdInput = z.object({ id: configNodeIdSchema });
export const configNodeOutput = z.object({ config_node: configNodeView });

export const deployConfigNodeOutput = z.object({
  /** One new deployment per deployed flow that uses the configuration node (directly, through a subflow, or through another configuration node). */
  deployments: z.array(z.object({ flow_id: z.string(), deployment_id: z.string(), revision: z.number().int(), state: z.string() })),
});

/** What a deployment carries of a configuration node: enough to run without reading the resource again (credentials stay sealed). */
export const configNodeSnapshotSchema = z.object({
  id: z.string(),
  type: z.string(),
  name: z.string(),
  config: z.record(z.string(), z.unknown()),
  revision: z.number().int(),
  /**
   * Its place in the organization's order of creation (an import's in its file's order), where
   * Node-RED's order of configuration nodes shows: Dashboard 2.0's groups and pages of one order,
   * an export, a device's flows file. Absent from deployments made before it was kept.
   */
  seq: z.number().int().optional(),
  /** Sealed credential values (server-side encryption), opened only inside the runtime. */
  sealed_credentials: z.record(z.string(), z.string()).default({}),
});
export type ConfigNodeSnapshot = z.infer<typeof configNodeSnapshotSchema>;
