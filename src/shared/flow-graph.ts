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

/** The first `max` UTF-16 units of a string, one fewer where the cut would split a surrogate pair (a lone half is no text: PostgreSQL refuses it). */
export function sliceCodePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * The most output ports a node has (a switch with a rule per output, a function's outputs): real
 * Node-RED flows have switches with more than 32 rules and functions with more than 10 outputs.
 */
export const MAX_OUTPUT_PORTS = 256;

/** The longest label of one of a node's ports (Node-RED's inputLabels / outputLabels). */
export const PORT_LABEL_MAX_CHARS = 1_000;
/** The longest icon reference a node holds (Node-RED's `icon`, e.g. `font-awesome/fa-car`). */
export const NODE_ICON_MAX_CHARS = 256;

/**
 * How a node looks on the canvas, as Node-RED's Appearance tab sets it; nothing that runs reads it.
 * `show_label` is Node-RED's `l` (absent: the type's default, shown except for link in and link
 * out); `icon` Node-RED's icon reference (`font-awesome/fa-car`, `node-red/light.svg`); the port
 * labels are the tooltips of its input and of each output ("" for a port without one). Absent when
 * nothing is set.
 */
export const nodeAppearanceSchema = z.object({
  show_label: z.boolean().optional(),
  icon: z
    .string()
    .min(1)
    .max(NODE_ICON_MAX_CHARS, `an icon is at most ${NODE_ICON_MAX_CHARS} characters`)
    // Printable characters only, none that could leave an attribute or start markup (an icon is drawn as a class or an image).
    .regex(/^[^<>"'`\\]+$/, "an icon is a module and a file (node-red/light.svg) or font-awesome/fa-<name>")
    .refine((v) => !/\p{Cc}/u.test(v), "an icon holds no control characters")
    .optional(),
  input_labels: z.array(z.string().max(PORT_LABEL_MAX_CHARS, `a port label is at most ${PORT_LABEL_MAX_CHARS} characters`)).max(1, "a node has at most one input").optional(),
  output_labels: z.array(z.string().max(PORT_LABEL_MAX_CHARS, `a port label is at most ${PORT_LABEL_MAX_CHARS} characters`)).max(MAX_OUTPUT_PORTS, `a node has at most ${MAX_OUTPUT_PORTS} outputs`).optional(),
});
export type NodeAppearance = z.infer<typeof nodeAppearanceSchema>;

/** The appearance as stored: without empty parts, and absent when nothing is left (port labels all empty are none). */
export function normalizeAppearance(appearance: NodeAppearance | undefined): NodeAppearance | undefined {
  if (!appearance) return undefined;
  const out: NodeAppearance = {};
  if (appearance.show_label !== undefined) out.show_label = appearance.show_label;
  if (appearance.icon) out.icon = appearance.icon;
  const labels = (list: string[] | undefined) => {
    if (!list?.some((l) => l !== "")) return undefined;
    let end = list.length;
    while (end > 0 && list[end - 1] === "") end--;
    return list.slice(0, end);
  };
  const input = labels(appearance.input_labels);
  if (input) out.input_labels = input;
  const outputs = labels(appearance.output_labels);
  if (outputs) out.output_labels = outputs;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A node as clients send it: config is checked against its type's schema on the server. */
export const nodeInputSchema = z.object({
  id: nodeIdSchema.optional(),
  type: z.string().min(1).max(64),
  name: z.string().max(NAME_MAX_CHARS, NAME_TOO_LONG).default(""),
  position: positionSchema.default({ x: 0, y: 0 }),
  config: z.record(z.string(), z.unknown()).default({}),
  disabled: z.boolean().default(false),
  description: nodeDescriptionSchema.optional(),
  appearance: nodeAppearanceSchema.optional(),
});

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
  appearance: nodeAppearanceSchema.optional(),
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
