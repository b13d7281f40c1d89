import type { Logger } from "../logger";
import { JSON_TOO_DEEP_MESSAGE, jsonTooDeep } from "../../shared/json-depth";
import type { Principal } from "../auth/principal";
import { socketCloseCode, toAppError } from "../errors";
import { clientFrameSchema, eventTopics, WS_CLOSE } from "../../shared/realtime";
import { tokenCredentials, type SocketCredentials } from "./admission";
import { isDeviceKey, type Client } from "./client";
import type { DeviceChannel } from "./devices";

/** What frame handling needs of the hub. */
export interface ClientFrameDeps {
  authenticate(credentials: SocketCredentials): Promise<Principal>;
  /** Makes the connection (re-)authenticated as `principal`; `bearer` is the access token, whose expiry ends it. */
  ready(client: Client, principal: Principal, bearer: string | undefined, credentials: SocketCredentials): Promise<void>;
  setPresence(client: Client, flowId: string | null): Promise<void>;
  devices?: DeviceChannel;
  logger: Logger;
}

/** `subscribed` says `batch: true` to a connection that batches, and nothing more to others. */
const batchFlag = (client: Client): { batch?: true } => (client.out.batchesDebug ? { batch: true } : {});

/**
 * One frame a client sent (`text`: its JSON; binary frames arrive as ""): answers `error`
 * INVALID_FRAME to what is not a client frame, closes 4401 before authentication for anything but
 * `auth`, and otherwise does what docs/WEBSOCKET.md says of each frame type.
 */
export function handleClientFrame(client: Client, text: string, deps: ClientFrameDeps): void {
  let parsed: unknown;
  if (jsonTooDeep(text)) {
    client.out.send({ type: "error", code: "INVALID_FRAME", message: JSON_TOO_DEEP_MESSAGE });
    return;
  }
  try {
    parsed = JSON.parse(text);
  } catch {
    client.out.send({ type: "error", code: "INVALID_FRAME", message: "frames must be JSON objects" });
    return;
  }
  const frame = clientFrameSchema.safeParse(parsed);
  if (!frame.success) {
    client.out.send({ type: "error", code: "INVALID_FRAME", message: frame.error.issues[0]?.message ?? "invalid frame" });
    return;
  }
  const f = frame.data;
  if (f.type === "auth") {
    const token = f.token;
    const credentials = tokenCredentials(token);
    deps.authenticate(credentials).then(
      (principal) => {
        clearTimeout(client.authTimer);
        return deps.ready(client, principal, credentials.authorization ? token : undefined, credentials);
      },
      (err: unknown) => {
        const e = toAppError(err);
        client.ws.close(socketCloseCode(e), e.code);
      },
    ).catch((err: unknown) => {
      // Never an unhandled rejection (it would end the process): the socket closes instead.
      deps.logger.warn({ err }, "websocket authentication failed");
      const e = toAppError(err);
      client.ws.close(socketCloseCode(e), e.code);
    });
    return;
  }
  const principal = client.principal;
  if (!principal) {
    client.ws.close(WS_CLOSE.unauthenticated, "authenticate first");
    return;
  }
  switch (f.type) {
    case "ping":
      client.out.send({ type: "pong", ts: new Date().toISOString() });
      return;
    case "subscribe":
      // What was batched under the old subscription goes out before the answer.
      client.out.setBatching(f.batch === true);
      client.topics = f.topics ? new Set(f.topics) : null;
      client.flowId = f.flow_id ?? null;
      client.out.send({ type: "subscribed", topics: f.topics ?? "all", flow_id: client.flowId, ...batchFlag(client) });
      return;
    case "unsubscribe":
      if (f.topics) {
        const current = client.topics ?? new Set<string>(eventTopics);
        for (const t of f.topics) current.delete(t);
        client.topics = current;
      } else if (f.flow_id) client.flowId = null;
      else client.topics = new Set();
      client.out.send({ type: "subscribed", topics: client.topics ? [...client.topics] : "all", flow_id: client.flowId, ...batchFlag(client) });
      return;
    case "presence":
      if (isDeviceKey(principal)) {
        client.out.send({ type: "error", code: "FORBIDDEN", message: "device keys have no presence" });
        return;
      }
      deps.setPresence(client, f.flow_id).catch((err: unknown) => deps.logger.warn({ err }, "presence failed"));
      return;
    case "agent.hello":
    case "agent.applied":
    case "agent.debug":
    case "agent.status":
    case "agent.error":
      if (isDeviceKey(principal) && deps.devices) deps.devices.agentFrame(client.ws, principal, f, (frame) => client.out.send(frame));
      else client.out.send({ type: "error", code: "FORBIDDEN", message: "only device keys speak the agent protocol" });
      return;
    case "device.publish":
      if (isDeviceKey(principal) && deps.devices) {
        deps.devices.publish(principal, f.topic, f.payload);
      } else client.out.send({ type: "error", code: "FORBIDDEN", message: "only device keys publish device messages" });
      return;
  }
}
