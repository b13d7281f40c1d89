import type { AppServices } from "../../app-services";
import type { ApiKeyPrincipal, Principal } from "../../auth/principal";
import { AppError, notFound } from "../../errors";
import { newId } from "../../ids";
import type { Device, Flow, Prisma } from "../../../generated/prisma/client";
import type { AgentHello, FlowTarget } from "../../../shared/agent-protocol";
import { onlineDeviceKeyIds } from "../../realtime/devices";
import { onlineMqttClients } from "../../mqtt/online";
import { mqttClientHash } from "./mqtt-sessions";
import { recordAudit } from "../audit/record-audit";
import type { RequestMeta } from "../request-meta";
import type { UpdateDeviceInput } from "./device.schemas";
import { isSealingKey } from "./seal";
import { publishOrgEvent } from "../flows/events";
import type { FlowDeviceState } from "../../../shared/realtime";

/** A device as GET /devices lists it (SPEC §22). */
export interface DeviceView {
  id: string;
  key_id: string;
  name: string;
  kind: "agent" | "mqtt" | "channel";
  online: boolean;
  last_seen_at: string | null;
  tags: string[];
  agent_version?: string;
  node_red_version?: string;
  node_types?: string[];
  deployment_id?: string;
  /** Flows whose current deployment this agent cannot run, and why (it goes on with what it ran). */
  refused?: Array<{ flow_id: string; flow_name: string; deployment_id: string; error: string }>;
}

/** What a device cannot run: flow id → the deployment it was refused and why (it goes on running what `applied` says). */
export type Refusals = Record<string, { deployment_id: string; error: string }>;

/**
 * Each agent's refusals that still stand: of a flow whose current deployment is the one refused
 * and that the device does not run (an older refusal ended with a newer deploy).
 */
async function standingRefusals(app: AppServices, organizationId: string, devices: Device[]): Promise<Map<string, NonNullable<DeviceView["refused"]>>> {
  const flowIds = [...new Set(devices.flatMap((d) => Object.keys(d.refused as Refusals)))];
  const out = new Map<string, NonNullable<DeviceView["refused"]>>();
  if (flowIds.length === 0) return out;
  const flows = new Map(
    (await app.db.prisma.flow.findMany({ where: { id: { in: flowIds }, organizationId, deletedAt: null }, select: { id: true, name: true, currentDeploymentId: true } })).map((f) => [f.id, f]),
  );
  for (const d of devices) {
    const applied = d.applied as Record<string, string>;
    const standing = Object.entries(d.refused as Refusals)
      .filter(([flowId, r]) => flows.get(flowId)?.currentDeploymentId === r.deployment_id && applied[flowId] !== r.deployment_id)
      .map(([flowId, r]) => ({ flow_id: flowId, flow_name: flows.get(flowId)!.name, deployment_id: r.deployment_id, error: r.error }));
    if (standing.length > 0) out.set(d.id, standing);
  }
  return out;
}

/**
 * Where devices come from. Each source lists one kind for an organization; GET /devices is their
 * union. The devices of `device_` keys (agents and device-channel sockets) are stored here; another
 * kind (the built-in broker's MQTT clients) plugs in as one more function in DEVICE_SOURCES.
 */
export type DeviceSource = (app: AppServices, organizationId: string) => Promise<DeviceView[]>;

/** Stored devices of the organization's live device keys, with their presence on /ws (any instance). */
export const keyDevices: DeviceSource = async (app, organizationId) => {
  const [rows, online] = await Promise.all([
    app.db.prisma.device.findMany({
      where: { organizationId, key: { revokedAt: null } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    }),
    onlineDeviceKeyIds(app.store, organizationId),
  ]);
  const seen = new Map(online.map((o) => [o.keyId, o.lastSeenAt]));
  const refused = await standingRefusals(app, organizationId, rows);
  return rows.map((d) => deviceView(d, seen.get(d.keyId) ?? null, refused.get(d.id)));
};

/**
 * The built-in broker's connected MQTT clients (SPEC §20, §22), on any instance: one device per
 * client id, with an id derived from it (the same client keeps its id across reconnects); named
 * after the client id, online while connected, not stored (nothing to rename or tag).
 */
export const mqttDevices: DeviceSource = async (app, organizationId) => {
  const clients = await onlineMqttClients(app, organizationId);
  return clients.map((c) => ({
    id: `dev_mqtt-${mqttClientHash(organizationId, c.client_id)}`,
    key_id: c.key_id,
    name: c.client_id,
    kind: "mqtt" as const,
    online: true,
    last_seen_at: c.last_seen_at,
    tags: [],
  }));
};

const DEVICE_SOURCES: readonly DeviceSource[] = [keyDevices, mqttDevices];

export function deviceView(d: Device, onlineSince: string | null, refused: DeviceView["refused"] = []): DeviceView {
  return {
    id: d.id,
    key_id: d.keyId,
    name: d.name,
    kind: d.kind as DeviceView["kind"],
    online: onlineSince !== null,
    last_seen_at: onlineSince ?? d.lastSeenAt?.toISOString() ?? null,
    tags: d.tags,
    ...(d.kind === "agent"
      ? {
          agent_version: d.agentVersion ?? undefined,
          node_red_version: d.nodeRedVersion ?? undefined,
          node_types: d.nodeTypes,
          deployment_id: d.deploymentId ?? undefined,
          refused,
        }
      : {}),
  };
}

export async function listDevices(app: AppServices, principal: Principal): Promise<{ devices: DeviceView[] }> {
  const lists = await Promise.all(DEVICE_SOURCES.map((source) => source(app, principal.organizationId)));
  return { devices: lists.flat() };
}

/** A device of the caller's organization; any other id answers 404, as a missing one does. */
export async function requireDevice(app: AppServices, organizationId: string, id: string): Promise<Device> {
  const device = await app.db.prisma.device.findFirst({ where: { id, organizationId, key: { revokedAt: null } } });
  if (!device) throw notFound("device");
  return device;
}

export async function getDevice(app: AppServices, principal: Principal, id: string) {
  const device = await requireDevice(app, principal.organizationId, id);
  const online = await onlineDeviceKeyIds(app.store, principal.organizationId);
  return { device: deviceView(device, online.find((o) => o.keyId === device.keyId)?.lastSeenAt ?? null, (await standingRefusals(app, principal.organizationId, [device])).get(device.id)) };
}

export async function updateDevice(app: AppServices, principal: Principal, input: UpdateDeviceInput, meta: RequestMeta) {
  const device = await requireDevice(app, principal.organizationId, input.id);
  const updated = await app.db.prisma.device.update({
    where: { id: device.id },
    data: { name: input.name, tags: input.tags ? [...new Set(input.tags)] : undefined },
  });
  await recordAudit(app, {
    action: "device.updated",
    organizationId: principal.organizationId,
    actorId: principal.userId,
    targetType: "device",
    targetId: device.id,
    ipAddress: meta.ip,
    metadata: { name: updated.name, tags: updated.tags.join(",") },
  });
  const online = await onlineDeviceKeyIds(app.store, principal.organizationId);
  return { device: deviceView(updated, online.find((o) => o.keyId === updated.keyId)?.lastSeenAt ?? null, (await standingRefusals(app, principal.organizationId, [updated])).get(updated.id)) };
}

/** The device of a `device_` key: created the first time the key is used (or at its creation), named after the key. */
export async function ensureDevice(app: AppServices, organizationId: string, keyId: string, keyName: string): Promise<Device> {
  return app.db.prisma.device.upsert({
    where: { keyId },
    create: { id: newId("dev"), organizationId, keyId, name: keyName, kind: "channel" },
    update: {},
  });
}

/** A device key's socket is ready: its device exists and was seen now. */
export async function deviceConnected(app: AppServices, principal: ApiKeyPrincipal): Promise<Device> {
  const key = await app.db.prisma.apiKey.findUnique({ where: { id: principal.keyId }, select: { name: true } });
  const device = await ensureDevice(app, principal.organizationId, principal.keyId, key?.name ?? principal.keyId);
  return app.db.prisma.device.update({ where: { id: device.id }, data: { lastSeenAt: new Date() } });
}

/** What an agent said about itself when it connected; the device is an agent from now on. */
export async function recordHello(app: AppServices, principal: ApiKeyPrincipal, hello: AgentHello): Promise<Device> {
  if (!isSealingKey(hello.public_key)) throw new AppError("VALIDATION_FAILED", "public_key: must be an X25519 public key (SPKI DER, base64)");
  const device = await deviceConnected(app, principal);
  const updated = await app.db.prisma.device.update({
    where: { id: device.id },
    data: {
      kind: "agent",
      agentVersion: hello.agent_version,
      nodeRedVersion: hello.node_red_version,
      nodeTypes: [...new Set(hello.node_types)].sort(),
      publicKey: hello.public_key,
      ...(await appliedColumns(app, principal.organizationId, hello.applied)),
      lastSeenAt: new Date(),
    },
  });
  // What it says it runs may be news (its agent.applied was lost with its connection).
  await announceDeviceStates(app, device, updated);
  return updated;
}

/**
 * The agent applied a deployment (or kept its old one after an error): what it runs now. What it
 * could not apply (`failed`, with the error) is refused until it is sent again; a refusal of what
 * now runs is over.
 */
export async function recordApplied(app: AppServices, principal: ApiKeyPrincipal, applied: Record<string, string>, error?: string, failed?: Record<string, string>): Promise<Device | null> {
  const device = await app.db.prisma.device.findUnique({ where: { keyId: principal.keyId } });
  if (!device || device.organizationId !== principal.organizationId) return null;
  const refused: Refusals = {};
  for (const [flowId, r] of Object.entries(device.refused as Refusals)) if (applied[flowId] !== r.deployment_id) refused[flowId] = r;
  if (error) for (const [flowId, deploymentId] of Object.entries(failed ?? {})) if (applied[flowId] !== deploymentId) refused[flowId] = { deployment_id: deploymentId, error: `the device's Node-RED could not apply it: ${error}` };
  const updated = await app.db.prisma.device.update({
    where: { id: device.id },
    data: { ...(await appliedColumns(app, principal.organizationId, applied)), refused: refused as Prisma.InputJsonValue, lastSeenAt: new Date() },
  });
  await announceDeviceStates(app, device, updated);
  return updated;
}

/** What the server itself refused to send the device (services/devices/agents.ts, deployFrameFor), as of the frame it sends now. */
export async function recordRefused(app: AppServices, device: Device, refused: Refusals): Promise<void> {
  if (JSON.stringify(device.refused) === JSON.stringify(refused)) return;
  const updated = await app.db.prisma.device.update({ where: { id: device.id }, data: { refused: refused as Prisma.InputJsonValue } });
  await announceDeviceStates(app, device, updated);
}

/**
 * Tells open flow pages (`flow.devices`) that a device's state for their flows changed: each flow
 * whose applied deployment or refusal on this device is not what it was. Best effort, as events are.
 */
export async function announceDeviceStates(app: AppServices, before: Device, after: Device): Promise<void> {
  const changed = new Set<string>();
  for (const key of ["applied", "refused"] as const) {
    const a = before[key] as Record<string, unknown>;
    const b = after[key] as Record<string, unknown>;
    for (const flowId of new Set([...Object.keys(a), ...Object.keys(b)])) if (JSON.stringify(a[flowId]) !== JSON.stringify(b[flowId])) changed.add(flowId);
  }
  if (changed.size === 0) return;
  try {
    const flows = await app.db.prisma.flow.findMany({ where: { id: { in: [...changed] }, organizationId: after.organizationId, deletedAt: null } });
    for (const flow of flows) publishOrgEvent(app, flow.organizationId, "flow.devices", flow.id, { devices: await deviceStates(app, flow) });
  } catch (err) {
    app.logger.warn({ err, deviceId: after.id }, "device states could not be announced");
  }
}

/** `applied` and the newest of its deployments, counting only the organization's own deployments. */
async function appliedColumns(app: AppServices, organizationId: string, applied: Record<string, string>) {
  const ids = Object.values(applied);
  const rows = ids.length
    ? await app.db.prisma.deployment.findMany({ where: { id: { in: ids }, organizationId }, select: { id: true, flowId: true, deployedAt: true }, orderBy: [{ deployedAt: "desc" }, { id: "desc" }] })
    : [];
  const own = Object.fromEntries(rows.filter((r) => applied[r.flowId] === r.id).map((r) => [r.flowId, r.id]));
  return { applied: own as Prisma.InputJsonValue, deploymentId: rows.find((r) => own[r.flowId] === r.id)?.id ?? null };
}

/** The flow's target as the API shows it. */
export function targetOf(flow: Pick<Flow, "targetDeviceId" | "targetDeviceTag">): FlowTarget {
  if (flow.targetDeviceId) return { device_id: flow.targetDeviceId };
  if (flow.targetDeviceTag) return { device_tag: flow.targetDeviceTag };
  return "hosted";
}

/** The columns of a target; a device id must be one of the organization's devices (else 400). */
export async function targetColumns(app: AppServices, organizationId: string, target: FlowTarget): Promise<{ targetDeviceId: string | null; targetDeviceTag: string | null }> {
  if (target === "hosted") return { targetDeviceId: null, targetDeviceTag: null };
  if ("device_id" in target) {
    const device = await app.db.prisma.device.findFirst({ where: { id: target.device_id, organizationId, key: { revokedAt: null } }, select: { id: true } });
    if (!device) throw new AppError("VALIDATION_FAILED", "target.device_id: no such device in this organization; see GET /api/v1/devices", { details: [{ path: "target.device_id", message: "no such device in this organization" }] });
    return { targetDeviceId: device.id, targetDeviceTag: null };
  }
  return { targetDeviceId: null, targetDeviceTag: target.device_tag };
}

/** The devices a flow's target names now (none for a hosted flow). */
export async function targetDevices(app: AppServices, organizationId: string, flow: Pick<Flow, "targetDeviceId" | "targetDeviceTag">): Promise<Device[]> {
  if (flow.targetDeviceId) return app.db.prisma.device.findMany({ where: { id: flow.targetDeviceId, organizationId, key: { revokedAt: null } } });
  if (flow.targetDeviceTag) return app.db.prisma.device.findMany({ where: { organizationId, tags: { has: flow.targetDeviceTag }, key: { revokedAt: null } }, orderBy: { id: "asc" } });
  return [];
}

/** Node types the target's devices reported (their union: a flow for a tag accepts what any of them has). */
export async function targetNodeTypes(app: AppServices, organizationId: string, target: Pick<Flow, "targetDeviceId" | "targetDeviceTag">): Promise<Set<string>> {
  const devices = await targetDevices(app, organizationId, target);
  return new Set(devices.flatMap((d) => d.nodeTypes));
}

/** The flows a device runs: deployed, enabled flows naming it or one of its tags. */
export async function flowsOfDevice(app: AppServices, device: Device): Promise<Flow[]> {
  return app.db.prisma.flow.findMany({
    where: {
      organizationId: device.organizationId,
      deletedAt: null,
      enabled: true,
      currentDeploymentId: { not: null },
      OR: [{ targetDeviceId: device.id }, ...(device.tags.length ? [{ targetDeviceTag: { in: device.tags } }] : [])],
    },
    orderBy: { id: "asc" },
  });
}

/**
 * Each target device's state for the flow (SPEC §22: the flow's state lists them): `applied` (it
 * runs the current deployment), `refused` (it cannot, `error` says why; it goes on running
 * `deployment_id`, an earlier one, if any) or `pending` (offline, or still applying).
 */
export async function deviceStates(app: AppServices, flow: Flow): Promise<FlowDeviceState[]> {
  const devices = await targetDevices(app, flow.organizationId, flow);
  if (devices.length === 0) return [];
  const online = new Set((await onlineDeviceKeyIds(app.store, flow.organizationId)).map((o) => o.keyId));
  return devices.map((d) => {
    const applied = (d.applied as Record<string, string>)[flow.id] ?? null;
    const refusal = (d.refused as Refusals)[flow.id];
    const current = flow.currentDeploymentId !== null && applied === flow.currentDeploymentId;
    const refused = !current && refusal !== undefined && refusal.deployment_id === flow.currentDeploymentId;
    return {
      device_id: d.id,
      name: d.name,
      online: online.has(d.keyId),
      state: current ? "applied" : refused ? "refused" : "pending",
      deployment_id: applied,
      error: refused ? refusal.error : null,
    };
  });
}
