import { z } from "zod";

/**
 * Executions (SPEC §15): what happened to each message an input node started. Isomorphic: the
 * doors (REST, tRPC) validate their answers with these schemas, and the editor's Executions tab
 * reads them. A debug event names its execution in `data.execution_id` (src/shared/realtime.ts).
 */

export const executionStatuses = ["running", "success", "error"] as const;
export type ExecutionStatus = (typeof executionStatuses)[number];

/** What a message cut to fit (inputs at 64 KiB of JSON text) says instead of its value. */
export const EXECUTION_INPUT_MAX_BYTES = 64 * 1024;

export const executionIdSchema = z.string().regex(/^exe_[A-Za-z0-9_-]{1,64}$/, "is not an execution id");

/** A message one output port of a step's node sent: `count` messages left on `port` (0-based). */
export const executionOutputSchema = z.object({ port: z.number().int().min(0), count: z.number().int().min(1) });

export const executionIdInputSchema = z.object({ id: executionIdSchema });

/**
 * One node the message reached. `input` is the message as the node received it (secrets redacted
 * as "***"); with `truncated` it is the first 64 KiB of the message's JSON text instead, a string.
 * `input` is absent (and `input_recorded` false) for steps of an execution recorded only because
 * it failed while it was not sampled: only its trigger and its failing step keep their message.
 * `dropped`: the node finished with the message and sent nothing (a switch without a match, a
 * filter): the message ended there. `error`: the node failed with this message (its text, redacted).
 * The step of the trigger node (the first) has as `input` the message it sent.
 */
export const executionStepSchema = z.object({
  node_id: z.string(),
  input: z.unknown().optional(),
  input_recorded: z.boolean(),
  truncated: z.boolean().optional(),
  outputs: z.array(executionOutputSchema),
  dropped: z.boolean().optional(),
  error: z.string().optional(),
  started_at: z.string(),
  /** Until the node was done with the message (null: not done yet, or never: it was still running). */
  duration_ms: z.number().nullable(),
});
export type ExecutionStep = z.infer<typeof executionStepSchema>;

/** An execution as lists show it. `duration_ms` is null while it runs. */
export const executionListItemSchema = z.object({
  id: z.string(),
  flow_id: z.string(),
  deployment_id: z.string().nullable(),
  trigger_node_id: z.string(),
  status: z.enum(executionStatuses),
  started_at: z.string(),
  duration_ms: z.number().nullable(),
  replay_of: z.string().nullable(),
  /** The first error (the failing step's, or why it never finished: "instance … stopped while it ran"). */
  error: z.string().nullable(),
});
export type ExecutionListItem = z.infer<typeof executionListItemSchema>;

export const listExecutionsInputSchema = z.object({
  id: z.string().regex(/^flw_[\w-]{10,64}$/, "must be an id starting with flw_"),
  status: z.enum(["success", "error", "running"]).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(400).optional(),
});

/**
 * `unrecorded`: successful executions of this flow that were not kept (sampling at high message
 * rates: every error is kept, successes up to a rate per flow and then one in k).
 */
export const listExecutionsOutputSchema = z.object({
  executions: z.array(executionListItemSchema),
  next_cursor: z.string().nullable(),
  unrecorded: z.number().int().min(0),
});
export type ListExecutionsOutput = z.infer<typeof listExecutionsOutputSchema>;

/**
 * One execution with its steps, in the order the nodes received the message. `sampled` false: it
 * was kept only because it failed (see the step's `input_recorded`). `instance_id`: the instance
 * that ran it. `replayable`: its trigger message was kept (messages over 1 MiB are not).
 */
export const executionSchema = executionListItemSchema.extend({
  instance_id: z.string(),
  sampled: z.boolean(),
  replayable: z.boolean(),
  steps: z.array(executionStepSchema),
  /** Steps past the first 100 (a fan-out) that were only counted; failing steps are always in `steps`. */
  steps_omitted: z.number().int().min(0),
});
export type Execution = z.infer<typeof executionSchema>;

/** Debug events name the execution of their message even when sampling did not keep it: GET /executions/{id} is then 404. */
export const getExecutionOutputSchema = z.object({ execution: executionSchema });
export const replayExecutionOutputSchema = z.object({ execution_id: z.string() });
