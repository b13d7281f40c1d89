import { z } from "zod";
import { connectionSchema, flowNodeSchema, nodeDescriptionSchema, nodeIdSchema, nodeInputSchema } from "./flow-graph";
import { NAME_MAX_CHARS, NAME_TOO_LONG } from "./policy";

/**
 * SPEC §16: groups, junctions and subflows, as the server stores them and the browser draws them.
 * One contract for the import/export mapping, the runtime, the REST/tRPC doors and the editor.
 *
 * - A group is an entry of a graph's `groups` (a flow's, or a subflow definition's): its members
 *   are listed in `nodes` (node ids and, for nested groups, group ids), as Node-RED's group keeps
 *   them. A node is in at most one group; a group in at most one group. The box's position and
 *   size are drawn from its members (export writes x, y, w, h from them).
 * - A junction is a node of type `junction` (one input, one output, passes the message on).
 * - A subflow definition is an organization resource with a graph of its own. Its input, outputs
 *   and status output are nodes of the reserved types below inside that graph, so the editor
 *   edits a definition as it edits a flow. An instance is a node of type `subflow:<definition id>`
 *   whose config holds its env properties.
 */

export const JUNCTION_TYPE = "junction";
/** The definition's input port (at most one): what enters the instance leaves this node. */
export const SUBFLOW_IN_TYPE = "subflow-in";
/** An output port of the definition; config `{ port: n }` (0-based), one node per port. */
export const SUBFLOW_OUT_TYPE = "subflow-out";
/** The definition's status output (at most one): a message reaching it sets the instance's status (Node-RED's subflow status port). */
export const SUBFLOW_STATUS_TYPE = "subflow-status";
export const SUBFLOW_PORT_TYPES = [SUBFLOW_IN_TYPE, SUBFLOW_OUT_TYPE, SUBFLOW_STATUS_TYPE] as const;

export const SUBFLOW_INSTANCE_PREFIX = "subflow:";
export const isSubflowInstanceType = (type: string) => type.startsWith(SUBFLOW_INSTANCE_PREFIX);
export const subflowIdOfType = (type: string) => (isSubflowInstanceType(type) ? type.slice(SUBFLOW_INSTANCE_PREFIX.length) : null);
export const subflowInstanceType = (subflowId: string) => `${SUBFLOW_INSTANCE_PREFIX}${subflowId}`;

/** How deep subflows may nest (an instance inside a definition inside …); deeper, or a cycle, is refused. */
export const MAX_SUBFLOW_DEPTH = 8;

/** Node-RED's group style, kept as given (stroke, fill, fill-opacity, label, label-position, color, …). */
export const groupStyleSchema = z
  .record(z.string().max(40), z.union([z.string().max(200), z.number().finite(), z.boolean()]))
  .refine((s) => Object.keys(s).length <= 20, "a group style has at most 20 entries");

export const groupSchema = z.object({
  id: nodeIdSchema,
  name: z.string().max(NAME_MAX_CHARS, NAME_TOO_LONG).default(""),
  style: groupStyleSchema.default({}),
  /** Members: node ids and group ids. */
  nodes: z.array(nodeIdSchema).max(2000).default([]),
  /** Node-RED's group env properties: evaluated when the flow starts and read by its members (runtime/group-env.ts). */
  env: z.array(z.record(z.string(), z.unknown())).max(100).default([]),
  /** Node-RED's group description (`info`, its Description tab), Markdown: kept and exported; absent when none. */
  description: nodeDescriptionSchema.optional(),
});
export type FlowGroup = z.infer<typeof groupSchema>;

/**
 * Node-RED's env property types a subflow (or an instance) may declare. A configuration node
 * property (its `ui.type` is "conf-types") has the configuration node's type instead (`server`,
 * `mqtt-broker`) and its id as the value; on an instance it is "conf-type" (Node-RED's editor
 * writes these; its runtime reads any other type's value as the text it is, and so do we).
 */
export const SUBFLOW_ENV_TYPES = ["str", "num", "bool", "json", "bin", "env", "jsonata", "cred", "conf-types", "conf-type"] as const;
const configNodeTypeName = /^[A-Za-z][\w .:-]{0,99}$/;
export const subflowEnvEntrySchema = z
  .object({
    name: z.string().min(1).max(100),
    type: z.string().max(100).default("str"),
    value: z.string().max(100_000).default(""),
    /** Node-RED's `ui` (how the property is edited on an instance), kept for export. */
    ui: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((e, ctx) => {
    if ((SUBFLOW_ENV_TYPES as readonly string[]).includes(e.type)) return;
    if (e.ui?.type === "conf-types" && configNodeTypeName.test(e.type)) return;
    ctx.addIssue({ code: "custom", path: ["type"], message: `must be one of ${SUBFLOW_ENV_TYPES.join(", ")}, or a configuration node's type when ui.type is "conf-types"` });
  });
export type SubflowEnvEntry = z.infer<typeof subflowEnvEntrySchema>;

/** An instance's config: the env properties it sets (they override the definition's defaults). */
export const subflowInstanceConfigSchema = z.object({ env: z.array(subflowEnvEntrySchema).max(100).default([]) });

const definitionFields = {
  name: z.string().trim().min(1, "is required").max(NAME_MAX_CHARS, NAME_TOO_LONG),
  description: z.string().max(10_000).default(""),
  /** The palette category it is listed under. */
  category: z.string().trim().min(1).max(64).default("subflows"),
  color: z.string().regex(/^#[0-9A-Fa-f]{6}$/, "must be a colour like #DDAA99").default("#DDAA99"),
  icon: z.string().max(200).optional(),
  env: z.array(subflowEnvEntrySchema).max(100).default([]),
  groups: z.array(groupSchema).max(500).default([]),
};

export const subflowInputSchema = z.object({
  ...definitionFields,
  id: nodeIdSchema.optional(),
  nodes: z.array(nodeInputSchema).max(2000, "a subflow holds at most 2,000 nodes").default([]),
  connections: z.array(connectionSchema).max(10_000).default([]),
});
export type SubflowInput = z.input<typeof subflowInputSchema>;

export const subflowView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  color: z.string(),
  icon: z.string().nullable(),
  env: z.array(subflowEnvEntrySchema),
  nodes: z.array(flowNodeSchema),
  connections: z.array(connectionSchema),
  groups: z.array(groupSchema),
  /** Derived from the port nodes: 0 or 1. */
  inputs: z.number().int(),
  /** Derived from the port nodes: the number of subflow-out ports. */
  outputs: z.number().int(),
  /** Whether the definition has a status output (it sets the instance's node status). */
  status: z.boolean(),
  revision: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SubflowView = z.infer<typeof subflowView>;

/**
 * A definition as a deployment snapshots it: the flow's deployment carries every definition its
 * instances use (transitively), so a running flow never reads the subflows table and a rollback
 * runs the definitions it was deployed with. The runtime receives them in FlowSpec.subflows.
 */
export interface SubflowSnapshot {
  id: string;
  name: string;
  revision: number;
  env: SubflowEnvEntry[];
  nodes: Array<z.infer<typeof flowNodeSchema>>;
  connections: Array<z.infer<typeof connectionSchema>>;
  /** The groups inside the definition: their env properties and NR_GROUP_* reach their nodes (absent in deployments made before they were carried). */
  groups?: FlowGroup[];
}
