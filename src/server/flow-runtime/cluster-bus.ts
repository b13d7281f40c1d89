import { randomHex } from "../ids";
import type { KeyValueStore } from "../store";
import type { Logger } from "../logger";

const nodeChannel = (instanceId: string) => `cluster:node:${instanceId}`;
const EVENTS_CHANNEL = "cluster:events";

type Envelope =
  | { k: "req"; id: string; from: string; op: string; args: unknown }
  | { k: "res"; id: string; ok: true; value: unknown }
  | { k: "res"; id: string; ok: false; error: string };

export class RpcTimeout extends Error {
  override name = "RpcTimeout";
}

export type ClusterEvent = { type: "released"; from: string; flowIds: string[] } | { type: "joined"; from: string } | { type: "left"; from: string };

/**
 * Request/reply between instances over the store's pub/sub: every instance listens on a channel of
 * its own for requests and replies, and on one shared channel for cluster events. A request that
 * gets no reply within its timeout rejects with RpcTimeout; its reply, if it comes later, is dropped.
 */
export class ClusterBus {
  private readonly handlers = new Map<string, (args: unknown) => Promise<unknown>>();
  private readonly waiting = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private readonly unsubscribes: Array<() => Promise<void>> = [];
  private subscribedNode = false;
  private subscribedEvents = false;
  private counter = 0;
  private readonly idPrefix = randomHex(4);

  constructor(
    private readonly store: KeyValueStore,
    private readonly instanceId: string,
    private readonly logger: Logger,
    private readonly onEvent: (event: ClusterEvent) => void,
  ) {}

  handle(op: string, handler: (args: unknown) => Promise<unknown>): void {
    this.handlers.set(op, handler);
  }

  /** Whether both subscriptions are active (start() resolved once). */
  get ready(): boolean {
    return this.subscribedNode && this.subscribedEvents;
  }

  /** Subscribes to this instance's channel and the events channel; may be called again after a failure. */
  async start(): Promise<void> {
    if (!this.subscribedNode) {
      this.unsubscribes.push(await this.store.subscribe(nodeChannel(this.instanceId), (raw) => this.receive(raw)));
      this.subscribedNode = true;
    }
    if (!this.subscribedEvents) {
      this.unsubscribes.push(
        await this.store.subscribe(EVENTS_CHANNEL, (raw) => {
          const event = JSON.parse(raw) as ClusterEvent;
          if (event.from !== this.instanceId) this.onEvent(event);
        }),
      );
      this.subscribedEvents = true;
    }
  }

  request<T>(target: string, op: string, args: unknown, timeoutMs: number): Promise<T> {
    const id = `${this.idPrefix}-${++this.counter}`;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new RpcTimeout(`instance ${target} did not answer ${op} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      const envelope: Envelope = { k: "req", id, from: this.instanceId, op, args };
      this.store.publish(nodeChannel(target), JSON.stringify(envelope)).then(
        (listeners) => {
          // Nobody listens on the target's channel: it is gone (its connection to Redis closed), do not wait.
          if (listeners === 0 && this.waiting.delete(id)) {
            clearTimeout(timer);
            reject(new RpcTimeout(`instance ${target} is not listening`));
          }
        },
        (err: unknown) => {
          clearTimeout(timer);
          this.waiting.delete(id);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }

  async broadcast(event: ClusterEvent): Promise<void> {
    await this.store.publish(EVENTS_CHANNEL, JSON.stringify(event));
  }

  async close(): Promise<void> {
    for (const [id, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(new RpcTimeout("the instance is shutting down"));
      this.waiting.delete(id);
    }
    await Promise.all(this.unsubscribes.splice(0).map((u) => u().catch(() => undefined)));
  }

  private receive(raw: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(raw) as Envelope;
    } catch {
      return;
    }
    if (envelope.k === "res") {
      const w = this.waiting.get(envelope.id);
      if (!w) return;
      this.waiting.delete(envelope.id);
      clearTimeout(w.timer);
      if (envelope.ok) w.resolve(envelope.value);
      else w.reject(new Error(envelope.error));
      return;
    }
    const handler = this.handlers.get(envelope.op);
    const reply = (body: Envelope) => {
      this.store.publish(nodeChannel(envelope.from), JSON.stringify(body)).catch((err: unknown) => {
        this.logger.warn({ err, op: envelope.op }, "cluster reply could not be sent");
      });
    };
    if (!handler) {
      reply({ k: "res", id: envelope.id, ok: false, error: `unknown operation ${envelope.op}` });
      return;
    }
    handler(envelope.args).then(
      (value) => reply({ k: "res", id: envelope.id, ok: true, value: value ?? null }),
      (err: unknown) => {
        this.logger.error({ err, op: envelope.op }, "cluster request failed");
        reply({ k: "res", id: envelope.id, ok: false, error: err instanceof Error ? err.message : String(err) });
      },
    );
  }
}
