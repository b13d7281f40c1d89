import type { OrgEvent } from "@/shared/realtime";

export interface DebugMessage {
  /** Arrival order, unique within the page: the list's key. */
  seq: number;
  flowId: string | null;
  /** The running node's id (inside a subflow instance: `<instanceId>-<innerId>`). */
  nodeId: string;
  /**
   * The node of the page's own canvas the message belongs to (DebugStoreOptions.owner): on a flow's
   * page, the debug node or the subflow instance holding it; on a subflow's, the definition's debug
   * node. Null: another flow's (or another subflow's) message.
   */
  ownerId: string | null;
  name: string;
  topic: string | null;
  ts: string;
  property: string;
  format: string;
  msg: unknown;
  /** The execution (SPEC §15) of the message; null when none was recorded for it. */
  executionId: string | null;
  /** Lower-case text searched by the filter, built once on arrival. */
  haystack: string;
  /** A node's error (Node-RED's sidebar shows `node.error` among the messages): `msg` is its text. */
  level?: "error";
}

/** A fixed-size ring: pushing past the capacity forgets the oldest. */
export class Ring<T> {
  private readonly items: Array<T | undefined>;
  private start = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.items = new Array<T | undefined>(capacity);
  }

  get size() {
    return this.count;
  }

  /** Adds at the end; returns how many old items were forgotten (0 or 1). */
  push(item: T): number {
    if (this.count < this.capacity) {
      this.items[(this.start + this.count) % this.capacity] = item;
      this.count++;
      return 0;
    }
    this.items[this.start] = item;
    this.start = (this.start + 1) % this.capacity;
    return 1;
  }

  at(index: number): T | undefined {
    return index >= 0 && index < this.count ? this.items[(this.start + index) % this.capacity] : undefined;
  }

  toArray(): T[] {
    const out: T[] = new Array<T>(this.count);
    for (let i = 0; i < this.count; i++) out[i] = this.items[(this.start + i) % this.capacity] as T;
    return out;
  }

  clear() {
    this.items.fill(undefined);
    this.start = 0;
    this.count = 0;
  }
}

export interface DebugStoreOptions {
  /** Messages kept on screen. */
  capacity?: number;
  /** Messages kept while paused; past it the oldest waiting ones go (and are counted). */
  pauseCapacity?: number;
  /** How arrivals are batched into one update; the browser passes requestAnimationFrame. */
  schedule?: (flush: () => void) => void;
  /** Which node of the page's canvas a message belongs to (DebugMessage.ownerId); by default, the node that sent it. */
  owner?: (event: OrgEvent<"debug">) => string | null;
}

export interface DebugSnapshot {
  version: number;
  paused: boolean;
  /** Arrived while paused (all of them, also those past the pause bound). */
  newWhilePaused: number;
  /** Of those, how many could not be kept (more than the pause bound). */
  lostWhilePaused: number;
  /** Debug events the hub dropped for this connection because it could not keep up. */
  droppedByServer: number;
  /** Older messages that left the list to keep it at its capacity. */
  evicted: number;
}

/**
 * The Debug region's data, outside React: arrivals are queued and applied once per animation
 * frame, so thousands of messages a second cost one render per frame, and the list never holds
 * more than `capacity`. Pausing keeps arrivals aside (up to `pauseCapacity`) instead of losing them.
 */
export class DebugStore {
  readonly capacity: number;
  readonly pauseCapacity: number;
  private readonly shown: Ring<DebugMessage>;
  private readonly waiting: Ring<DebugMessage>;
  private queue: DebugMessage[] = [];
  private scheduled = false;
  private seq = 0;
  private snapshot: DebugSnapshot = { version: 0, paused: false, newWhilePaused: 0, lostWhilePaused: 0, droppedByServer: 0, evicted: 0 };
  private readonly listeners = new Set<() => void>();
  private readonly schedule: (flush: () => void) => void;
  private owner: (event: OrgEvent<"debug">) => string | null;

  constructor(options: DebugStoreOptions = {}) {
    this.owner = options.owner ?? ((event) => event.data.subflow?.instance_id ?? event.data.node_id);
    this.capacity = options.capacity ?? 1000;
    this.pauseCapacity = options.pauseCapacity ?? 1000;
    this.shown = new Ring(this.capacity);
    this.waiting = new Ring(this.pauseCapacity);
    this.schedule = options.schedule ?? ((flush) => queueMicrotask(flush));
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  getSnapshot = (): DebugSnapshot => this.snapshot;

  /** The page's target changed (the same editor, another flow): arrivals from now on are placed by this one. */
  setOwner(owner: (event: OrgEvent<"debug">) => string | null) {
    this.owner = owner;
  }

  /** The messages on screen, oldest first. */
  messages(): DebugMessage[] {
    return this.shown.toArray();
  }

  add(event: OrgEvent<"debug">) {
    this.queue.push(this.toMessage(event));
    this.queued();
  }

  /** A `debug.batch` (or any run of events), oldest first: queued together, one update. */
  addMany(events: readonly OrgEvent<"debug">[]) {
    if (events.length === 0) return;
    for (const event of events) this.queue.push(this.toMessage(event));
    this.queued();
  }

  private queued() {
    // A hidden tab gets no animation frames: never let the queue outgrow what could be kept.
    if (this.queue.length >= 2 * Math.max(this.capacity, this.pauseCapacity)) this.flush();
    else this.request();
  }

  /**
   * A node's error (a `node.status` event that carries one), shown among the messages as Node-RED's
   * debug sidebar shows `node.error`: the status under the node is replaced by the next one (a
   * reconnecting client's "connecting"), this stays.
   */
  addError(event: OrgEvent<"node.status">) {
    const error = event.data.error;
    if (!error) return;
    const d = { node_id: event.data.node_id } as OrgEvent<"debug">["data"];
    this.queue.push({
      seq: ++this.seq,
      flowId: event.flow_id,
      nodeId: event.data.node_id,
      ownerId: this.owner({ ...event, topic: "debug", data: d } as OrgEvent<"debug">),
      name: "",
      topic: null,
      ts: event.ts,
      property: "error",
      format: "error",
      msg: error,
      executionId: event.data.execution_id ?? null,
      haystack: `${event.data.node_id}\nerror\n${error.slice(0, 2000)}`.toLowerCase(),
      level: "error",
    });
    this.queued();
  }

  private toMessage(event: OrgEvent<"debug">): DebugMessage {
    const d = event.data;
    const text = typeof d.msg === "string" ? d.msg : JSON.stringify(d.msg) ?? String(d.msg);
    return {
      seq: ++this.seq,
      flowId: event.flow_id,
      nodeId: d.node_id,
      ownerId: this.owner(event),
      name: d.name,
      topic: d.topic ?? null,
      ts: event.ts,
      property: d.property,
      format: d.format,
      msg: d.msg,
      executionId: d.execution_id ?? null,
      haystack: `${d.name}\n${d.node_id}\n${d.topic ?? ""}\n${text.slice(0, 2000)}`.toLowerCase(),
    };
  }

  addDropped(count: number) {
    this.update({ droppedByServer: this.snapshot.droppedByServer + count });
  }

  pause() {
    if (!this.snapshot.paused) this.flush();
    this.update({ paused: true });
  }

  resume() {
    this.flush();
    let evicted = 0;
    for (const m of this.waiting.toArray()) evicted += this.shown.push(m);
    this.waiting.clear();
    this.update({ paused: false, newWhilePaused: 0, lostWhilePaused: 0, evicted: this.snapshot.evicted + evicted });
  }

  clear() {
    this.queue = [];
    this.shown.clear();
    this.waiting.clear();
    this.update({ newWhilePaused: 0, lostWhilePaused: 0, droppedByServer: 0, evicted: 0 });
  }

  /** Applies queued arrivals now (the scheduler calls it; tests may too). */
  flush = () => {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    if (this.snapshot.paused) {
      let lost = 0;
      for (const m of batch) lost += this.waiting.push(m);
      this.update({ newWhilePaused: this.snapshot.newWhilePaused + batch.length, lostWhilePaused: this.snapshot.lostWhilePaused + lost });
      return;
    }
    let evicted = 0;
    // Only the last `capacity` of a burst can be shown anyway.
    for (const m of batch.length > this.capacity ? batch.slice(-this.capacity) : batch) evicted += this.shown.push(m);
    evicted += Math.max(0, batch.length - this.capacity);
    this.update({ evicted: this.snapshot.evicted + evicted });
  };

  private request() {
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(this.flush);
  }

  private update(patch: Partial<DebugSnapshot>) {
    this.snapshot = { ...this.snapshot, ...patch, version: this.snapshot.version + 1 };
    for (const l of this.listeners) l();
  }
}

export interface DebugFilter {
  /** Only the messages of this node of the page's canvas (its ownerId; null: any node's). */
  nodeId: string | null;
  text: string;
  /** Only the messages of the page's own canvas, its flow's or its subflow's (false: every flow's). */
  ownOnly: boolean;
}

export function filterMessages(messages: DebugMessage[], filter: DebugFilter): DebugMessage[] {
  const text = filter.text.trim().toLowerCase();
  if (!text && !filter.nodeId && !filter.ownOnly) return messages;
  return messages.filter((m) => (!filter.ownOnly || m.ownerId !== null) && (!filter.nodeId || m.ownerId === filter.nodeId) && (!text || m.haystack.includes(text)));
}

/**
 * Forgets the row heights measured for messages that have left the list: the virtualizer keeps one
 * per key (the message's seq) and never drops any, so a list that follows thousands of arrivals a
 * second would grow that map without bound. Seqs only grow, so everything older than the oldest
 * message still kept (`oldestSeq`; null: the list is empty) can never be shown again.
 */
export function forgetRowSizes(sizes: Map<unknown, number>, oldestSeq: number | null) {
  for (const key of sizes.keys()) if (oldestSeq === null || (typeof key === "number" && key < oldestSeq)) sizes.delete(key);
}
