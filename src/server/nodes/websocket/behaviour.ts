import { createHash } from "node:crypto";
import { websocketInNode, websocketOutNode, type websocketClientConfig, type websocketListenerConfig } from "./definition";
import { defineBehaviour } from "../types";
import type { ConnectionLease } from "../../runtime/connections";
import type { NodeContext } from "../../runtime/types";
import type { z } from "zod";
import { ListenerConnection } from "./listener";
import { ClientConnection, type ClientSettings } from "./client";
import { tlsConnectOptions } from "../tls-config/connect-options";
import { frameMessage, outgoingData, statusOf, type Endpoint, type EndpointPeer } from "./endpoint";

type ListenerConfig = z.output<typeof websocketListenerConfig>;
type ClientConfig = z.output<typeof websocketClientConfig>;

interface Attached {
  endpoint: Endpoint;
  wholemsg: boolean;
  detach(): Promise<void>;
}

/**
 * Attaches a websocket in/out node to the connection of its configuration node (the client when
 * set, else the listener, as Node-RED's `n.client ? n.client : n.server`). Undefined when the
 * configuration node is missing (already reported as the node's error by `ctx.configNode`).
 */
async function attach(ctx: NodeContext, refs: { server: string; client: string }, peer: EndpointPeer): Promise<Attached | undefined> {
  if (!refs.client && !refs.server) throw new Error("missing server configuration: choose a WebSocket listener or client");
  let lease: ConnectionLease<Endpoint>;
  let wholemsg: boolean;
  if (refs.client) {
    const handle = ctx.configNode<ClientConfig>(refs.client, "websocket-client");
    if (!handle) return undefined;
    if (!handle.config.path) throw new Error(`the WebSocket client ${handle.name || handle.id} has no URL`);
    const settings = clientSettings(ctx, handle.config);
    if (!settings) return undefined;
    wholemsg = settings.wholemsg;
    // The resolved settings decide the connection: a rotated secret or variable opens a new one.
    const variant = createHash("sha256").update(JSON.stringify(settings)).digest("base64url");
    lease = await handle.connect<Endpoint>("websocket-client", { open: () => new ClientConnection(settings, ctx.services.outbound).open(), close: (c) => (c as ClientConnection).close() }, { variant });
  } else {
    const handle = ctx.configNode<ListenerConfig>(refs.server, "websocket-listener");
    if (!handle) return undefined;
    const { webhooks, socketHooks } = ctx.services;
    if (!webhooks || !socketHooks) throw new Error("WebSocket listeners are not available on this server");
    const config = handle.config;
    if (!config.path) throw new Error(`the WebSocket listener ${handle.name || handle.id} has no path`);
    wholemsg = config.wholemsg === "true";
    lease = await handle.connect<Endpoint>("websocket-listener", {
      open: () =>
        new ListenerConnection({
          slug: ctx.organizationSlug,
          organizationId: ctx.organizationId,
          flowId: ctx.flowId,
          listenerId: handle.id,
          path: config.path,
          wholemsg,
          registry: webhooks,
          hooks: socketHooks,
        }).open(),
      close: (c) => (c as ListenerConnection).close(),
    });
  }
  const detach = lease.connection.attach(peer);
  return {
    endpoint: lease.connection,
    wholemsg,
    detach: async () => {
      detach();
      await lease.release();
    },
  };
}

/** The client's settings with `${NAME}` resolved and its TLS configuration applied; undefined when that is missing. */
function clientSettings(ctx: NodeContext, config: ClientConfig): ClientSettings | undefined {
  const tls = tlsConnectOptions(ctx, config.tls);
  if (tls === null) return undefined;
  // Node-RED 3.1's upgrade headers: a header name (or "other" and a name), a value given (other) or read from env.
  const headers: Record<string, string> = {};
  for (const header of config.headers) {
    const name = header.keyType === "other" ? header.keyValue : header.keyType;
    let value: string;
    if (header.valueType === "other") value = header.valueValue;
    else if (header.valueType === "env") value = String(ctx.env.get(header.valueValue) ?? "");
    else value = header.valueType;
    if (name && value) headers[name] = value;
  }
  const hb = Number.parseInt(config.hb, 10);
  return {
    url: config.path,
    protocols: config.subprotocol
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean),
    headers,
    heartbeatMs: hb > 0 ? hb * 1000 : 0,
    wholemsg: config.wholemsg === "true",
    ...(tls ? { tls } : {}),
  };
}

/** The peer part every websocket node has: its status follows the connection's events, and errors are warned once each. */
function statusPeer(ctx: NodeContext): EndpointPeer {
  let lastError = "";
  return {
    event(event) {
      ctx.status(statusOf(event));
      if (event.kind === "error") {
        if (event.error !== lastError) ctx.log.warn(`websocket error: ${event.error}`);
        lastError = event.error;
      } else if (event.kind === "opened") {
        lastError = "";
      }
    },
    busy: () => ctx.busy(),
    waiting: () => ctx.waiting(),
  };
}

export const websocketInBehaviour = defineBehaviour(websocketInNode, (ctx, c) => {
  let attached: Attached | undefined;
  let closed = false;
  return {
    async start() {
      const peer: EndpointPeer = {
        ...statusPeer(ctx),
        receive: ({ data, session, wholemsg }) => ctx.send(frameMessage(ctx, data, wholemsg, session)),
      };
      const done = await attach(ctx, c, peer);
      if (closed) await done?.detach();
      else attached = done;
    },
    async close() {
      closed = true;
      await attached?.detach();
      attached = undefined;
      ctx.status(null);
    },
  };
});

export const websocketOutBehaviour = defineBehaviour(websocketOutNode, (ctx, c) => {
  let attached: Promise<Attached | undefined> | undefined;
  let closed = false;
  return {
    async start() {
      attached = attach(ctx, c, statusPeer(ctx));
      const done = await attached;
      if (closed) await done?.detach();
    },
    async input(msg, _send, done) {
      // A start that failed (reported as the node's error then) sends nothing.
      const at = await attached?.catch(() => undefined);
      if (!at) {
        done(new Error("no WebSocket listener or client is configured (see the node's error)"));
        return;
      }
      const data = outgoingData(msg, at.wholemsg);
      if (data !== undefined) {
        const session = msg._session as { type?: unknown; id?: unknown } | undefined;
        const to = session && session.type === "websocket" && typeof session.id === "string" ? session.id : undefined;
        at.endpoint.send(data, to, (message) => ctx.log.warn(message));
      }
      done();
    },
    async close() {
      closed = true;
      const at = await attached?.catch(() => undefined);
      await at?.detach();
      ctx.status(null);
    },
  };
});
