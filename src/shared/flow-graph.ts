import { z } from "zod";
import type { FlowGroup } from "./subflows";
import { NAME_MAX_CHARS, NAME_TOO_LONG } from "./policy";

/** A node id: chosen by the client (unique within the organization) or generated. */
export const nodeIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1-64 letters, digits, _ or -");

export const positionSchema = z.object({
  x: z.number().finite().min(-1e6).max(1e6),
  y: z.number().finite().min(-1e6).max(1e6),
});

/** The longest description a node holds (Node-RED's `info`, the Description tab): as a comment's text. */
export const NODE_DESCRIPTION_MAX_CHARS = 65_536;

/**
 * A node's description, Markdown (Node-RED's `info`): what the person who built the flow wrote about
 * the node, shown in the editor's Node tab. Nothing that runs reads it. Absent when empty.
 */
export const nodeDescriptionSchema = z.string().max(NODE_DESCRIPTION_MAX_CHARS, `a node's description is at most ${NODE_DESCRIPTION_MAX_CHARS.toLocaleString("en")} characters`);

/** A node as clients send it: config is checked against its type's schema on the server. */
export const nodeInputSchema = z.object({
  id: nodeIdSchema.optional(),
  type: z.string().min(1).max(64),
  name: z.string().max(NAME_MAX_CHARS, NAME_TOO_LONG).default(""),
  position: positionSchema.default({ x: 0, y: 0 }),
  config: z.record(z.string(), z.unknown()).default({}),
  disabled: z.boolean().default(false),
  description: nodeDescriptionSchema.optional(),
});

/**
 * The most output ports a node has (a switch with a rule per output, a function's outputs): real
 * Node-RED flows have switches with more than 32 rules and functions with more than 10 outputs.
 */
export const MAX_OUTPUT_PORTS = 256;

/**
 * The longest value a change or switch rule holds: 1,000,000 characters (real flows set a whole
 * JSON document with a change node, past 64 KiB); a flow's body stays under its 5 MiB limit.
 */
export const MAX_VALUE_CHARS = 1_000_000;

export const connectionSchema = z.object({
  source: nodeIdSchema,
  source_port: z.number().int().min(0).max(MAX_OUTPUT_PORTS - 1).default(0),
  target: nodeIdSchema,
});

export const flowNodeSchema = z.object({
  id: nodeIdSchema,
  type: z.string(),
  name: z.string(),
  position: positionSchema,
  config: z.record(z.string(), z.unknown()),
  disabled: z.boolean(),
  description: nodeDescriptionSchema.optional(),
});

export type FlowNode = z.infer<typeof flowNodeSchema>;
export type FlowNodeInput = z.input<typeof nodeInputSchema>;
export type Connection = z.infer<typeof connectionSchema>;

/** What a deployment snapshots and the runtime runs. */
export interface FlowGraph {
  nodes: FlowNode[];
  connections: Connection[];
  /** Node-RED groups (SPEC §16): boxes around nodes, nothing that runs. Absent in rows from before them. */
  groups?: FlowGroup[];
}
