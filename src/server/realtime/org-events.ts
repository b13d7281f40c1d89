import type { Logger } from "../logger";
import type { KeyValueStore } from "../store";
import { orgEventsChannel, type EventData, type EventTopic, type OrgEvent } from "../../shared/realtime";

/**
 * Publishes organization events (flows saved and deployed, injects, debug messages, node statuses)
 * to the store's pub/sub, where every instance's hub picks them up. Events published in one turn of
 * the event loop leave together: one PUBLISH per organization, one event per line (JSON text holds
 * no raw newline), so an inject and the debug message it causes cost one store command, and so do
 * the events of requests served alongside it. Receivers split a message with `eventLines`. Events
 * keep their order per instance. Best effort, as events always were: a failed publish is logged and
 * never fails the write that caused it. A caller whose answer must not come before its events (an
 * inject on the instance running the flow) waits for their batch: sent() or published().
 */
export class OrgEventPublisher {
  private readonly pending = new Map<string, string[]>();
  private scheduled = false;
  /** Callers waiting for the batch being gathered (sent() / published()); created only when asked. */
  private waiting: Waiting | null = null;

  constructor(
    private readonly store: KeyValueStore,
    private readonly logger: Logger,
  ) {}

  publish<T extends EventTopic>(organizationId: string, topic: T, flowId: string | null, data: EventData[T], options: { deviceId?: string } = {}): void {
    const channel = orgEventsChannel(organizationId);
    // Nobody would receive it (the in-process store knows every subscriber: no editor, dashboard or
    // device of the organization is connected): it is not made, as Redis would have dropped it.
    if (this.store.unheard?.(channel)) return;
    const event = { type: "event", topic, flow_id: flowId, ...(options.deviceId ? { device_id: options.deviceId } : {}), data, ts: new Date().toISOString() } as OrgEvent<T>;
    const line = JSON.stringify(event);
    const queued = this.pending.get(channel);
    if (queued) queued.push(line);
    else this.pending.set(channel, [line]);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /** Sends what is queued; resolves once it has been published (or has failed and been logged). */
  async flush(): Promise<void> {
    this.scheduled = false;
    const waiting = this.waiting;
    this.waiting = null;
    if (this.pending.size === 0) {
      waiting?.sent.resolve();
      waiting?.published.resolve();
      return;
    }
    const batches = [...this.pending];
    this.pending.clear();
    const published = Promise.all(
      batches.map(([channel, lines]) =>
        this.store.publish(channel, lines.join("\n")).then(
          () => undefined,
          (err: unknown) => this.logger.warn({ err, channel, events: lines.length }, "events could not be published"),
        ),
      ),
    );
    // The PUBLISH commands are issued: a store command issued from now on goes out after them.
    waiting?.sent.resolve();
    await published;
    waiting?.published.resolve();
  }

  /**
   * Resolves once the events queued so far have been handed to the store: their PUBLISH commands
   * are issued, so a command issued afterwards on the same Redis connection (a cluster reply)
   * reaches Redis after them. At once when nothing is queued.
   */
  sent(): Promise<void> {
    return this.pending.size === 0 ? Promise.resolve() : this.waiter().sent.promise;
  }

  /**
   * Resolves once the events queued so far have been published (acknowledged by the store, or
   * failed and logged): for an answer that must not leave before them (an inject's `inject`
   * event). They still leave with their turn's batch, so concurrent injects share one PUBLISH.
   */
  published(): Promise<void> {
    return this.pending.size === 0 ? Promise.resolve() : this.waiter().published.promise;
  }

  private waiter(): Waiting {
    this.waiting ??= { sent: deferred(), published: deferred() };
    return this.waiting;
  }
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

interface Waiting {
  sent: Deferred;
  published: Deferred;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The events of one message on an organization's events channel, each as the JSON text it was published as. */
export function eventLines(message: string): string[] {
  return message.split("\n");
}
