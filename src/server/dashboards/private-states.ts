/**
 * What a viewer's own messages (`msg._client`) left on widgets, kept for that viewer's tab.
 *
 * Dashboard 2.0 has one socket per browser tab: a message meant for one viewer reaches the tab's
 * store whatever page it shows, and the widget shows it when its page opens (a button that changes
 * the page with ui-control and fills a widget of the next page, as FlowFuse's 5S blueprint does).
 * Here each page has its own socket, so such a message is kept per tab (the browser session and
 * the tab's id, hashed: another viewer can never name it) in the key-value store, for a few
 * minutes, and laid over the page's shared states when that tab opens a page. Never shared: the
 * other viewers keep seeing the widget's shared state (SPEC §21).
 */
import { createHash } from "node:crypto";
import { tableRowsAfter } from "../../shared/dashboard-values";
import type { KeyValueStore } from "../store/types";

/** How long a viewer's own state of a widget outlives the message: enough for the next pages. */
export const PRIVATE_STATE_TTL_MS = 5 * 60_000;
/** Widgets kept per tab (the oldest go first) and the JSON size of them all. */
const MAX_WIDGETS = 100;
const MAX_BYTES = 256 * 1024;

/** The key of a tab: its browser session and its id, hashed (the store never holds a session id). */
export function privateKeyOf(sessionId: string, tab: string): string {
  return createHash("sha256").update(`${sessionId}\n${tab}`).digest("hex").slice(0, 32);
}

/** A tab id as the browser sends it (dashboard-socket.ts): hex, 16 to 64 characters. */
export const isTabId = (tab: string | null): tab is string => tab !== null && /^[0-9a-f]{16,64}$/.test(tab);

type Entries = Record<string, { s: unknown; t: number }>;

export class PrivateStates {
  /** Writes of one tab, one after another (read, change, write). */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly store: KeyValueStore,
    private readonly onError: (err: unknown) => void,
    private readonly ttlMs = PRIVATE_STATE_TTL_MS,
  ) {}

  private keyOf(organizationId: string, key: string) {
    return `dashboard:private:${organizationId}:${key}`;
  }

  /**
   * Keeps `state` as this tab's own state of the widget (null: forgets it). `msg` is the message
   * that made it: a table's rows it adds go after the rows this tab was already shown.
   */
  record(organizationId: string, key: string, widgetId: string, state: unknown, msg?: Record<string, unknown>): Promise<void> {
    const storeKey = this.keyOf(organizationId, key);
    const run = (this.chains.get(storeKey) ?? Promise.resolve())
      .then(async () => {
        const entries = parse(await this.store.get(storeKey));
        if (state === null || state === undefined) delete entries[widgetId];
        else entries[widgetId] = { s: msg ? withOwnRows(entries[widgetId]?.s, state, msg) : state, t: Date.now() };
        // The newest first; what does not fit goes.
        const kept: Entries = {};
        let bytes = 2;
        for (const [id, e] of Object.entries(entries).sort((a, b) => b[1].t - a[1].t)) {
          const size = JSON.stringify(e).length + id.length + 4;
          if (Object.keys(kept).length >= MAX_WIDGETS || bytes + size > MAX_BYTES) continue;
          kept[id] = e;
          bytes += size;
        }
        if (Object.keys(kept).length === 0) await this.store.del(storeKey);
        else await this.store.set(storeKey, JSON.stringify(kept), { ttlMs: this.ttlMs });
      })
      .catch(this.onError);
    this.chains.set(storeKey, run);
    void run.then(() => {
      if (this.chains.get(storeKey) === run) this.chains.delete(storeKey);
    });
    return run;
  }

  /** This tab's own states, by widget id (empty when it has none, or the store cannot answer). */
  async read(organizationId: string, key: string): Promise<Map<string, unknown>> {
    const storeKey = this.keyOf(organizationId, key);
    // A write of this instance still under way is waited for (the tab's next page may open at once).
    await this.chains.get(storeKey);
    try {
      return new Map(Object.entries(parse(await this.store.get(storeKey))).map(([id, e]) => [id, e.s]));
    } catch (err) {
      this.onError(err);
      return new Map();
    }
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * A table's own state after a message that adds rows (ui-table "append"): the widget worked its new
 * state out from the shared rows, which this tab's earlier own rows are not among; the tab shows
 * its own rows then the message's (as Dashboard 2.0's table in that tab does).
 */
export function withOwnRows(previous: unknown, state: unknown, msg: Record<string, unknown>): unknown {
  if (!isRecord(previous) || !isRecord(state) || !Array.isArray(previous.rows) || !Array.isArray(state.rows) || !("payload" in msg)) return state;
  // The message as the table showed it says "replace" whenever the table replaced its rows.
  return { ...state, rows: tableRowsAfter(previous.rows, msg.payload, { msg: msg.action }).rows };
}

function parse(text: string | null): Entries {
  if (!text) return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== "object" || Array.isArray(value)) return {};
    const out: Entries = {};
    for (const [id, e] of Object.entries(value as Record<string, unknown>)) {
      if (id === "__proto__" || !e || typeof e !== "object") continue;
      const entry = e as { s?: unknown; t?: unknown };
      if (typeof entry.t === "number") out[id] = { s: entry.s, t: entry.t };
    }
    return out;
  } catch {
    return {};
  }
}
