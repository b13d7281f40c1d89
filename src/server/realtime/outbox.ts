import type { WebSocket } from "ws";
import { WS_CLOSE, WS_LIMITS, type EventTopic, type ServerFrame } from "../../shared/realtime";

export interface OutboxLimits {
  maxBufferedBytes: number;
  maxBufferedBytesHard: number;
  debugBatchMaxDelayMs: number;
  debugBatchMaxEvents: number;
  debugBatchMaxBytes: number;
}

const BATCH_HEAD = '{"type":"debug.batch","events":[';
const BATCH_TAIL = "]}";

/**
 * Everything the hub sends to one connection goes through here, in order. It owns the slow-client
 * protection (debug events past the bytes bound are dropped and counted, the count reported before
 * the next event once the client has caught up) and, for a connection that opted in, the
 * coalescing of debug events into `debug.batch` frames. A batch holds events already filtered for
 * this connection (organization, topics, flow) by the hub, and any other frame flushes it first,
 * so nothing overtakes an event that arrived before it.
 */
export class ClientOutbox {
  /** Debug events dropped since the last `dropped` frame. */
  dropped = 0;
  /** node.status events dropped since the last `dropped` frame. */
  droppedStatuses = 0;
  private cut = false;
  private batching = false;
  /** The unsent batch: raw event frames as published, and their length in bytes (UTF-16 units). */
  private pending: string[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly limits: OutboxLimits = WS_LIMITS,
  ) {}

  get batchesDebug(): boolean {
    return this.batching;
  }

  /** Turns batching on or off; turning it off sends what waits first. */
  setBatching(on: boolean) {
    if (!on) this.flush();
    this.batching = on;
  }

  /** A control frame (ready, subscribed, pong, presence, error…): after anything waiting. */
  send(frame: ServerFrame) {
    this.write(JSON.stringify(frame));
  }

  /**
   * An organization event for this connection, as published (`raw`, already valid JSON). Past the
   * bytes bound, `debug` and `node.status` events are dropped and counted (a status is a snapshot:
   * the client reads the statuses again when told); the rest (flow states, deploys, saves: rare and
   * small) still go. Only `debug` events are batched.
   */
  event(raw: string, topic: EventTopic) {
    const isDebug = topic === "debug";
    if (this.ws.bufferedAmount + this.pendingBytes > this.limits.maxBufferedBytes) {
      if (isDebug) {
        this.dropped++;
        return;
      }
      if (topic === "node.status") {
        this.droppedStatuses++;
        return;
      }
    } else if (this.dropped > 0 || this.droppedStatuses > 0) {
      const count = this.dropped;
      const statuses = this.droppedStatuses;
      this.dropped = 0;
      this.droppedStatuses = 0;
      this.send(statuses > 0 ? { type: "dropped", count, statuses } : { type: "dropped", count });
    }
    if (!isDebug || !this.batching) {
      this.write(raw);
      return;
    }
    this.pending.push(raw);
    this.pendingBytes += raw.length + 1;
    if (this.pending.length >= this.limits.debugBatchMaxEvents || this.pendingBytes >= this.limits.debugBatchMaxBytes) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(this.flush, this.limits.debugBatchMaxDelayMs);
      this.timer.unref();
    }
  }

  /** Sends the waiting batch now, if any. */
  flush = () => {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const events = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.sendRaw(BATCH_HEAD + events.join(",") + BATCH_TAIL);
  };

  /** The connection is gone: forget what waits. */
  dispose() {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = [];
    this.pendingBytes = 0;
  }

  private write(data: string) {
    this.flush();
    this.sendRaw(data);
  }

  /**
   * Every frame leaves here, counted by the socket's buffer: a client that has fallen past the hard
   * bound is closed (4408) instead of being sent more, and cut off if it does not go within a second.
   */
  private sendRaw(data: string) {
    if (this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount + data.length > this.limits.maxBufferedBytesHard) {
      if (this.cut) return;
      this.cut = true;
      this.dispose();
      this.ws.close(WS_CLOSE.tooSlow, "too slow: the connection fell too far behind");
      setTimeout(() => this.ws.terminate(), 1000).unref();
      return;
    }
    this.ws.send(data);
  }
}
