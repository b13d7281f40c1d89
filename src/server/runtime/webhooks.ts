import type { Message } from "./types";

export interface WebhookRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

export interface WebhookResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

type Listener = { flowId: string; nodeId: string; onRequest: (req: WebhookRequest, respond: (r: WebhookResponse) => void) => void };

const RESPONSE_TIMEOUT_MS = 30_000;

/**
 * http-in nodes of running flows, by organization slug, method and path, and the requests waiting
 * for their http-response node. A path answers only while its flow runs.
 */
export class WebhookRegistry {
  private readonly listeners = new Map<string, Listener>();
  private readonly pending = new Map<string, (r: WebhookResponse) => void>();
  private counter = 0;

  private key(slug: string, method: string, path: string) {
    return `${slug} ${method.toLowerCase()} ${path.replace(/\/+$/, "") || "/"}`;
  }

  register(slug: string, method: string, path: string, listener: Listener): () => void {
    const key = this.key(slug, method, path);
    const existing = this.listeners.get(key);
    if (existing && existing.flowId !== listener.flowId) {
      throw new Error(`${method.toUpperCase()} ${path} is served by another flow already`);
    }
    this.listeners.set(key, listener);
    return () => {
      if (this.listeners.get(key) === listener) this.listeners.delete(key);
    };
  }

  /** A response handle for a message: http-response answers with it. */
  openResponse(respond: (r: WebhookResponse) => void): string {
    const id = `res-${++this.counter}-${Date.now().toString(36)}`;
    const timer = setTimeout(() => {
      if (this.pending.delete(id)) respond({ status: 504, headers: { "content-type": "application/json" }, body: { error: { code: "UNAVAILABLE", message: "the flow did not answer in time" } } });
    }, RESPONSE_TIMEOUT_MS);
    timer.unref();
    this.pending.set(id, (r) => {
      clearTimeout(timer);
      respond(r);
    });
    return id;
  }

  respond(msg: Message, response: WebhookResponse): boolean {
    const id = (msg.res as { _id?: string } | undefined)?._id;
    if (!id) return false;
    const resolve = this.pending.get(id);
    if (!resolve) return false;
    this.pending.delete(id);
    resolve(response);
    return true;
  }

  /** Serves a request; resolves to null when no running flow listens there. */
  handle(slug: string, request: WebhookRequest): Promise<WebhookResponse> | null {
    const listener = this.listeners.get(this.key(slug, request.method, request.path));
    if (!listener) return null;
    return new Promise((resolve) => listener.onRequest(request, resolve));
  }
}
