import { z } from "zod";
import { flowIdSchema } from "../flows/flow.schemas";
import { MAX_ALLOWED_HOSTS, allowedHostProblem } from "../../../shared/allowed-hosts";

/** SPEC §14: Node-RED's environment-variable names, upper case. */
export const VARIABLE_NAME = /^[A-Z_][A-Z0-9_]{0,63}$/;
export const MAX_VARIABLE_BYTES = 64 * 1024;

export const variableName = z
  .string()
  .regex(VARIABLE_NAME, "must be 1-64 upper-case letters, digits or _, not starting with a digit (e.g. API_URL)");

export const variableValue = z
  .string()
  .refine((v) => Buffer.byteLength(v, "utf8") <= MAX_VARIABLE_BYTES, `must be at most ${MAX_VARIABLE_BYTES} bytes`);

/**
 * A secret's allowed hosts (SPEC §14, shared/allowed-hosts.ts): host names, `*.` + a host name, or
 * IPv4 addresses, lower-cased and without duplicates; null removes the restriction. Only a secret
 * carries them.
 */
export const allowedHostsInput = z
  .array(
    z
      .string()
      .max(260)
      .trim()
      .toLowerCase()
      .superRefine((pattern, ctx) => {
        const problem = allowedHostProblem(pattern);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      }),
  )
  .min(1, "must list at least one host; null removes the restriction")
  .max(MAX_ALLOWED_HOSTS, `must list at most ${MAX_ALLOWED_HOSTS} hosts`)
  .transform((hosts) => [...new Set(hosts)])
  .nullable();

const NOT_A_SECRET = "only a secret carries allowed_hosts";

/** A flow's id, or null (absent) for the organization's variable. */
const scopeFlowId = z.preprocess((v) => (v === "" ? null : v), flowIdSchema.nullable().optional());

/** A secret's value is never returned: it has no `value` field at all. */
export const variableView = z.object({
  name: z.string(),
  value: z.string().optional(),
  secret: z.boolean(),
  flow_id: z.string().nullable(),
  /** A secret's allowed hosts; null: no restriction (always null for a plain variable). */
  allowed_hosts: z.array(z.string()).nullable(),
  updated_at: z.string(),
  updated_by: z.string(),
});
export type VariableView = z.infer<typeof variableView>;

export const listVariablesInput = z
  .object({
    /** Only this flow's variables (not the organization's). */
    flow_id: flowIdSchema.optional(),
    limit: z.coerce.number().int().min(1).max(200).optional(),
    cursor: z.string().max(400).optional(),
  })
  .optional();
export const listVariablesOutput = z.object({ variables: z.array(variableView), next_cursor: z.string().nullable() });

export const createVariableInput = z
  .object({
    name: variableName,
    value: variableValue,
    secret: z.boolean().default(false),
    flow_id: scopeFlowId,
    /** Only with `secret: true`: the hosts the secret may be sent to; absent or null: any. */
    allowed_hosts: allowedHostsInput.optional(),
  })
  .superRefine((input, ctx) => {
    if (!input.secret && input.allowed_hosts) ctx.addIssue({ code: "custom", path: ["allowed_hosts"], message: NOT_A_SECRET });
  });
export const updateVariableInput = z.object({
  name: variableName,
  value: variableValue,
  /** Turn a plain variable into a secret, or a secret back into a plain one (with the value given here). */
  secret: z.boolean().optional(),
  flow_id: scopeFlowId,
  /**
   * A secret's allowed hosts: a list replaces them, null removes the restriction, absent keeps
   * them (while the variable stays a secret; a plain variable has none).
   */
  allowed_hosts: allowedHostsInput.optional(),
});
export const deleteVariableInput = z.object({ name: variableName, flow_id: scopeFlowId });
export const variableOutput = z.object({ variable: variableView });

export { NOT_A_SECRET };

export type CreateVariableInput = z.infer<typeof createVariableInput>;
export type UpdateVariableInput = z.infer<typeof updateVariableInput>;
