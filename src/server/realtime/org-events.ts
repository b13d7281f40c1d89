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
 * never fails the write that caused it.
 */
export class OrgEventPublisher {
  private readonly pending = new Map<string, string[]>();
  private scheduled = false;

  constructor(
    private readonly store: KeyValueStore,
    private readonly logger: Logger,
  ) {}

  publish<T extends EventTopic>(organizationId: string, topic: T, flowId: string | null, data: EventData[T]): void {
    const event: OrgEvent<T> = { type: "event", topic, flow_id: flowId, data, ts: new Date().toISOString() };
    const channel = orgEventsChannel(organizationId);
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
    if (this.pending.size === 0) return;
    const batches = [...this.pending];
    this.pending.clear();
    await Promise.all(batches.map(([channel, lines]) => this.send(channel, lines)));
  }

  /**
   * Sends the organization's queued events now, ahead of the batch: for an answer that must not
   * leave before them (an inject's `inject` event). The PUBLISH is issued before this returns, so
   * a store command issued after it on the same connection (a cluster reply) reaches Redis after
   * it; the promise resolves once it has been published (or has failed and been logged). Other
   * organizations' events wait for the batch as usual.
   */
  flushOrganization(organizationId: string): Promise<void> {
    const channel = orgEventsChannel(organizationId);
    const lines = this.pending.get(channel);
    if (!lines) return Promise.resolve();
    this.pending.delete(channel);
    return this.send(channel, lines);
  }

  private send(channel: string, lines: string[]): Promise<void> {
    return this.store.publish(channel, lines.join("\n")).then(
      () => undefined,
      (err: unknown) => this.logger.warn({ err, channel, events: lines.length }, "events could not be published"),
    );
  }
}

/** The events of one message on an organization's events channel, each as the JSON text it was published as. */
export function eventLines(message: string): string[] {
  return message.split("\n");
}
