import type { PrismaClient } from "../../generated/prisma/client";
import { isDatabaseUnavailable } from "../errors";
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
  /** Bytes one stored execution may take: past it, its steps' inputs and errors are cut, then its trigger message dropped. */
  maxBytesEach: number;
  /** Executions (rows and bytes) one organization may keep stored: past either, new ones are counted as unrecorded. */
  maxPerOrganization: number;
  maxBytesPerOrganization: number;
}

export const DEFAULT_EXECUTION_SETTINGS: ExecutionSettings = {
  enabled: true,
  keepPerFlow: 10_000,
  keepDays: 7,
  keepErrorDays: 30,
  sampleAllPerSec: 100,
  sampleOneIn: 100,
  maxBytesEach: 2 * 1024 * 1024,
  maxPerOrganization: 100_000,
  maxBytesPerOrganization: 512 * 1024 * 1024,
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

/** An organization's stored executions as this instance counts them. */
class OrgExecutions {
  rows = 0;
  bytes = 0;

  add(rows: number, bytes: number): void {
    this.rows += rows;
    this.bytes += bytes;
  }

  remove(bytes: number): void {
    this.rows--;
    this.bytes -= bytes;
  }
}

/** One execution as a JSON object (text), the element of the batch's json_to_recordset. */
interface Row {
  id: string;
  organizationId: string;
  flowId: string;
  status: string;
  json: string;
  /** UTF-8 bytes of `json` (what the organization's bound counts). */
  bytes: number;
  /** Set once its statement committed. */
  written?: boolean;
}

const COLUMNS = `id text, organization_id text, flow_id text, deployment_id text, trigger_node_id text, status text,
  started_at timestamptz, duration_ms int, replay_of text, error text, trigger_message jsonb, steps jsonb,
  steps_omitted int, instance_id text, sampled boolean, bytes int`;

// One statement per batch, its rows in one JSON parameter: no round trip, and no client-side
// serialization, per execution (their steps' inputs are spliced in as the JSON text they were captured as).
const INSERT_SQL = `
INSERT INTO executions (id, organization_id, flow_id, deployment_id, trigger_node_id, status, started_at, duration_ms,
  replay_of, error, trigger_message, steps, steps_omitted, instance_id, sampled, bytes)
SELECT id, organization_id, flow_id, deployment_id, trigger_node_id, status, started_at, duration_ms,
  replay_of, error, trigger_message, steps, steps_omitted, instance_id, sampled, bytes
FROM json_to_recordset($1::json) AS r(${COLUMNS})
ON CONFLICT (id) DO NOTHING`;

const UPDATE_SQL = `
UPDATE executions e SET status = r.status, duration_ms = r.duration_ms, error = r.error, steps = r.steps, steps_omitted = r.steps_omitted,
  trigger_message = r.trigger_message, bytes = r.bytes
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
  /**
   * Since start: executions the database refused or could not take (lost), and those left out
   * because their organization was at its bound (overBound); each also counted as unrecorded.
   */
  readonly counters = { lost: 0, overBound: 0 };
  /** Stored executions per organization, as far as this instance knows (the per-organization bounds). */
  private readonly usage = new Map<string, OrgExecutions>();

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
    this.inserts = new Map();
    this.updates = new Map();
    const admitted = await this.withinBounds(inserts);
    // Before the statement: a finish that arrives while it runs must update the row, not insert it again.
    for (const row of admitted) if (row.status === "running") this.stored.add(row.id);
    const lost = (await this.store(INSERT_SQL, admitted)) + (await this.store(UPDATE_SQL, updates));
    for (const row of admitted) {
      if (row.written) this.touched.add(row.flowId);
      else {
        this.usageOf(row.organizationId)?.remove(row.bytes);
        // Not stored as running after all: its finish is inserted (if the database takes it then).
        this.stored.delete(row.id);
      }
    }
    for (const row of updates) this.stored.delete(row.id);
    if (lost > 0) this.counters.lost += lost;
    // Taken after the rows: what they could not store is counted in this same flush.
    const counts = [...this.unrecordedCounts.entries()];
    this.unrecordedCounts = new Map();
    if (counts.length === 0) return;
    try {
      await this.deps.prisma.$executeRawUnsafe(COUNT_SQL, JSON.stringify(counts.map(([flowId, c]) => ({ flow_id: flowId, organization_id: c.organizationId, unrecorded: c.count }))));
    } catch (err) {
      // Kept for the next flush: the list's `unrecorded` must not forget what was not stored.
      this.deps.logger.warn({ err }, "unrecorded execution counts could not be stored; kept for the next flush");
      for (const [flowId, c] of counts) for (let i = 0; i < c.count; i++) this.unrecorded(c.organizationId, flowId);
    }
  }

  /**
   * The rows the organizations' bounds leave room for (EXECUTIONS_MAX_PER_ORGANIZATION and
   * EXECUTIONS_MAX_BYTES_PER_ORGANIZATION); the others are counted as unrecorded. Usage is read
   * from the database at an organization's first batch here and after each retention sweep, and
   * counted here in between (instances writing for one organization at once may overshoot by what
   * the others wrote since).
   */
  private async withinBounds(rows: Row[]): Promise<Row[]> {
    if (rows.length === 0) return rows;
    const missing = [...new Set(rows.map((r) => r.organizationId))].filter((id) => !this.usage.has(id));
    if (missing.length > 0) {
      try {
        const found = await this.deps.prisma.$queryRawUnsafe<Array<{ organization_id: string; rows: bigint | number; bytes: bigint | number | string }>>(
          `SELECT organization_id, count(*) AS rows, coalesce(sum(bytes), 0) AS bytes FROM executions WHERE organization_id = ANY($1::text[]) GROUP BY organization_id`,
          missing,
        );
        for (const id of missing) this.usage.set(id, new OrgExecutions());
        for (const r of found) this.usage.get(r.organization_id)?.add(Number(r.rows), Number(r.bytes));
      } catch {
        // The database is away: the insert meets it too (and counts what it loses).
        return rows;
      }
    }
    const { maxPerOrganization, maxBytesPerOrganization } = this.deps.settings;
    const admitted: Row[] = [];
    for (const row of rows) {
      const usage = this.usage.get(row.organizationId)!;
      if (usage.rows + 1 > maxPerOrganization || usage.bytes + row.bytes > maxBytesPerOrganization) {
        this.counters.overBound++;
        this.unrecorded(row.organizationId, row.flowId);
        continue;
      }
      usage.add(1, row.bytes);
      admitted.push(row);
    }
    return admitted;
  }

  private usageOf(organizationId: string): OrgExecutions | undefined {
    return this.usage.get(organizationId);
  }

  /**
   * Runs one batch statement; resolves to the rows that could not be stored, each counted as
   * unrecorded for its flow. A batch PostgreSQL refuses for its data (not an outage) is split in
   * halves until the refused rows are alone, so one tenant's execution never loses the others'.
   */
  private async store(sql: string, rows: Row[]): Promise<number> {
    if (rows.length === 0) return 0;
    try {
      await this.deps.prisma.$executeRawUnsafe(sql, `[${rows.map((r) => r.json).join(",")}]`);
      for (const row of rows) row.written = true;
      return 0;
    } catch (err) {
      if (rows.length > 1 && !isDatabaseUnavailable(err)) {
        const half = rows.length >> 1;
        return (await this.store(sql, rows.slice(0, half))) + (await this.store(sql, rows.slice(half)));
      }
      // The database is away, or this one row is refused: lost, counted (the list says so), the flows run on.
      this.deps.logger.warn({ err, executions: rows.length, ...(rows.length === 1 ? { execution: rows[0]!.id, flow: rows[0]!.flowId } : {}) }, "executions could not be stored");
      for (const row of rows) this.unrecorded(row.organizationId, row.flowId);
      return rows.length;
    }
  }

  /**
   * An execution as the JSON object its batch stores, within EXECUTIONS_MAX_BYTES_EACH: over it,
   * each step's input and error are cut to an equal share of the bound (halved until it fits),
   * and as a last resort the trigger message is dropped (the execution is then not replayable).
   */
  private row(execution: TrackedExecution): Row {
    const max = this.deps.settings.maxBytesEach;
    let json = this.rowJson(execution);
    let bytes = Buffer.byteLength(json);
    if (bytes > max) {
      let share = Math.floor(max / (2 * Math.max(1, execution.steps.length) + 2));
      for (let attempt = 0; bytes > max && attempt < 6; attempt++, share >>= 1) {
        json = this.rowJson(execution, { cut: share, trigger: attempt < 3 });
        bytes = Buffer.byteLength(json);
      }
    }
    return {
      id: execution.id,
      organizationId: execution.organizationId,
      flowId: execution.flowId,
      status: execution.ended ? execution.status : "running",
      json: `${json.slice(0, -1)},"bytes":${bytes}}`,
      bytes,
    };
  }

  private rowJson(execution: TrackedExecution, bound?: { cut: number; trigger: boolean }): string {
    const redactor = this.deps.redactor(execution.organizationId);
    const stepError = execution.steps.find((s) => s.error !== undefined)?.error;
    const raw = execution.error ?? stepError ?? null;
    // Cut after redaction, so no part of a secret is left.
    let error = raw === null ? null : redactor.redactText(raw);
    if (error !== null && bound && error.length > bound.cut) error = error.slice(0, bound.cut);
    const status = execution.ended ? execution.status : "running";
    let trigger = "null";
    if (execution.triggerMessage !== null && bound?.trigger !== false) {
      trigger = redactor.hasSecrets ? JSON.stringify(redactor.redact(JSON.parse(execution.triggerMessage))) : execution.triggerMessage;
    }
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
      error,
      steps_omitted: execution.stepsOmitted,
      instance_id: this.deps.instanceId,
      sampled: execution.sampled,
    });
    const steps = execution.steps.map((step) => stepJson(step, redactor, bound?.cut)).join(",");
    return storableJson(`${head.slice(0, -1)},"trigger_message":${trigger},"steps":[${steps}]}`);
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
    // Read again at each organization's next batch: what this sweep (and other instances) changed.
    this.usage.clear();
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
function stepJson(step: TrackedStep, redactor: VariableSet, cut?: number): string {
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
  let input: string | undefined;
  if (step.input === undefined) input = undefined;
  else if (step.truncated) input = JSON.stringify(redactor.redactText(step.input));
  else input = redactor.hasSecrets ? JSON.stringify(redactor.redact(JSON.parse(step.input) as unknown)) : step.input;
  // The execution's byte bound: what is cut is the redacted text, so no part of a secret is left.
  if (cut !== undefined) {
    if (view.error !== undefined && view.error.length > cut) view.error = view.error.slice(0, cut);
    if (input !== undefined && input.length > cut) {
      input = JSON.stringify(input.slice(0, cut));
      view.truncated = true;
    }
  }
  const text = JSON.stringify(view);
  return input === undefined ? text : `${text.slice(0, -1)},"input":${input}}`;
}

/**
 * A JSON escape jsonb (and text) cannot hold (the middle alternative: a lone surrogate or U+0000;
 * a valid pair, the first, is kept). Matched escape by escape from the left, so an escaped
 * backslash followed by "u0000" (text that only looks like an escape) is consumed whole and kept.
 */
const ESCAPES = /\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})|\\[^]/g;

/**
 * JSON text PostgreSQL stores: lone surrogates and NUL, escaped, become U+FFFD. A webhook body
 * `{"x":"\ud800"}` once failed the shared batch of every tenant's executions. (JSON.stringify
 * escapes every lone surrogate, and a raw one would be sent as U+FFFD by the UTF-8 encoding.)
 */
export function storableJson(json: string): string {
  if (!json.includes("\\u")) return json;
  return json.replace(ESCAPES, (escape) => (escape.length === 6 ? "\\ufffd" : escape));
}
