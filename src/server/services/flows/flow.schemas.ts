import { z } from "zod";
import { nodeIdSchema } from "../../../shared/flow-graph";
import { connectionSchema, flowNodeSchema, nodeInputSchema } from "../../../shared/flow-graph";
import { groupSchema } from "../../../shared/subflows";
import { NAME_MAX_CHARS, NAME_TOO_LONG } from "../../../shared/policy";
import { deviceTargetSchema } from "../../../shared/agent-protocol";

const targetMeta = { description: "Where the flow runs (SPEC §22): `\"hosted\"` (here, the default), `{\"device_id\": \"dev_…\"}` or `{\"device_tag\": \"…\"}` (every device with that tag). A device flow accepts any node type its devices reported." };
/** A target device's state for the flow (SPEC §22): `refused` carries why, and `deployment_id` is what it runs instead (null: nothing of this flow). */
export const deviceStateSchema = z.object({
  device_id: z.string(),
  name: z.string(),
  online: z.boolean(),
  state: z.enum(["applied", "pending", "refused"]),
  deployment_id: z.string().nullable(),
  error: z.string().nullable(),
});

export const flowStateSchema = z.enum(["not_deployed", "running", "stopped", "error"]);
export const flowIdSchema = z.string().regex(/^flw_[\w-]{10,64}$/, "must be an id starting with flw_");

export const graphLimits = {
  nodes: z.array(nodeInputSchema).max(2000, "a flow holds at most 2,000 nodes"),
  connections: z.array(connectionSchema).max(10_000, "a flow holds at most 10,000 connections"),
  /** Node-RED groups (SPEC §16); members are checked against the flow's nodes when it is saved. */
  groups: z.array(groupSchema).max(500, "a flow holds at most 500 groups"),
};

export const flowView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  revision: z.number().int(),
  nodes: z.array(flowNodeSchema),
  connections: z.array(connectionSchema),
  groups: z.array(groupSchema).meta({ description: "Groups (SPEC §16): named boxes around nodes; members are node and group ids" }),
  state: flowStateSchema,
  state_error: z.string().nullable(),
  deployed_revision: z.number().int().nullable(),
  deployed_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /** The instance running the flow and since when; null while it runs nowhere. */
  runtime: z
    .object({ instance_id: z.string(), since: z.string() })
    .nullable()
    .meta({ description: "The instance running the flow (SPEC §11) and since when it runs there; null when it is not running." }),
  target: deviceTargetSchema.meta(targetMeta),
  /** A device flow's devices, each with whether it applied the current deployment (in the single-flow reads). */
  devices: z.array(deviceStateSchema).optional(),
});
export const flowOutput = z.object({ flow: flowView });

export const flowListItem = z.object({
  id: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  nodes: z.number().int(),
  revision: z.number().int(),
  state: flowStateSchema,
  updated_at: z.string(),
});

export const listFlowsInput = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).optional(),
    cursor: z.string().max(200).optional(),
    name: z.string().max(NAME_MAX_CHARS).optional(),
    enabled: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
  })
  .optional();
export const listFlowsOutput = z.object({ flows: z.array(flowListItem), next_cursor: z.string().nullable() });

export const createFlowInput = z.object({
  name: z.string().trim().min(1, "is required").max(NAME_MAX_CHARS, NAME_TOO_LONG),
  description: z.string().max(10_000).default(""),
  enabled: z.boolean().default(true),
  nodes: graphLimits.nodes.default([]),
  connections: graphLimits.connections.default([]),
  groups: graphLimits.groups.default([]),
  target: deviceTargetSchema.optional().meta(targetMeta),
});
export type CreateFlowInput = z.infer<typeof createFlowInput>;

export const updateFlowInput = z.object({
  id: flowIdSchema,
  name: z.string().trim().min(1, "is required").max(NAME_MAX_CHARS, NAME_TOO_LONG).optional(),
  description: z.string().max(10_000).optional(),
  enabled: z.boolean().optional(),
  nodes: graphLimits.nodes.optional(),
  connections: graphLimits.connections.optional(),
  groups: graphLimits.groups.optional(),
  target: deviceTargetSchema.optional().meta(targetMeta),
  /** The revision the client edited; a stale one is refused with 409 and nothing is written. */
  revision: z.coerce.number().int().min(1).optional(),
});
export type UpdateFlowInput = z.infer<typeof updateFlowInput>;

export const flowIdInput = z.object({ id: flowIdSchema });

/** Switching a running flow's debug nodes at once (Node-RED's "activate/deactivate all debug nodes"). */
export const setDebugActiveInput = z.object({
  id: flowIdSchema,
  active: z.boolean(),
  /** Some of them only (Node-RED's "selected debug nodes"); absent: every debug node of the running version. */
  node_ids: z.array(nodeIdSchema).min(1).max(1000).optional(),
});
export const setDebugActiveOutput = z.object({ flow_id: z.string(), active: z.boolean(), node_ids: z.array(z.string()) });
export const flowNodesInput = z.object({ flowId: flowIdSchema });

export const nodeStatusSchema = z.object({ fill: z.string(), shape: z.string(), text: z.string() }).nullable();
export const flowNodesOutput = z.object({ nodes: z.array(flowNodeSchema.extend({ status: nodeStatusSchema })) });

export const deploymentView = z.object({
  id: z.string(),
  flow_id: z.string(),
  revision: z.number().int(),
  deployed_at: z.string(),
  deployed_by: z.string(),
  state: flowStateSchema,
  rolled_back_from: z.string().nullable(),
});
export const deploymentOutput = z.object({
  deployment: deploymentView,
  /** With state "error": why the flow could not start (a node's configuration or code), as the flow's state_error says. */
  state_error: z.string().nullable(),
  /** A device flow (SPEC §22): the target devices that have not applied it yet (offline, or slow); with any, the answer is 202. */
  pending: z.array(z.string()).optional(),
  devices: z.array(deviceStateSchema).optional(),
});
const nodeRef = z.object({ id: z.string(), type: z.string(), name: z.string() });
/** A deployment in the history: who (by name, null once the user is deleted), and its node changes against the one before. */
export const deploymentHistoryEntry = deploymentView.extend({
  deployed_by_name: z.string().nullable(),
  changes: z.object({ added: z.array(nodeRef), changed: z.array(nodeRef), removed: z.array(nodeRef) }),
});
export const deploymentsOutput = z.object({ deployments: z.array(deploymentHistoryEntry), next_cursor: z.string().nullable() });
export const listDeploymentsInput = z.object({
  id: flowIdSchema,
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});
export const rollbackInput = z.object({ id: flowIdSchema, deployment_id: z.string().regex(/^dep_[\w-]{10,64}$/, "must be an id starting with dep_") });

export const nodeRedFlowSchema = z.array(z.record(z.string(), z.unknown())).max(20_000);
export const importFlowsInput = z.object({
  flows: nodeRedFlowSchema,
  /** `?dry_run=true` over REST: report what would be imported and write nothing (SPEC §12). */
  dry_run: z
    .union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")])
    .optional()
    .meta({ title: "Dry run", description: "Only report each node's support; nothing is written" }),
  /** `?target_device=dev_…` (SPEC §22): the flows are for that device; its node types count as supported. */
  target_device: z
    .string()
    .regex(/^dev_[\w-]{10,64}$/, "must be an id starting with dev_")
    .optional()
    .meta({ title: "Target device", description: "Import the flows for this device: the node types it reported count as supported, and the flows target it" }),
});
export const importReportEntry = z.object({
  node_id: z.string(),
  type: z.string(),
  support: z.enum(["supported", "partial", "unsupported"]),
  reason: z.string().optional(),
  /** What the canvas writes on the node when it has no name (Node-RED's label: `[post] /orders`, `set msg.payload`); absent when that is its type. */
  label: z.string().optional(),
});
export const importFlowsOutput = z.union([
  z.object({
    flows: z.array(flowView),
    /** The subflow definitions the import created (SPEC §16). */
    subflows: z.array(z.object({ id: z.string(), name: z.string(), revision: z.number().int() })),
    /** The configuration nodes the import created or updated (SPEC §19): a re-import of the same ids updates them. */
    config_nodes: z.array(z.object({ id: z.string(), type: z.string(), name: z.string(), revision: z.number().int() })),
    warnings: z.array(z.string()),
  }),
  z.object({ report: z.array(importReportEntry), warnings: z.array(z.string()) }),
]);
export const exportFlowOutput = nodeRedFlowSchema;
export const replaceFromNodeRedInput = z.object({
  id: flowIdSchema,
  flows: nodeRedFlowSchema,
  /** The revision the file was pulled at; a stale one is refused with 409 and nothing is written. */
  revision: z.coerce.number().int().min(1).optional(),
});
export const replaceFromNodeRedOutput = z.object({ flow: flowView, warnings: z.array(z.string()) });

export const deployedGraphOutput = z.object({
  deployed: z
    .object({
      deployment_id: z.string(),
      revision: z.number().int(),
      deployed_at: z.string(),
      nodes: z.array(flowNodeSchema),
      connections: z.array(connectionSchema),
      groups: z.array(groupSchema),
    })
    .nullable(),
});

/** A selection of the editor, to copy as Node-RED JSON. */
export const clipboardExportInput = z.object({
  id: flowIdSchema,
  nodes: z.array(flowNodeSchema).max(2000),
  connections: z.array(connectionSchema).max(10_000),
});
/** What the clipboard's paste hands the editor: the same limits as a flow's graph (names, positions, counts). */
export const clipboardSelection = z.object({ nodes: graphLimits.nodes, connections: graphLimits.connections });
export const clipboardImportInput = z.object({ flows: nodeRedFlowSchema });
export const clipboardImportOutput = z.object({
  nodes: z.array(flowNodeSchema),
  connections: z.array(connectionSchema),
  warnings: z.array(z.string()),
});
