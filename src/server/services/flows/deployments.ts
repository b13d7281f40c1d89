import type { AppServices } from "../../app-services";
import { AppError, flowBusy, notFound } from "../../errors";
import { newId } from "../../ids";
import type { Principal } from "../../auth/principal";
import type { Deployment, Flow, Prisma } from "../../../generated/prisma/client";
import type { Connection, FlowGraph, FlowNode } from "../../../shared/flow-graph";
import { diffDeployments, type DeploymentChanges } from "../../../shared/deployment-diff";
import { recordAudit } from "../audit/record-audit";
import type { RequestMeta } from "../request-meta";
import { validateGraph } from "./validate-graph";
import { actorName, publishOrgEvent } from "./events";
import type { FlowStateName } from "../../../shared/realtime";
import { flowsChanged, graphContext, readFlow, requireFlow } from "./flows";
import type { FlowGroup } from "../../../shared/subflows";
import { portsOfSnapshots, snapshotSubflows } from "../subflows/subflow-ports";
import { deployedUsersOf } from "../subflows/subflows";
import { snapshotConfigNodes } from "../config-nodes/snapshot-config-nodes";
import { deployedUsers } from "../config-nodes/usage";
import { GLOBAL_CONFIG_TYPE } from "../config-nodes/config-node-rows";
import { readThrough } from "./flow-reads";
import { decodeKeysetCursor, encodeKeysetCursor } from "../cursor";
import type { DeploymentSnapshot } from "../../flow-runtime/types";
import { deviceStates, targetDevices } from "../devices/devices";
import { injectOnDevices, refreshDevicesOf, setActiveOnDevices, waitForApplied } from "../devices/agents";
import { randomHex } from "../../ids";
import { onlineDeviceKeyIds } from "../../realtime/devices";

/** Whether any device of the organization said it runs the flow. */
async function hadDevices(app: AppServices, flow: Flow): Promise<boolean> {
  const [row] = await app.db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM devices WHERE organization_id = $1 AND applied ? $2`, [flow.organizationId, flow.id]);
  return (row?.n ?? 0) > 0;
}

/** How long a deploy to online devices waits for them to apply it before answering 202 (SPEC §22). */
const DEVICE_APPLY_WAIT_MS = 10_000;

/**
 * A device flow's deployment goes to its devices, never to the hosted runtime (which stops what it
 * ran of the flow): each online device is asked to apply it, wherever its socket is; the answer
 * waits until they did. Offline devices (and those that did not apply it in time) are `pending`:
 * they get it when they connect.
 */
async function deployToDevices(app: AppServices, flow: Flow, deploymentId: string) {
  await app.flowRuntime.stop(flow.id);
  await app.db.prisma.flow.update({ where: { id: flow.id }, data: { state: flow.enabled ? "running" : "stopped", stateError: null } });
  await flowsChanged(app, flow.organizationId);
  const devices = await targetDevices(app, flow.organizationId, flow);
  await refreshDevicesOf(app, flow);
  const online = new Set((await onlineDeviceKeyIds(app.store, flow.organizationId)).map((o) => o.keyId));
  const reachable = devices.filter((d) => online.has(d.keyId));
  const late = flow.enabled ? await waitForApplied(app, flow.id, deploymentId, reachable, DEVICE_APPLY_WAIT_MS) : [];
  const pending = [...devices.filter((d) => !online.has(d.keyId)).map((d) => d.id), ...late];
  const fresh = await app.db.prisma.flow.findUniqueOrThrow({ where: { id: flow.id } });
  return { state: (flow.enabled ? "running" : "stopped") as FlowStateName, pending, devices: await deviceStates(app, fresh) };
}

function deploymentView(d: Pick<Deployment, "id" | "flowId" | "revision" | "deployedAt" | "deployedById" | "rolledBackFrom">, state: string) {
  return {
    id: d.id,
    flow_id: d.flowId,
    revision: d.revision,
    deployed_at: d.deployedAt.toISOString(),
    deployed_by: d.deployedById,
    state: state as "running",
    rolled_back_from: d.rolledBackFrom,
  };
}

/**
 * Records the deployment and makes it current in one transaction, then puts it in effect. After a
 * crash at any point the flow restarts from the current deployment: the old version or the new,
 * never a mix.
 */
async function activate(app: AppServices, principal: Principal, flow: Flow, snapshot: DeploymentSnapshot, revision: number, meta: RequestMeta, rolledBackFrom: string | null) {
  const id = newId("dep");
  const { deployment, updated } = await app.db.prisma.$transaction(async (tx) => {
    // What this deployment changes against the one before, kept with it: the list never reads
    // snapshots (one snapshot is read here, once per deploy). Deploys of one flow take its row lock
    // first, so two at once cannot both diff against the same predecessor.
    await tx.$queryRaw`SELECT id FROM flows WHERE id = ${flow.id} FOR UPDATE`;
    const before = await tx.deployment.findFirst({ where: { flowId: flow.id }, orderBy: [{ deployedAt: "desc" }, { id: "desc" }], select: { snapshot: true } });
    const changes = diffDeployments(before ? (before.snapshot as unknown as FlowGraph) : null, snapshot);
    const deployment = await tx.deployment.create({
      data: {
        id,
        flowId: flow.id,
        organizationId: flow.organizationId,
        revision,
        snapshot: snapshot as unknown as Prisma.InputJsonValue,
        deployedById: principal.userId,
        rolledBackFrom,
        changes: changes as unknown as Prisma.InputJsonValue,
      },
    });
    const updated = await tx.flow.update({
      where: { id: flow.id },
      data: { currentDeploymentId: id, deployedRevision: revision, deployedAt: deployment.deployedAt },
    });
    return { deployment, updated };
  });
  await flowsChanged(app, flow.organizationId);
  const onDevices = updated.targetDeviceId || updated.targetDeviceTag ? await deployToDevices(app, updated, id) : null;
  const state = onDevices ? onDevices.state : await app.flowRuntime.apply(updated, deployment);
  // Back to hosted: devices that ran it drop it.
  if (!onDevices && (await hadDevices(app, updated))) await refreshDevicesOf(app, updated);
  await recordAudit(app, {
    action: rolledBackFrom ? "flow.rolled_back" : "flow.deployed",
    organizationId: flow.organizationId,
    actorId: principal.userId,
    targetType: "flow",
    targetId: flow.id,
    ipAddress: meta.ip,
    metadata: { name: updated.name, deployment_id: id, revision },
  });
  // Why it is in error, in the event too: it may reach an editor after the runtime's flow.state
  // (which carries it), and must not wipe it out.
  const stateError = state === "error" ? ((await app.db.prisma.flow.findUnique({ where: { id: flow.id }, select: { stateError: true } }))?.stateError ?? null) : null;
  publishOrgEvent(app, flow.organizationId, "flow.deployed", flow.id, {
    deployment_id: id,
    revision,
    state: state as FlowStateName,
    error: stateError,
    by: principal.userId,
    by_name: await actorName(app, principal.userId),
    rolled_back_from: rolledBackFrom,
  });
  return { deployment: deploymentView(deployment, state), state_error: stateError, ...(onDevices ? { pending: onDevices.pending, devices: onDevices.devices } : {}) };
}

export async function deployFlow(app: AppServices, principal: Principal, id: string, meta: RequestMeta) {
  const flow = await requireFlow(app, principal, id);
  // Validated again: the catalog may have changed since the flow was saved.
  const nodes = flow.nodes as unknown as FlowNode[];
  const graph = validateGraph(
    app.nodes,
    { nodes, connections: flow.connections as unknown as Connection[], groups: flow.groups as unknown as FlowGroup[] },
    { ...(await graphContext(app, flow.organizationId, nodes)), stored: true },
  );
  return activate(app, principal, flow, await withSubflows(app, flow.organizationId, { name: flow.name, ...graph }), flow.revision, meta, null);
}

/**
 * The snapshot with every definition its instances use (transitively) and every configuration node
 * its nodes and those definitions' nodes name (transitively), as they are now; none: no
 * `subflows` / `config_nodes` key. `fallback` is the deployment being redeployed: what is gone
 * since is taken from it.
 */
async function withSubflows(app: AppServices, organizationId: string, snapshot: DeploymentSnapshot, fallback: Pick<DeploymentSnapshot, "subflows" | "config_nodes"> = {}): Promise<DeploymentSnapshot> {
  const subflows = await snapshotSubflows(app, organizationId, snapshot.nodes, fallback.subflows ?? {});
  const configNodes = await snapshotConfigNodes(app, organizationId, { nodes: snapshot.nodes, subflows }, fallback.config_nodes ?? {});
  const next: DeploymentSnapshot = { ...snapshot };
  delete next.subflows;
  delete next.config_nodes;
  return {
    ...next,
    ...(Object.keys(subflows).length > 0 ? { subflows } : {}),
    ...(Object.keys(configNodes).length > 0 ? { config_nodes: configNodes } : {}),
  };
}

/** What a deployment's graph is checked against when it runs again as it was: the definitions and configuration nodes it carries. */
function snapshotContext(snapshot: DeploymentSnapshot) {
  const configNodes = new Map(Object.values(snapshot.config_nodes ?? {}).map((c) => [c.id, c.type]));
  return { kind: "flow" as const, subflows: portsOfSnapshots(snapshot.subflows), configNodes };
}

/**
 * After a subflow definition changed (SPEC §16): every deployed flow whose running deployment uses
 * it, directly or nested, gets a new deployment of the graph it runs with the definitions as they
 * are now (its changes list the instances whose definition changed). Each flow is checked first,
 * so a definition whose ports no longer fit a flow's wires deploys nothing (400 naming the flow).
 */
export async function redeployUsersOf(app: AppServices, principal: Principal, subflowId: string, meta: RequestMeta) {
  const users = await deployedUsersOf(app, principal.organizationId, subflowId);
  const deployments = await redeployFlows(app, principal, users.map((u) => u.id), "the subflow", meta);
  await recordAudit(app, {
    action: "subflow.deployed",
    organizationId: principal.organizationId,
    actorId: principal.userId,
    targetType: "subflow",
    targetId: subflowId,
    ipAddress: meta.ip,
    metadata: { flows: deployments.length },
  });
  return { deployments };
}

/**
 * After a configuration node changed (SPEC §19): every deployed flow whose running deployment
 * carries it (named by its nodes, by a subflow's, or by another configuration node) gets a new
 * deployment of the graph it runs, with the configuration nodes (and definitions) as they are now.
 */
export async function redeployConfigNodeUsers(app: AppServices, principal: Principal, configNodeId: string, meta: RequestMeta) {
  const users = (await deployedUsers(app, principal.organizationId, configNodeId)).get(configNodeId) ?? [];
  // A global-config's env is every flow's: every deployed flow takes it, also one deployed before it existed.
  const node = await app.db.prisma.configNode.findUnique({ where: { organizationId_id: { organizationId: principal.organizationId, id: configNodeId } }, select: { type: true } });
  const flowIds =
    node?.type === GLOBAL_CONFIG_TYPE
      ? (await app.db.prisma.flow.findMany({ where: { organizationId: principal.organizationId, deletedAt: null, currentDeploymentId: { not: null } }, select: { id: true }, orderBy: { id: "asc" } })).map((f) => f.id)
      : users.map((u) => u.flow_id);
  const deployments = await redeployFlows(app, principal, flowIds, "the configuration node", meta);
  await recordAudit(app, {
    action: "config_node.deployed",
    organizationId: principal.organizationId,
    actorId: principal.userId,
    targetType: "config_node",
    targetId: configNodeId,
    ipAddress: meta.ip,
    metadata: { flows: deployments.length },
  });
  return { deployments };
}

/** Each flow checked first (nothing deployed when one no longer validates), then each deployed again from what it runs. */
async function redeployFlows(app: AppServices, principal: Principal, flowIds: string[], what: string, meta: RequestMeta) {
  const planned: Array<{ flow: Flow; snapshot: DeploymentSnapshot; revision: number }> = [];
  for (const flowId of flowIds) {
    const flow = await requireFlow(app, principal, flowId);
    const current = flow.currentDeploymentId ? await app.db.prisma.deployment.findFirst({ where: { id: flow.currentDeploymentId, flowId: flow.id } }) : null;
    if (!current) continue;
    const deployed = current.snapshot as unknown as DeploymentSnapshot;
    const snapshot = await withSubflows(app, flow.organizationId, deployed, deployed);
    try {
      validateGraph(app.nodes, snapshot, { ...snapshotContext(snapshot), stored: true });
    } catch (err) {
      const reason = AppError.is(err) ? err.message : "it does not validate";
      throw new AppError("VALIDATION_FAILED", `flow "${flow.name}" (${flow.id}) cannot run ${what} as it is now: ${reason}; nothing was deployed`, {
        details: [{ path: `flows.${flow.id}`, message: reason }],
        cause: err,
      });
    }
    planned.push({ flow, snapshot, revision: current.revision });
  }
  const deployments = [];
  for (const { flow, snapshot, revision } of planned) {
    const { deployment } = await activate(app, principal, flow, snapshot, revision, meta, null);
    deployments.push({ flow_id: flow.id, deployment_id: deployment.id, revision: deployment.revision, state: deployment.state });
  }
  return deployments;
}

export async function rollbackFlow(app: AppServices, principal: Principal, input: { id: string; deployment_id: string }, meta: RequestMeta) {
  const flow = await requireFlow(app, principal, input.id);
  const target = await app.db.prisma.deployment.findFirst({ where: { id: input.deployment_id, flowId: flow.id } });
  if (!target) throw notFound("deployment");
  const snapshot = target.snapshot as unknown as DeploymentSnapshot;
  try {
    // Its instances run the definitions it carries, whatever the organization's are now.
    validateGraph(app.nodes, snapshot, { ...snapshotContext(snapshot), stored: true });
  } catch (err) {
    throw new AppError("VALIDATION_FAILED", "that deployment no longer validates against the node catalog", { cause: err });
  }
  return activate(app, principal, flow, snapshot, target.revision, meta, target.id);
}

/** A deployment row without its snapshot: what the list reads. */
const summaryColumns = { id: true, flowId: true, revision: true, deployedById: true, deployedAt: true, rolledBackFrom: true, changes: true } as const;
type DeploymentSummary = Pick<Deployment, keyof typeof summaryColumns>;

/**
 * A flow's deployments, newest first, with what each changed against the one before. Reads
 * summaries only (the changes are stored with each deployment); a row from before they were stored
 * gets them computed once, from its snapshot and its predecessor's, and written back.
 */
export async function listDeployments(app: AppServices, principal: Principal, input: { id: string; limit: number; cursor?: string }) {
  const flow = await readFlow(app, principal, input.id);
  let after: { deployedAt: Date; id: string } | null = null;
  if (input.cursor) {
    const { at, id } = decodeKeysetCursor(input.cursor);
    after = { deployedAt: at, id };
  }
  const rows: DeploymentSummary[] = await app.db.prisma.deployment.findMany({
    where: { flowId: flow.id, ...(after ? { OR: [{ deployedAt: { lt: after.deployedAt } }, { deployedAt: after.deployedAt, id: { lt: after.id } }] } : {}) },
    orderBy: [{ deployedAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    select: summaryColumns,
  });
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  const changes = new Map<string, DeploymentChanges>();
  for (const d of page) if (d.changes) changes.set(d.id, d.changes as unknown as DeploymentChanges);
  for (const d of page) if (!changes.has(d.id)) changes.set(d.id, await backfillChanges(app, d));
  const users = await app.db.prisma.user.findMany({
    where: { id: { in: [...new Set(page.map((d) => d.deployedById))] }, deletedAt: null },
    select: { id: true, email: true, firstName: true, lastName: true },
  });
  const names = new Map(users.map((u) => [u.id, [u.firstName, u.lastName].filter(Boolean).join(" ") || u.email]));
  return {
    deployments: page.map((d) => ({
      ...deploymentView(d, d.id === flow.currentDeploymentId ? flow.state : "stopped"),
      deployed_by_name: names.get(d.deployedById) ?? null,
      changes: changes.get(d.id)!,
    })),
    next_cursor: rows.length > input.limit && last ? encodeKeysetCursor(last.deployedAt, last.id) : null,
  };
}

/** The changes of a deployment stored before they were kept: computed from the two snapshots once, then stored. */
async function backfillChanges(app: AppServices, d: DeploymentSummary): Promise<DeploymentChanges> {
  const [current, previous] = await Promise.all([
    app.db.prisma.deployment.findUniqueOrThrow({ where: { id: d.id }, select: { snapshot: true } }),
    app.db.prisma.deployment.findFirst({
      where: { flowId: d.flowId, OR: [{ deployedAt: { lt: d.deployedAt } }, { deployedAt: d.deployedAt, id: { lt: d.id } }] },
      orderBy: [{ deployedAt: "desc" }, { id: "desc" }],
      select: { snapshot: true },
    }),
  ]);
  const changes = diffDeployments(previous ? (previous.snapshot as unknown as FlowGraph) : null, current.snapshot as unknown as FlowGraph);
  await app.db.prisma.deployment.update({ where: { id: d.id }, data: { changes: changes as unknown as Prisma.InputJsonValue } });
  return changes;
}

/**
 * The graph of the flow's current deployment (what runs, or ran before the flow was disabled), so
 * the editor can mark what changed since: null when the flow was never deployed.
 */
export async function getDeployedGraph(app: AppServices, principal: Principal, id: string) {
  const flow = await readFlow(app, principal, id);
  if (!flow.currentDeploymentId) return { deployed: null };
  const deployment = await app.db.prisma.deployment.findFirst({ where: { id: flow.currentDeploymentId, flowId: flow.id } });
  if (!deployment) return { deployed: null };
  const snapshot = deployment.snapshot as unknown as DeploymentSnapshot;
  return {
    deployed: {
      deployment_id: deployment.id,
      revision: deployment.revision,
      deployed_at: deployment.deployedAt.toISOString(),
      nodes: snapshot.nodes,
      connections: snapshot.connections,
      groups: snapshot.groups ?? [],
    },
  };
}

export async function listFlowNodes(app: AppServices, principal: Principal, flowId: string) {
  const flow = await readFlow(app, principal, flowId);
  const statuses = await app.flowRuntime.nodeStatuses(flow.id);
  return { nodes: (flow.nodes as unknown as FlowNode[]).map((n) => ({ ...n, status: statuses.get(n.id) ?? null })) };
}

interface InjectTarget {
  type: string;
  flow_id: string;
  organization_id: string;
  deleted_at: Date | null;
  enabled: boolean;
  current_deployment_id: string | null;
  target_device_id: string | null;
  target_device_tag: string | null;
}

/**
 * The node and the few columns of its flow that decide whether it runs, through the organization's
 * flow reads; on a miss, one statement to the driver (not the whole flow row with its nodes JSON,
 * and not through Prisma): inject is a hot path.
 */
function injectTarget(app: AppServices, principal: Principal, nodeId: string): Promise<InjectTarget | undefined> {
  return readThrough(app.flowReads, principal, `node\u0000${nodeId}`, async () => {
    const [entry] = await app.db.sql<InjectTarget>(
      `SELECT n.type, f.id AS flow_id, f.organization_id, f.deleted_at, f.enabled, f.current_deployment_id, f.target_device_id, f.target_device_tag
         FROM flow_nodes n JOIN flows f ON f.id = n.flow_id
        WHERE n.organization_id = $1 AND n.node_id = $2`,
      [principal.organizationId, nodeId],
    );
    return entry;
  });
}

/**
 * Switches a debug node of a running flow on or off at once, without a deploy (Node-RED's debug
 * button), wherever the flow runs; the node's saved Active setting is the editor's to change.
 */
export async function setNodeActive(app: AppServices, principal: Principal, input: { nodeId: string; active: boolean }) {
  const entry = await injectTarget(app, principal, input.nodeId);
  if (!entry) throw notFound("node");
  if (!app.nodes.get(entry.type)?.roles?.switchable) throw new AppError("NOT_SWITCHABLE", `node ${input.nodeId} is a ${entry.type} node: only debug nodes switch on and off`);
  if (entry.organization_id !== principal.organizationId || entry.deleted_at !== null) throw notFound("flow");
  if (!entry.current_deployment_id || !entry.enabled) throw new AppError("FLOW_NOT_RUNNING", "the flow is not running: deploy it (and enable it) first");
  if (entry.target_device_id || entry.target_device_tag) {
    // A device flow (SPEC §22): each online device's Node-RED switches it, through whichever instance holds its socket.
    const target = { id: entry.flow_id, organizationId: entry.organization_id, targetDeviceId: entry.target_device_id, targetDeviceTag: entry.target_device_tag };
    const sent = await setActiveOnDevices(app, target, input.nodeId, input.active);
    if (sent.length === 0) throw new AppError("FLOW_NOT_RUNNING", "none of the devices this flow targets is online");
    return { node_id: input.nodeId, flow_id: entry.flow_id, active: input.active };
  }
  const result = await app.flowRuntime.setActive(entry.flow_id, input.nodeId, input.active);
  if (!result.ok) {
    if (result.reason === "not_deployed") throw new AppError("FLOW_NOT_RUNNING", "this debug node is not in the running version of the flow: deploy the flow first");
    if (result.reason === "unavailable") throw new AppError("UNAVAILABLE", "the instance running this flow did not answer; try again");
    throw new AppError("FLOW_NOT_RUNNING", "the flow is not running: deploy it (and enable it) first");
  }
  return { node_id: input.nodeId, flow_id: entry.flow_id, active: input.active };
}

/**
 * Switches the debug nodes of a running flow on or off at once (Node-RED's "activate / deactivate
 * all debug nodes" actions and `POST /debug/{enable,disable}`): every switchable node of the running
 * version, or the ones named, which must each be one. Wherever the flow runs (a device flow: on
 * each online device); the nodes' saved Active settings are the editor's to change.
 */
export async function setFlowDebugActive(app: AppServices, principal: Principal, input: { id: string; active: boolean; node_ids?: string[] }) {
  const flow = await readFlow(app, principal, input.id);
  if (!flow.currentDeploymentId || !flow.enabled) throw new AppError("FLOW_NOT_RUNNING", "the flow is not running: deploy it (and enable it) first");
  const deployment = await app.db.prisma.deployment.findFirst({ where: { id: flow.currentDeploymentId, flowId: flow.id }, select: { snapshot: true } });
  const running = ((deployment?.snapshot as unknown as DeploymentSnapshot | undefined)?.nodes ?? []).filter((n) => !n.disabled && app.nodes.get(n.type)?.roles?.switchable);
  const switchable = new Set(running.map((n) => n.id));
  if (input.node_ids) {
    const others = [...new Set(input.node_ids)].filter((id) => !switchable.has(id));
    if (others.length > 0) {
      throw new AppError("NOT_SWITCHABLE", `not a debug node of the running version of this flow: ${others.slice(0, 5).join(", ")}${others.length > 5 ? ", …" : ""}`, {
        details: others.slice(0, 20).map((id) => ({ path: `node_ids[${input.node_ids!.indexOf(id)}]`, message: `${id} is not a debug node of the running version of this flow` })),
      });
    }
  }
  const targets = input.node_ids ? [...new Set(input.node_ids)] : running.map((n) => n.id);
  if (flow.targetDeviceId || flow.targetDeviceTag) {
    // A device flow (SPEC §22): each online device's Node-RED switches them (the devices found once).
    const sent = await setActiveOnDevices(app, flow, targets, input.active);
    if (sent.length === 0) throw new AppError("FLOW_NOT_RUNNING", "none of the devices this flow targets is online");
    return { flow_id: flow.id, active: input.active, node_ids: targets };
  }
  const switched: string[] = [];
  for (const nodeId of targets) {
    const result = await app.flowRuntime.setActive(flow.id, nodeId, input.active);
    if (result.ok) {
      switched.push(nodeId);
      continue;
    }
    // A deploy or a lost instance midway: say which ones did switch, so the caller can try again.
    const done = switched.length > 0 ? ` (switched before this: ${switched.join(", ")})` : "";
    if (result.reason === "unavailable") throw new AppError("UNAVAILABLE", `the instance running this flow did not answer; try again${done}`);
    throw new AppError("FLOW_NOT_RUNNING", `the flow is not running: deploy it (and enable it) first${done}`);
  }
  return { flow_id: flow.id, active: input.active, node_ids: targets };
}

/** Sends a message out of an inject node of a running flow (payload/topic override the node's). */
export async function injectNode(app: AppServices, principal: Principal, input: { nodeId: string; payload?: unknown; topic?: string }, meta: RequestMeta) {
  const entry = await injectTarget(app, principal, input.nodeId);
  if (!entry) throw notFound("node");
  // A type that starts messages by hand declares the trigger role (the inject node).
  if (!app.nodes.get(entry.type)?.roles?.trigger) throw new AppError("NOT_AN_INJECT_NODE", `node ${input.nodeId} is a ${entry.type} node, not an inject node`);
  if (entry.organization_id !== principal.organizationId || entry.deleted_at !== null) throw notFound("flow");
  if (!entry.current_deployment_id || !entry.enabled) {
    throw new AppError("FLOW_NOT_RUNNING", "the flow is not running: deploy it (and enable it) first");
  }
  const flow = { id: entry.flow_id };
  if (entry.target_device_id || entry.target_device_tag) {
    // A device flow (SPEC §22): the device's Node-RED sends it, through whichever instance holds its socket.
    const messageId = randomHex(8);
    const target = { id: flow.id, organizationId: entry.organization_id, targetDeviceId: entry.target_device_id, targetDeviceTag: entry.target_device_tag };
    const sent = await injectOnDevices(app, target, input.nodeId, messageId, { payload: input.payload, topic: input.topic });
    if (sent.length === 0) throw new AppError("FLOW_NOT_RUNNING", "none of the devices this flow targets is online");
    publishOrgEvent(app, principal.organizationId, "inject", flow.id, { node_id: input.nodeId, message_id: messageId, by: principal.userId });
    return { message_id: messageId, node_id: input.nodeId, flow_id: flow.id };
  }
  // Wherever the flow runs: on another instance the message is handed to it, and sent there once.
  // That instance also publishes the `inject` event, ahead of the debug events the message causes
  // and (with Redis) before this answers.
  const origin = { organizationId: principal.organizationId, by: principal.userId };
  const result = await app.flowRuntime.inject(flow.id, input.nodeId, { payload: input.payload, topic: input.topic }, origin);
  if (!result.ok) {
    if (result.reason === "not_deployed") throw new AppError("FLOW_NOT_RUNNING", "this inject node is not in the running version of the flow: deploy the flow first");
    if (result.reason === "busy") throw flowBusy(result.retryAfterSec, result.waiting);
    if (result.reason === "unavailable") throw new AppError("UNAVAILABLE", "the instance running this flow did not answer; the message may not have been sent");
    throw new AppError("FLOW_NOT_RUNNING", "the flow is not running: deploy it (and enable it) first");
  }
  void meta;
  return { message_id: result.messageId, node_id: input.nodeId, flow_id: flow.id };
}
