/**
 * Dashboard widgets' durable state (table `dashboard_widget_states`, SPEC §21): each widget's last
 * value, a chart's points within its limit, its dynamic properties. The instance running a
 * widget's flow writes it behind, in batches (one statement per flush, the latest state of each
 * widget); a page being built reads it. Below the services and the dashboards' bus, which both use it.
 */
import type { PrismaClient } from "../../generated/prisma/client";
import type { Logger } from "../logger";

const UPSERT_SQL = `INSERT INTO dashboard_widget_states AS s (organization_id, widget_id, state, updated_at)
SELECT t.o, t.w, t.v::jsonb, now()
FROM jsonb_to_recordset($1::jsonb) AS t(o text, w text, v text)
WHERE EXISTS (SELECT 1 FROM organizations o WHERE o.id = t.o AND o.deleted_at IS NULL)
ON CONFLICT (organization_id, widget_id) DO UPDATE SET state = EXCLUDED.state, updated_at = now()`;

const DELETE_SQL = `DELETE FROM dashboard_widget_states s USING jsonb_to_recordset($1::jsonb) AS t(o text, w text)
WHERE s.organization_id = t.o AND s.widget_id = t.w`;

export interface DashboardStateOptions {
  /** A state whose JSON text is larger is not kept (the widget shows it live, a restart forgets it). */
  maxStateBytes: number;
  /** How long a change waits before its batch is written. */
  flushDelayMs?: number;
}

/**
 * Write-behind of widget states: `set` keeps the latest state per widget and writes the batch
 * `flushDelayMs` later; reads see what is pending here before what is stored. `close()` writes what
 * is left (a clean stop loses nothing; a crash loses at most one delay's changes).
 */
export class DashboardStateStore {
  /** org → widget → JSON text (null: delete). */
  private readonly pending = new Map<string, Map<string, string | null>>();
  /** The batch being written: still read from here until its statement has committed. */
  private writing: Map<string, Map<string, string | null>> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly logger: Logger,
    private readonly options: DashboardStateOptions,
  ) {}

  /** Keeps `state` as the widget's (undefined or null: forget it). False when it is too large to keep. */
  set(organizationId: string, widgetId: string, state: unknown): boolean {
    let json: string | null = null;
    if (state !== undefined && state !== null) {
      try {
        json = JSON.stringify(state);
      } catch {
        return false;
      }
      // PostgreSQL's jsonb holds no NUL character; a state carrying one is shown live, not kept.
      if (json === undefined || Buffer.byteLength(json) > this.options.maxStateBytes || json.includes("\\u0000")) return false;
    }
    let org = this.pending.get(organizationId);
    if (!org) this.pending.set(organizationId, (org = new Map()));
    org.set(widgetId, json);
    this.schedule();
    return true;
  }

  /**
   * The states of these widgets: pending ones first, then the batch being written, then stored ones.
   * Both layers are taken before the query: a state set before this call is in the answer even
   * when its batch commits while the query runs.
   */
  async read(organizationId: string, widgetIds: readonly string[]): Promise<Map<string, unknown>> {
    const out = new Map<string, unknown>();
    if (widgetIds.length === 0) return out;
    const layers = [this.writing?.get(organizationId), this.pending.get(organizationId)].filter((l): l is Map<string, string | null> => l !== undefined);
    const known = new Map<string, string | null>();
    for (const layer of layers) for (const id of widgetIds) if (layer.has(id)) known.set(id, layer.get(id)!);
    const rest = widgetIds.filter((id) => !known.has(id));
    if (rest.length > 0) {
      const rows = await this.prisma.dashboardWidgetState.findMany({ where: { organizationId, widgetId: { in: rest } }, select: { widgetId: true, state: true } });
      for (const r of rows) out.set(r.widgetId, r.state);
    }
    for (const [id, json] of known) out.set(id, json === null ? null : JSON.parse(json));
    return out;
  }

  private schedule() {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.options.flushDelayMs ?? 250);
    this.timer.unref?.();
  }

  /** Writes what is pending (one statement for the changes, one for the deletions). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeBatch());
    return this.flushing;
  }

  private async writeBatch() {
    if (this.pending.size === 0) return;
    const sets: Array<{ o: string; w: string; v: string }> = [];
    const deletes: Array<{ o: string; w: string }> = [];
    for (const [o, widgets] of this.pending) {
      for (const [w, v] of widgets) {
        if (v === null) deletes.push({ o, w });
        else sets.push({ o, w, v });
      }
    }
    const batch = this.pending.size;
    const taken = new Map(this.pending);
    this.pending.clear();
    this.writing = taken;
    try {
      if (sets.length > 0) await this.prisma.$executeRawUnsafe(UPSERT_SQL, JSON.stringify(sets));
      if (deletes.length > 0) await this.prisma.$executeRawUnsafe(DELETE_SQL, JSON.stringify(deletes));
      this.writing = null;
    } catch (err) {
      this.writing = null;
      // Put back what is not newer here, and try again later (the database may be away a moment).
      for (const [o, widgets] of taken) {
        let org = this.pending.get(o);
        if (!org) this.pending.set(o, (org = new Map()));
        for (const [w, v] of widgets) if (!org.has(w)) org.set(w, v);
      }
      this.logger.warn({ err, organizations: batch }, "dashboard widget states could not be written; retrying");
      if (!this.closed) this.schedule();
    }
  }

  async close() {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}
