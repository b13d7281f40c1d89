import type { WebSocket } from "ws";
import type { KeyValueStore } from "../store";
import { durableSubscription, type DurableSubscription } from "../store/durable-subscription";
import type { ApiKeyPrincipal } from "../auth/principal";
import type { ServerFrame } from "../../shared/realtime";
import type { AgentFrame, AgentHello, AgentServerFrame } from "../../shared/agent-protocol";
import type { DeviceInMessage, DeviceOutMessage } from "../runtime/types";
import type { Logger } from "../logger";
import { agentsChannel, devicesOutChannel, type AgentCommand } from "./device-bus";

/**
 * What agent sockets need of the devices service (services/devices/agents.ts builds it): the
 * device recorded, the deployment it should run, what it applied, its events published.
 */
export interface AgentDeps {
  logger: Logger;
  connected(principal: ApiKeyPrincipal): Promise<void>;
  /** Records the hello; the deployment to send when the agent does not run the current one. */
  hello(principal: ApiKeyPrincipal, hello: AgentHello): Promise<AgentServerFrame | null>;
  deployment(organizationId: string, keyId: string): Promise<AgentServerFrame | null>;
  applied(principal: ApiKeyPrincipal, applied: Record<string, string>, error?: string, failed?: Record<string, string>): Promise<void>;
  /** false: the flow is not one this device runs (nothing was published). */
  event(principal: ApiKeyPrincipal, frame: Exclude<AgentFrame, { type: "agent.hello" | "agent.applied" }>): Promise<boolean>;
}

/** Where device messages go: the flow runtime (its device-in nodes, on whichever instance). */
export interface DeviceMessageSink {
  deviceMessage(organizationId: string, message: DeviceInMessage): void;
}

const onlineSetKey = (organizationId: string) => `devices-online:${organizationId}`;
const seenKey = (keyId: string) => `device-seen:${keyId}`;
const SEEN_TTL_MS = 90_000;

/** The hub's side of devices: sockets of `device_` keys, their presence, and delivery to them. */
export class DeviceChannel {
  private readonly sockets = new Map<string, Set<{ ws: WebSocket; keyId: string }>>();
  /** One per organization with device sockets here; kept trying while the store cannot subscribe. */
  private readonly subscriptions = new Map<string, DurableSubscription>();
  private readonly agentSubscriptions = new Map<string, DurableSubscription>();
  /** Agent sockets (those that said hello), by key id. */
  private readonly agents = new Map<string, Set<WebSocket>>();

  constructor(
    private readonly store: KeyValueStore,
    private readonly flows: DeviceMessageSink,
    private readonly agentDeps?: AgentDeps,
  ) {}

  attach(ws: WebSocket, principal: ApiKeyPrincipal): void {
    const org = principal.organizationId;
    let set = this.sockets.get(org);
    if (!set) {
      set = new Set();
      this.sockets.set(org, set);
      this.subscriptions.set(
        org,
        durableSubscription(this.store, devicesOutChannel(org), (raw) => this.forward(org, JSON.parse(raw) as DeviceOutMessage)),
      );
      if (this.agentDeps) this.agentSubscriptions.set(org, durableSubscription(this.store, agentsChannel(org), (raw) => this.command(org, JSON.parse(raw) as AgentCommand)));
    }
    if (this.agentDeps) void this.agentDeps.connected(principal).catch((err: unknown) => this.agentDeps?.logger.warn({ err }, "device could not be recorded"));
    const entry = { ws, keyId: principal.keyId };
    set.add(entry);
    const markSeen = () => {
      void this.store.set(seenKey(principal.keyId), new Date().toISOString(), { ttlMs: SEEN_TTL_MS }).catch(() => undefined);
    };
    void this.store.setAdd(onlineSetKey(org), principal.keyId).catch(() => undefined);
    markSeen();
    const refresh = setInterval(markSeen, SEEN_TTL_MS / 3);
    refresh.unref();
    ws.on("close", () => {
      clearInterval(refresh);
      set.delete(entry);
      const agentSockets = this.agents.get(principal.keyId);
      agentSockets?.delete(ws);
      if (agentSockets?.size === 0) this.agents.delete(principal.keyId);
      if (![...set].some((e) => e.keyId === principal.keyId)) {
        void this.store.setRemove(onlineSetKey(org), principal.keyId).catch(() => undefined);
        void this.store.del(seenKey(principal.keyId)).catch(() => undefined);
      }
      if (set.size === 0) {
        this.sockets.delete(org);
        void this.subscriptions.get(org)?.stop();
        this.subscriptions.delete(org);
        void this.agentSubscriptions.get(org)?.stop();
        this.agentSubscriptions.delete(org);
      }
    });
  }

  publish(principal: ApiKeyPrincipal, topic: string, payload: unknown): void {
    this.flows.deviceMessage(principal.organizationId, { topic, payload, device_key_id: principal.keyId });
  }

  /** A frame of the agent protocol from a device key's socket (SPEC §22). */
  agentFrame(ws: WebSocket, principal: ApiKeyPrincipal, frame: AgentFrame, reply: (frame: ServerFrame) => void): void {
    const deps = this.agentDeps;
    if (!deps) {
      reply({ type: "error", code: "FORBIDDEN", message: "device agents are not served here" });
      return;
    }
    const fail = (err: unknown) => {
      deps.logger.warn({ err, keyId: principal.keyId, frame: frame.type }, "agent frame failed");
      const e = err as { code?: string; message?: string };
      reply({ type: "error", code: typeof e.code === "string" ? e.code : "INTERNAL", message: typeof e.message === "string" && e.code ? e.message : "the frame could not be handled" });
    };
    if (frame.type === "agent.hello") {
      let set = this.agents.get(principal.keyId);
      if (!set) this.agents.set(principal.keyId, (set = new Set()));
      set.add(ws);
      deps.hello(principal, frame).then((deploy) => {
        if (deploy) reply(deploy);
      }, fail);
      return;
    }
    if (!this.agents.get(principal.keyId)?.has(ws)) {
      reply({ type: "error", code: "INVALID_FRAME", message: "send agent.hello first" });
      return;
    }
    if (frame.type === "agent.applied") {
      deps.applied(principal, frame.applied, frame.error, frame.failed).catch(fail);
      return;
    }
    deps.event(principal, frame).then((published) => {
      if (!published) reply({ type: "error", code: "NOT_FOUND", message: `flow ${frame.flow_id} does not run on this device` });
    }, fail);
  }

  /** A command from the agents channel: acted on where the key's agent socket is. */
  private command(organizationId: string, command: AgentCommand) {
    const sockets = this.agents.get(command.key_id);
    if (!sockets || sockets.size === 0 || !this.agentDeps) return;
    const send = (frame: AgentServerFrame) => {
      const text = JSON.stringify(frame);
      for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(text);
    };
    if (command.frame) send(command.frame);
    if (command.deploy) {
      this.agentDeps.deployment(organizationId, command.key_id).then(
        (frame) => frame && send(frame),
        (err: unknown) => this.agentDeps?.logger.warn({ err, keyId: command.key_id }, "deployment could not be sent to a device"),
      );
    }
  }

  private forward(organizationId: string, message: DeviceOutMessage) {
    const frame: ServerFrame = message.rejected
      ? { type: "device.rejected", topic: message.topic, reason: message.rejected.reason, retry_after: message.rejected.retry_after }
      : { type: "device.message", topic: message.topic, payload: message.payload };
    const text = JSON.stringify(frame);
    for (const { ws, keyId } of this.sockets.get(organizationId) ?? []) {
      if (message.device_key_id && message.device_key_id !== keyId) continue;
      if (ws.readyState === ws.OPEN) ws.send(text);
    }
  }
}

/** Device keys online in the organization, across instances (presence expires if an instance dies). */
export async function onlineDeviceKeyIds(store: KeyValueStore, organizationId: string): Promise<Array<{ keyId: string; lastSeenAt: string }>> {
  const members = await store.setMembers(onlineSetKey(organizationId));
  const out: Array<{ keyId: string; lastSeenAt: string }> = [];
  for (const keyId of members) {
    const seen = await store.get(seenKey(keyId));
    if (seen) out.push({ keyId, lastSeenAt: seen });
    else await store.setRemove(onlineSetKey(organizationId), keyId);
  }
  return out;
}
