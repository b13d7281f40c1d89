import { z } from "zod";
import { connectionSchema, nodeInputSchema } from "../../../shared/flow-graph";
import { groupSchema, subflowEnvEntrySchema, subflowInputSchema, subflowView } from "../../../shared/subflows";
import { NAME_MAX_CHARS, NAME_TOO_LONG } from "../../../shared/policy";

/** A definition's id: an instance's type is `subflow:<id>` (at most 64 characters), so at most 56. */
export const subflowIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,56}$/, "must be 1-56 letters, digits, _ or -");

export const createSubflowInput = subflowInputSchema.extend({ id: subflowIdSchema.optional() });
export type CreateSubflowInput = z.infer<typeof createSubflowInput>;

export const updateSubflowInput = z.object({
  id: subflowIdSchema,
  name: z.string().trim().min(1, "is required").max(NAME_MAX_CHARS, NAME_TOO_LONG).optional(),
  description: z.string().max(10_000).optional(),
  category: z.string().trim().min(1).max(64).optional(),
  color: z.string().regex(/^#[0-9A-Fa-f]{6}$/, "must be a colour like #DDAA99").optional(),
  icon: z.string().max(200).nullable().optional(),
  env: z.array(subflowEnvEntrySchema).max(100).optional(),
  nodes: z.array(nodeInputSchema).max(2000, "a subflow holds at most 2,000 nodes").optional(),
  connections: z.array(connectionSchema).max(10_000).optional(),
  groups: z.array(groupSchema).max(500).optional(),
  /** The revision the client edited; a stale one is refused with 409 and nothing is written. */
  revision: z.coerce.number().int().min(1).optional(),
});
export type UpdateSubflowInput = z.infer<typeof updateSubflowInput>;

export const subflowIdInput = z.object({ id: subflowIdSchema });

/** A flow that uses the definition (directly or through another definition) and what it runs of it. */
export const subflowUsageEntry = z.object({
  flow_id: z.string(),
  name: z.string(),
  /** Whether an instance is on the flow's canvas itself (false: only inside another definition it uses). */
  direct: z.boolean(),
  /** The definition's revision the flow's running deployment carries; null when that deployment does not use it (or the flow was never deployed). */
  deployed_revision: z.number().int().nullable(),
  /** Whether that deployment runs the definition's current revision. */
  current: z.boolean(),
});

export const subflowDetailView = subflowView.extend({
  used_by: z.array(subflowUsageEntry).meta({ description: "Flows using the definition, directly or nested, and whether their deployment runs its current revision" }),
  /** Other definitions whose graphs hold an instance of this one. */
  used_by_subflows: z.array(z.object({ id: z.string(), name: z.string() })),
});
export const subflowOutput = z.object({ subflow: subflowDetailView });

export const subflowListItem = subflowView.omit({ nodes: true, connections: true, groups: true });
export const listSubflowsOutput = z.object({ subflows: z.array(subflowListItem) });

export const deploySubflowOutput = z.object({
  /** One new deployment per deployed flow that uses the definition (directly or nested). */
  deployments: z.array(z.object({ flow_id: z.string(), deployment_id: z.string(), revision: z.number().int(), state: z.string() })),
});
