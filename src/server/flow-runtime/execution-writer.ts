import type { PrismaClient } from "../../generated/prisma/client";
import type { Logger } from "../logger";
import type { ExecutionSink, TrackedExecution, TrackedStep } from "../runtime/executions/tracker";
import type { ExecutionStep } from "../../shared/executions";
import { VariableSet } from "../runtime/variables";

/** Retention and cost settings (README's configuration table: EXECUTIONS_*). */
export interface ExecutionSettings {
  /** Off: nothing is recorded (debug events carry no execution_id, replay answers 409). */
  enabled: boolean;
  keepPerFlow: number;
  keepDays: number;
  keepErrorDays: number;
  sampleAllPerSec: number;
  sampleOneIn: number;
}

export const DEFAULT_EXECUTION_SETTINGS: ExecutionSettings = {
  enabled: true,
  keepPerFlow: 10_000,
  keepDays: 7,
  keepErrorDays: 30,
  sampleAllPerSec: 100,
  sampleOneIn: 100,
};

export interface ExecutionWriterDeps {
  prisma: PrismaClient;
  logger: Logger;
  instanceId: string;
  settings: ExecutionSettings;
  /** The organization's secrets, redacted from every input, trigger message and error before they are stored. */
  redactor(organizationId: string): VariableSet;
  /** Flush after this long (ms) or FLUSH_ROWS rows, whichever first. */
  flushMs?: number;
  /** How often the retention sweep runs (ms). */
  sweepMs?: number;
}

const FLUSH_ROWS = 500;
/** Rows waiting for the database past which new successes are counted as unrecorded instead (a slow database must not take the memory). */
const MAX_WAITING_ROWS = 20_000;
const SWEEP_BATCH = 1000;
/** Batches one sweep deletes at most per rule, so a sweep never holds the database for long. */
const SWEEP_MAX_BATCHES = 50;

/** One execution as a JSON object (text), the element of the batch's json_to_recordset. */
interface Row {
  id: string;
  organizationId: string;
  flowId: string;
  status: string;
  json: string;
}

const COLUMNS = `id text, organization_id text, flow_id text, deployment_id text, trigger_node_id text, status text,
  started_at timestamptz, duration_ms int, replay_of text, error text, trigger_message jsonb, steps jsonb,
  steps_omitted int, instance_id text, sampled boolean`;

// One statement per batch, its rows in one JSON parameter: no round trip, and no client-side
// serialization, per execution (their steps' inputs are spliced in as the JSON text they were captured as).
const INSERT_SQL = `
INSERT INTO executions (id, organization_id, flow_id, deployment_id, trigger_node_id, status, started_at, duration_ms,
  replay_of, error, trigger_message, steps, steps_omitted, instance_id, sampled)
SELECT id, organization_id, flow_id, deployment_id, trigger_node_id, status, started_at, duration_ms,
  replay_of, error, trigger_message, steps, steps_omitted, instance_id, sampled
FROM json_to_recordset($1::json) AS r(${COLUMNS})
ON CONFLICT (id) DO NOTHING`;

const UPDATE_SQL = `
UPDATE executions e SET status = r.status, duration_ms = r.duration_ms, error = r.error, steps = r.steps, steps_omitted = r.steps_omitted
FROM json_to_recordset($1::json) AS r(${COLUMNS})
WHERE e.id = r.id`;

const COUNT_SQL = `
INSERT INTO execution_counters (flow_id, organization_id, unrecorded)
SELECT flow_id, organization_id, unrecorded FROM json_to_recordset($1::json) AS r(flow_id text, organization_id text, unrecorded bigint)
ON CONFLICT (flow_id) DO UPDATE SET unrecorded = execution_counters.unrecorded + EXCLUDED.unrecorded`;

/**
 * Stores the executions the engine's tracker keeps: one multi-row INSERT per batch (every ~100 ms
 * or 500 rows), never a round trip per message; an execution stored as `running` (it ran over a
 * second) is updated when it ends. Counts the successes sampling left out per flow, and sweeps
 * what retention lets go, a batch at a time.
 */
export class ExecutionWriter implements ExecutionSink {
  private inserts = new Map<string, Row>();
  private updates = new Map<string, TrackedExecution>();
  /** Stored as running, not yet updated (so a late finish updates rather than inserts). */
  private readonly stored = new Set<string>();
  private unrecordedCounts = new Map<string, { organizationId: string; count: number }>();
  /** Flows with executions written since the last sweep (their count rule is checked). */
  private touched = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly sweepTimer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  private sweeping: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly deps: ExecutionWriterDeps) {
    this.sweepTimer = setInterval(() => void this.sweep(), deps.sweepMs ?? 60_000);
    this.sweepTimer.unref();
  }

  running(execution: TrackedExecution): void {
    this.inserts.set(execution.id, this.row(execution));
    this.schedule();
  }

  finished(execution: TrackedExecution): void {
    if (this.closed) return;
    if (execution.status === "success" && this.inserts.size + this.updates.size >= MAX_WAITING_ROWS && !execution.announced) {
      this.unrecorded(execution.organizationId, execution.flowId);
      return;
    }
    if (this.stored.has(execution.id)) this.updates.set(execution.id, execution);
    else this.inserts.set(execution.id, this.row(execution));
    this.schedule();
  }

  unrecorded(organizationId: string, flowId: string): void {
    const entry = this.unrecordedCounts.get(flowId);
    if (entry) entry.count++;
    else this.unrecordedCounts.set(flowId, { organizationId, count: 1 });
    this.schedule();
  }

  private schedule(): void {
    if (this.inserts.size + this.updates.size >= FLUSH_ROWS) {
      void this.flush();
      return;
    }
    if (this.flushTimer || this.closed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, this.deps.flushMs ?? 100);
    this.flushTimer.unref();
  }

  /** Writes what waits; resolves once it is stored (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.inserts.size === 0 && this.updates.size === 0 && this.unrecordedCounts.size === 0) return;
    this.flushing = this.write().finally(() => {
      this.flushing = null;
    });
    await this.flushing;
  }

  private async write(): Promise<void> {
    const inserts = [...this.inserts.values()];
    const updates = [...this.updates.values()].map((e) => this.row(e));
    const counts = [...this.unrecordedCounts.entries()];
    this.inserts = new Map();
    this.updates = new Map();
    this.unrecordedCounts = new Map();
    const { prisma } = this.deps;
    try {
      if (inserts.length > 0) {
        await prisma.$executeRawUnsafe(INSERT_SQL, `[${inserts.map((r) => r.json).join(",")}]`);
        for (const row of inserts) {
          this.touched.add(row.flowId);
          if (row.status === "running") this.stored.add(row.id);
        }
      }
      if (updates.length > 0) {
        await prisma.$executeRawUnsafe(UPDATE_SQL, `[${updates.map((r) => r.json).join(",")}]`);
        for (const row of updates) this.stored.delete(row.id);
      }
      if (counts.length > 0) {
        await prisma.$executeRawUnsafe(COUNT_SQL, JSON.stringify(counts.map(([flowId, c]) => ({ flow_id: flowId, organization_id: c.organizationId, unrecorded: c.count }))));
      }
    } catch (err) {
      // The database is away: these executions are lost (counted, so the list says so), the flows run on.
      this.deps.logger.warn({ err, executions: inserts.length + updates.length }, "executions could not be stored");
      for (const row of inserts) if (row.status !== "error") this.unrecorded(row.organizationId, row.flowId);
    }
  }

  private row(execution: TrackedExecution): Row {
    const redactor = this.deps.redactor(execution.organizationId);
    const stepError = execution.steps.find((s) => s.error !== undefined)?.error;
    const error = execution.error ?? stepError ?? null;
    const status = execution.ended ? execution.status : "running";
    let trigger = "null";
    if (execution.triggerMessage !== null) trigger = redactor.hasSecrets ? JSON.stringify(redactor.redact(JSON.parse(execution.triggerMessage))) : execution.triggerMessage;
    const head = JSON.stringify({
      id: execution.id,
      organization_id: execution.organizationId,
      flow_id: execution.flowId,
      deployment_id: execution.deploymentId,
      trigger_node_id: execution.triggerNodeId,
      status,
      started_at: new Date(execution.startedAt).toISOString(),
      duration_ms: execution.ended && execution.durationMs !== null ? Math.round(execution.durationMs) : null,
      replay_of: execution.replayOf,
      error: error === null ? null : redactor.redactText(error),
      steps_omitted: execution.stepsOmitted,
      instance_id: this.deps.instanceId,
      sampled: execution.sampled,
    });
    const steps = execution.steps.map((step) => stepJson(step, redactor)).join(",");
    return {
      id: execution.id,
      organizationId: execution.organizationId,
      flowId: execution.flowId,
      status,
      json: `${head.slice(0, -1)},"trigger_message":${trigger},"steps":[${steps}]}`,
    };
  }

  /**
   * The flow starts here, where it did not run: the executions left `running` for it (by another
   * instance that died or lost the flow's lease mid-execution, or by this instance's previous
   * process under the same INSTANCE_ID) end in error, never running forever. One whose real end is
   * still on its way (a graceful hand-over's last batch) overwrites this when it arrives.
   */
  async abandonOthers(flowId: string): Promise<void> {
    await this.deps.prisma.$executeRaw`
      UPDATE executions
      SET status = 'error', error = 'instance ' || instance_id || ' stopped while it ran',
          duration_ms = LEAST(2147483647, GREATEST(0, (EXTRACT(EPOCH FROM (now() - started_at)) * 1000)::bigint))::int
      WHERE flow_id = ${flowId} AND status = 'running'`;
  }

  /**
   * Retention: per flow the newest keepPerFlow, successes for keepDays, errors for keepErrorDays;
   * in batches of SWEEP_BATCH rows.
   */
  sweep(): Promise<void> {
    if (this.sweeping) return this.sweeping;
    this.sweeping = this.sweepNow()
      .catch((err: unknown) => this.deps.logger.warn({ err }, "execution retention sweep failed"))
      .finally(() => {
        this.sweeping = null;
      });
    return this.sweeping;
  }

  private async sweepNow(): Promise<void> {
    const { prisma, settings } = this.deps;
    const now = Date.now();
    const successCut = new Date(now - settings.keepDays * 86_400_000);
    const errorCut = new Date(now - settings.keepErrorDays * 86_400_000);
    for (let i = 0; i < SWEEP_MAX_BATCHES; i++) {
      const deleted = await prisma.$executeRaw`
        DELETE FROM executions WHERE id IN (
          SELECT id FROM executions
          WHERE started_at < ${successCut} AND (status <> 'error' OR started_at < ${errorCut}) AND status <> 'running'
          LIMIT ${SWEEP_BATCH})`;
      if (deleted < SWEEP_BATCH) break;
    }
    const flows = [...this.touched];
    this.touched = new Set();
    for (const flowId of flows) {
      for (let i = 0; i < SWEEP_MAX_BATCHES; i++) {
        const deleted = await prisma.$executeRaw`
          DELETE FROM executions WHERE id IN (
            SELECT id FROM executions WHERE flow_id = ${flowId}
            ORDER BY started_at DESC, id DESC OFFSET ${settings.keepPerFlow} LIMIT ${SWEEP_BATCH})`;
        if (deleted < SWEEP_BATCH) break;
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweepTimer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    await this.flush();
    await this.sweeping;
  }
}

/**
 * A step as JSON text (ExecutionStep). Its input is spliced in as captured (JSON text); with
 * secrets in the organization it is parsed and redacted first (a secret may sit in it escaped).
 */
function stepJson(step: TrackedStep, redactor: VariableSet): string {
  const outputs: ExecutionStep["outputs"] = [];
  step.outputs.forEach((count, port) => {
    if (count) outputs.push({ port, count });
  });
  const view: Omit<ExecutionStep, "input"> = {
    node_id: step.nodeId,
    input_recorded: step.input !== undefined,
    outputs,
    started_at: new Date(step.startedAt).toISOString(),
    duration_ms: step.durationMs === null ? null : Math.round(step.durationMs * 1000) / 1000,
  };
  if (step.truncated) view.truncated = true;
  if (outputs.length === 0 && step.ports > 0 && step.durationMs !== null && step.error === undefined) view.dropped = true;
  if (step.error !== undefined) view.error = redactor.redactText(step.error);
  const text = JSON.stringify(view);
  if (step.input === undefined) return text;
  let input: string;
  if (step.truncated) input = JSON.stringify(redactor.redactText(step.input));
  else input = redactor.hasSecrets ? JSON.stringify(redactor.redact(JSON.parse(step.input) as unknown)) : step.input;
  return `${text.slice(0, -1)},"input":${input}}`;
}
