import type { AppServices } from "../../app-services";
import type { ApiKeyPrincipal } from "../../auth/principal";
import type { Deployment, Device, Flow, Variable } from "../../../generated/prisma/client";
import type { AgentFrame, AgentServerFrame } from "../../../shared/agent-protocol";
import type { FlowNode, Connection } from "../../../shared/flow-graph";
import type { FlowGroup } from "../../../shared/subflows";
import type { ConfigNodeSnapshot } from "../../../shared/config-nodes";
import type { DeploymentSnapshot } from "../../flow-runtime/types";
import { agentsChannel, type AgentCommand } from "../../realtime/device-bus";
import { onlineDeviceKeyIds } from "../../realtime/devices";
import type { AgentDeps } from "../../realtime/devices";
import { configNodeToNodeRed, toNodeRed } from "../flows/node-red-mapping";
import { DeviceSubflows } from "./device-subflows";
import { openCredential } from "../config-nodes/credentials";
import { publishOrgEvent } from "../flows/events";
import { deviceConnected, flowsOfDevice, recordApplied, recordHello, recordRefused, targetDevices, type Refusals } from "./devices";
import { sealTo } from "./seal";
import { createHmac } from "node:crypto";
import { deriveKey } from "../../auth/crypto";

type DeployFrame = Extract<AgentServerFrame, { type: "agent.deploy" }>;

/** Node-RED's own structure in a flows.json, never a node type a device reports. */
const STRUCTURE = new Set(["tab", "subflow", "group"]);

/**
 * Node types `items` need that the device did not report. An agent's Node-RED given a flows.json
 * with a type it lacks starts none of its flows ("Waiting for missing types"), so such a flow is
 * never sent. A device that reported no types (none known yet) is not judged.
 */
export function missingTypes(device: Pick<Device, "nodeTypes">, items: ReadonlyArray<Record<string, unknown>>): string[] {
  if (device.nodeTypes.length === 0) return [];
  const has = new Set(device.nodeTypes);
  const missing = new Set<string>();
  for (const n of items) {
    const type = typeof n.type === "string" ? n.type : "";
    if (!type || STRUCTURE.has(type) || type.startsWith("subflow:") || has.has(type)) continue;
    missing.add(type);
  }
  return [...missing].sort();
}

function missingTypesError(missing: string[]): string {
  const list = missing.slice(0, 20).join(", ") + (missing.length > 20 ? ` and ${missing.length - 20} more` : "");
  return missing.length === 1
    ? `this device has no node type ${list}: install it in the device's Node-RED (npm install in its user directory) and restart the agent, or target another device`
    : `this device has no node types ${list}: install them in the device's Node-RED (npm install in its user directory) and restart the agent, or target another device`;
}

/**
 * What a device runs, as one `agent.deploy` frame: every deployed, enabled flow that targets it
 * (by id or by one of its tags), each from its current deployment's snapshot, in Node-RED's
 * flows.json format (our export mapping), with the configuration nodes the deployments carry.
 * Secrets (configuration nodes' credentials, secret variables) travel sealed to the agent's key;
 * without a key (an agent that never said hello) they are left out.
 *
 * A flow whose current deployment needs node types the device did not report (a flow for a tag
 * whose devices differ, a Dashboard node on a device without Dashboard) is refused for it: the
 * deployment it runs now stays, when it has one that it can run, and `refused` says why
 * (SPEC §22; the flow's device states show it).
 */
export async function deployFrameFor(app: AppServices, device: Device): Promise<{ frame: DeployFrame; refused: Refusals }> {
  const flows = await flowsOfDevice(app, device);
  const deployments: Record<string, string> = {};
  const refused: Refusals = {};
  const out: Array<Record<string, unknown>> = [];
  const credentials: Record<string, Record<string, string>> = {};
  const secretEnv: Record<string, Record<string, string>> = {};
  const plainEnv: Record<string, Array<{ name: string; value: string }>> = {};
  const configSeen = new Set<string>();
  const configNodes: ConfigNodeSnapshot[] = [];
  const variables = await app.db.prisma.variable.findMany({ where: { organizationId: device.organizationId }, orderBy: { name: "asc" } });
  const subflows = new DeviceSubflows(app.nodes);
  const running = device.applied as Record<string, string>;
  // A configuration node's credentials, opened once for every flow that uses it.
  const openedOf = new Map<string, Record<string, string>>();
  const opened = (c: ConfigNodeSnapshot): Record<string, string> => {
    // By its credentials too: two flows' deployments may carry two versions of one configuration node.
    const key = `${c.id}\n${JSON.stringify(c.sealed_credentials ?? {})}`;
    let creds = openedOf.get(key);
    if (!creds) openedOf.set(key, (creds = openCredentials(app, c, { log: true })));
    return creds;
  };
  for (const flow of flows) {
    // The organization's variables, then the flow's over them (as a hosted flow sees them).
    const env = new Map<string, { row: Variable; secret: boolean }>();
    for (const v of variables.filter((r) => r.flowId === null).concat(variables.filter((r) => r.flowId === flow.id))) env.set(v.name, { row: v, secret: v.secret });
    // The current deployment; refused, the one the device runs now (if it can run that one).
    const candidates = [...new Set([flow.currentDeploymentId!, ...(running[flow.id] ? [running[flow.id]!] : [])])];
    let chosen: { deployment: Deployment; snapshot: DeploymentSnapshot; named: Set<string> } | null = null;
    for (const id of candidates) {
      const deployment = await app.db.prisma.deployment.findFirst({ where: { id, flowId: flow.id } });
      if (!deployment) continue;
      const snapshot = deployment.snapshot as unknown as DeploymentSnapshot;
      const probe = new DeviceSubflows(app.nodes);
      const missing = missingTypes(device, [...flowItems(app, flow, snapshot, probe, []), ...probe.items, ...Object.values(snapshot.config_nodes ?? {}).map((c) => configNodeToNodeRed(app.nodes, c))]);
      const credentialsOf = Object.values(snapshot.config_nodes ?? {}).map(opened);
      const named = secretsNamed(snapshot, credentialsOf, [...env].filter(([, v]) => v.secret).map(([name]) => name));
      // Refused only for a real use of one (not a word in a comment): those are never sent anyway.
      const restrictedNames = [...named].filter((name) => env.get(name)!.row.allowedHosts.length > 0);
      const restricted = [...secretsReferenced(snapshot, credentialsOf, restrictedNames)].sort();
      for (const name of restrictedNames) named.delete(name);
      if (missing.length === 0 && restricted.length === 0) {
        chosen = { deployment, snapshot, named };
        break;
      }
      if (id === flow.currentDeploymentId) refused[flow.id] = { deployment_id: id, error: missing.length > 0 ? missingTypesError(missing) : restrictedSecretsError(restricted, env) };
    }
    if (!chosen) continue;
    const { deployment, snapshot, named } = chosen;
    deployments[flow.id] = deployment.id;
    // Plain variables all (a function's env.get may read any), secrets only those the flow names:
    // a device's Node-RED hands a secret to any node that asks, so it holds no more than it uses.
    const plain = [...env].filter(([, v]) => !v.secret).map(([name, v]) => ({ name, value: v.row.value ?? "", type: "str" }));
    plainEnv[flow.id] = plain;
    const secrets = Object.fromEntries([...env].filter(([name, v]) => v.secret && named.has(name)).map(([name, v]) => [name, openSecret(app, v.row)]));
    if (Object.keys(secrets).length > 0) secretEnv[flow.id] = secrets;
    out.push(...flowItems(app, flow, snapshot, subflows, plain));
    for (const c of Object.values(snapshot.config_nodes ?? {})) {
      if (configSeen.has(c.id)) continue;
      configSeen.add(c.id);
      configNodes.push(c);
      const creds = opened(c);
      if (Object.keys(creds).length > 0) credentials[c.id] = creds;
    }
  }
  // Every flow's configuration nodes in the organization's order of creation, as Node-RED starts
  // them (Dashboard 2.0 orders groups and pages of one order so); those without one, by id, after.
  const seq = (c: ConfigNodeSnapshot) => c.seq ?? Number.MAX_SAFE_INTEGER;
  out.push(...configNodes.sort((a, b) => seq(a) - seq(b) || (a.id < b.id ? -1 : 1)).map((c) => configNodeToNodeRed(app.nodes, c)));
  out.push(...subflows.items);
  const hasSecrets = Object.keys(credentials).length > 0 || Object.keys(secretEnv).length > 0;
  const sealed = hasSecrets && device.publicKey ? sealTo(device.publicKey, JSON.stringify({ credentials, env: secretEnv })) : null;
  // The values the frame gives its deployments (variables, credentials), as a keyed digest: the agent
  // keeps it with what it applied and says it in its hello, so a device that was away when a
  // variable changed (same deployments, new values) is sent its flows again. Not the flows
  // themselves: the deployments name those, and a release that writes them differently (or a
  // renamed tab) must not restart every device's flows at its next reconnect.
  const revision = createHmac("sha256", deriveKey(app.config.secrets.encryptionKey, "device-revision-v1"))
    .update(JSON.stringify({ deployments, plain: plainEnv, credentials, env: secretEnv }))
    .digest("base64url");
  return { frame: { type: "agent.deploy", deployments, flows: out, sealed, revision }, refused };
}

/** A flow's tab and nodes in Node-RED's format; the subflow definitions its instances use go to `subflows` (written once for the device). */
function flowItems(app: AppServices, flow: Flow, snapshot: DeploymentSnapshot, subflows: DeviceSubflows, env: Array<{ name: string; value: string; type: string }>) {
  const { nodes, portsOf } = subflows.add(flow.id, snapshot.nodes as FlowNode[], snapshot.subflows);
  return toNodeRed(
    app.nodes,
    { id: flow.id, name: flow.name, description: flow.description, enabled: true, nodes, connections: snapshot.connections as Connection[], groups: (snapshot.groups ?? []) as FlowGroup[] },
    env,
    portsOf,
  );
}

/**
 * The secrets among `names` that a deployment names: `${NAME}` in a property, `env.get("NAME")` in
 * a function, `$env('NAME')` in JSONata, an env-typed field holding `NAME`: the name as a whole
 * word anywhere in its nodes, subflows and configuration nodes (their credentials included, which
 * may hold `${NAME}`). Whatever a device does not name it does not get.
 */
export function secretsNamed(snapshot: NamingParts, credentials: ReadonlyArray<Record<string, string>>, names: readonly string[]): Set<string> {
  if (names.length === 0) return new Set();
  const text = namingText(snapshot, credentials);
  // Variable names are `[A-Z_][A-Z0-9_]*` (SPEC §14): nothing in them needs escaping.
  return new Set(names.filter((name) => new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`).test(text)));
}

type NamingParts = Pick<DeploymentSnapshot, "nodes" | "subflows" | "config_nodes" | "groups">;

/** Everything of a deployment a name can be used in: nodes, subflow definitions, configuration nodes, groups (their env), opened credentials. */
function namingText(snapshot: NamingParts, credentials: ReadonlyArray<Record<string, string>>): string {
  return JSON.stringify([snapshot.nodes, snapshot.subflows ?? {}, snapshot.config_nodes ?? {}, snapshot.groups ?? [], credentials]);
}

/**
 * The names among `names` a deployment may use as a variable: named as a whole word in what can
 * use one (`${NAME}`, `$(NAME)`, `env.get("NAME")`, `$env('NAME')`, `{{env.NAME}}`, an env-typed
 * field, `$parent.NAME`, …), leaving out what cannot: node, group and configuration node names,
 * descriptions, and comment nodes. What refuses a deployment for a device: a comment that says
 * "TOKEN is used hosted only" does not, a function that builds the name from parts is not seen.
 */
export function secretsReferenced(snapshot: NamingParts, credentials: ReadonlyArray<Record<string, string>>, names: readonly string[]): Set<string> {
  if (names.length === 0) return new Set();
  const usable = (items: unknown): unknown =>
    Array.isArray(items)
      ? items.filter((n) => !(n && typeof n === "object" && (n as { type?: unknown }).type === "comment")).map((n) => (n && typeof n === "object" ? withoutProse(n as Record<string, unknown>) : n))
      : items;
  const subflows = Object.fromEntries(Object.entries(snapshot.subflows ?? {}).map(([id, d]) => [id, { ...(d as object), nodes: usable((d as { nodes?: unknown }).nodes) }]));
  const configNodes = Object.fromEntries(Object.entries(snapshot.config_nodes ?? {}).map(([id, c]) => [id, withoutProse(c as unknown as Record<string, unknown>)]));
  const text = JSON.stringify([usable(snapshot.nodes), subflows, configNodes, usable(snapshot.groups ?? []), credentials]);
  return new Set(names.filter((name) => new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`).test(text)));
}

/** A node, group or configuration node without its name and description (prose, not a use). */
function withoutProse(item: Record<string, unknown>): Record<string, unknown> {
  const { name: _name, description: _description, ...rest } = item;
  return rest;
}

/** Why a deployment naming secrets that carry allowed_hosts is not sent to a device (SPEC §14: only a request to those hosts gets them, which a device's Node-RED cannot promise). */
function restrictedSecretsError(names: string[], env: ReadonlyMap<string, { row: Variable }>): string {
  const each = names.slice(0, 5).map((name) => `${name} (${env.get(name)!.row.allowedHosts.join(", ")})`).join(", ") + (names.length > 5 ? ` and ${names.length - 5} more` : "");
  return `${names.length === 1 ? "the secret" : "the secrets"} ${each} may be sent only to ${names.length === 1 ? "its" : "their"} allowed hosts, which a device cannot promise: they are never sent to one. Use a secret without allowed hosts for this flow, or run it hosted`;
}

function openSecret(app: AppServices, row: { valueEncrypted: string | null; keyId: string | null; name: string }): string {
  if (!row.valueEncrypted || !row.keyId) return "";
  try {
    return app.config.keys.variables.open(row.valueEncrypted, row.keyId);
  } catch {
    app.logger.warn({ variable: row.name }, "a secret could not be opened for a device; it reads as empty there");
    return "";
  }
}

/** Asks whichever instance holds the device's socket to send it what it should run now. */
export async function requestDeploy(app: AppServices, devices: Device[]): Promise<void> {
  for (const d of devices) {
    const command: AgentCommand = { key_id: d.keyId, deploy: true };
    await app.store.publish(agentsChannel(d.organizationId), JSON.stringify(command));
  }
}

/**
 * Tells the devices the flow concerns to take what they should run now: those its target names,
 * and those that said they run it (after a change of target, a disable or a delete, they drop it).
 */
export async function refreshDevicesOf(app: AppServices, flow: Pick<Flow, "id" | "organizationId" | "targetDeviceId" | "targetDeviceTag">): Promise<void> {
  const targeted = await targetDevices(app, flow.organizationId, flow);
  const agents = await app.db.prisma.device.findMany({ where: { organizationId: flow.organizationId, kind: "agent", key: { revokedAt: null } } });
  const running = agents.filter((d) => Object.hasOwn(d.applied as Record<string, string>, flow.id));
  await requestDeploy(app, [...new Map([...targeted, ...running].map((d) => [d.id, d])).values()]);
}

/**
 * After a variable changed (SPEC §14: a changed value reaches running flows without a redeploy):
 * the organization's agents whose flows name it (in the deployment they should run or the one they
 * run) take their flows again, with the new value, or without it when it is gone or now has
 * allowed hosts. Devices whose flows do not name it are left alone: their Node-RED would restart
 * every flow for nothing. `flowId`: a flow's own variable, which only that flow sees.
 */
export async function refreshDevicesNaming(app: AppServices, organizationId: string, name: string, flowId: string | null): Promise<void> {
  const agents = await app.db.prisma.device.findMany({ where: { organizationId, kind: "agent", key: { revokedAt: null } } });
  const naming = new Map<string, boolean>();
  const names = async (deploymentId: string, flow: string) => {
    let found = naming.get(deploymentId);
    if (found === undefined) {
      const deployment = await app.db.prisma.deployment.findFirst({ where: { id: deploymentId, flowId: flow }, select: { snapshot: true } });
      const snapshot = deployment?.snapshot as unknown as DeploymentSnapshot | undefined;
      found = snapshot ? secretsNamed(snapshot, Object.values(snapshot.config_nodes ?? {}).map((c) => openCredentials(app, c, { log: false })), [name]).size > 0 : false;
      naming.set(deploymentId, found);
    }
    return found;
  };
  if (agents.length === 0) return;
  // The organization's enabled, deployed flows that target a device, read once (flowsOfDevice's filter, for every agent).
  const deviceFlows = await app.db.prisma.flow.findMany({
    where: { organizationId, deletedAt: null, enabled: true, currentDeploymentId: { not: null }, OR: [{ targetDeviceId: { not: null } }, { targetDeviceTag: { not: null } }], ...(flowId ? { id: flowId } : {}) },
  });
  const due: Device[] = [];
  for (const device of agents) {
    const applied = device.applied as Record<string, string>;
    const flows = deviceFlows.filter((f) => f.targetDeviceId === device.id || (f.targetDeviceTag !== null && device.tags.includes(f.targetDeviceTag)));
    const ids = (f: Flow) => [...new Set([f.currentDeploymentId!, ...(applied[f.id] ? [applied[f.id]!] : [])])];
    if (await anyAsync(flows.flatMap((f) => ids(f).map((id) => () => names(id, f.id))))) due.push(device);
  }
  await requestDeploy(app, due);
}

/** Whether any of the checks is true, each run only while none was (in order). */
async function anyAsync(checks: Array<() => Promise<boolean>>): Promise<boolean> {
  for (const check of checks) if (await check()) return true;
  return false;
}

/** A configuration node's credentials, opened; one that cannot be opened is left out (and logged, where a frame is built). */
function openCredentials(app: AppServices, c: ConfigNodeSnapshot, options: { log: boolean }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, sealed] of Object.entries(c.sealed_credentials ?? {})) {
    try {
      out[name] = openCredential(app.config.keys.variables, sealed);
    } catch (err) {
      if (options.log) app.logger.warn({ err: (err as Error).message, configNode: c.id }, "a credential could not be opened for a device; it is left out");
    }
  }
  return out;
}

/** Sends an inject to the online devices running the flow (through whichever instance holds each socket); returns their ids. */
export async function injectOnDevices(
  app: AppServices,
  flow: Pick<Flow, "id" | "organizationId" | "targetDeviceId" | "targetDeviceTag">,
  nodeId: string,
  messageId: string,
  overrides: { payload?: unknown; topic?: string },
): Promise<string[]> {
  const online = new Set((await onlineDeviceKeyIds(app.store, flow.organizationId)).map((o) => o.keyId));
  const devices = (await targetDevices(app, flow.organizationId, flow)).filter((d) => online.has(d.keyId));
  for (const d of devices) {
    const frame: AgentServerFrame = { type: "agent.inject", flow_id: flow.id, node_id: nodeId, message_id: messageId, ...overrides };
    const command: AgentCommand = { key_id: d.keyId, frame };
    await app.store.publish(agentsChannel(d.organizationId), JSON.stringify(command));
  }
  return devices.map((d) => d.id);
}

/** Switches a debug node of a device flow on the flow's online devices; the ids of the devices it was sent to. */
export async function setActiveOnDevices(app: AppServices, flow: Pick<Flow, "id" | "organizationId" | "targetDeviceId" | "targetDeviceTag">, nodeId: string | readonly string[], active: boolean): Promise<string[]> {
  const online = new Set((await onlineDeviceKeyIds(app.store, flow.organizationId)).map((o) => o.keyId));
  const devices = (await targetDevices(app, flow.organizationId, flow)).filter((d) => online.has(d.keyId));
  // Several nodes (every debug node of the flow): the devices are found once, each told of each node.
  for (const id of typeof nodeId === "string" ? [nodeId] : nodeId) {
    for (const d of devices) {
      const command: AgentCommand = { key_id: d.keyId, frame: { type: "agent.active", flow_id: flow.id, node_id: id, active } };
      await app.store.publish(agentsChannel(d.organizationId), JSON.stringify(command));
    }
  }
  return devices.map((d) => d.id);
}

/**
 * Waits (at most `timeoutMs`) until every one of `devices` says it runs `deploymentId` for the flow,
 * or cannot; returns the ids of those that do not run it. Read from the database, which every instance writes, so
 * it does not matter which instance the device talks to.
 */
export async function waitForApplied(app: AppServices, flowId: string, deploymentId: string, devices: Device[], timeoutMs: number): Promise<string[]> {
  let pending = devices.map((d) => d.id);
  const refusedHere = new Set<string>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await app.db.prisma.device.findMany({ where: { id: { in: pending } }, select: { id: true, applied: true, refused: true } });
    const done = new Set(rows.filter((r) => (r.applied as Record<string, string>)[flowId] === deploymentId).map((r) => r.id));
    // A device that said it cannot run it is not waited for (it stays pending, with its reason in the flow's device states).
    for (const r of rows) if ((r.refused as Refusals)[flowId]?.deployment_id === deploymentId) refusedHere.add(r.id);
    pending = pending.filter((id) => !done.has(id) && !refusedHere.has(id));
    if (pending.length === 0 || Date.now() >= deadline) return [...pending, ...refusedHere];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Is the flow one this device runs (of its organization, naming it or one of its tags)? */
async function deviceRunsFlow(app: AppServices, device: Device, flowId: string): Promise<boolean> {
  const flow = await app.db.prisma.flow.findFirst({ where: { id: flowId, organizationId: device.organizationId, deletedAt: null }, select: { targetDeviceId: true, targetDeviceTag: true } });
  if (!flow) return false;
  return flow.targetDeviceId === device.id || (flow.targetDeviceTag !== null && device.tags.includes(flow.targetDeviceTag));
}

/**
 * What the hub needs of the devices service for agent sockets (realtime/devices.ts): the device
 * recorded on connect and hello, the deployment to send, applied deployments, events published
 * for the organization with `device_id` and the organization's secrets redacted.
 */
export function agentDeps(app: AppServices): AgentDeps {
  const deviceOf = (principal: ApiKeyPrincipal) => app.db.prisma.device.findUnique({ where: { keyId: principal.keyId } });
  return {
    logger: app.logger,
    async connected(principal) {
      await deviceConnected(app, principal);
    },
    async hello(principal, hello) {
      const device = await recordHello(app, principal, hello);
      const { frame, refused } = await deployFrameFor(app, device);
      await recordRefused(app, device, refused);
      // Already running exactly this (the same deployments, and the same values when the agent says
      // which frame it applied; one before revisions is judged by its deployments): nothing to send.
      const same =
        Object.keys(frame.deployments).length === Object.keys(hello.applied).length &&
        Object.entries(frame.deployments).every(([f, d]) => hello.applied[f] === d) &&
        (hello.revision === undefined || hello.revision === frame.revision);
      return same ? null : frame;
    },
    async deployment(organizationId, keyId) {
      const device = await app.db.prisma.device.findUnique({ where: { keyId } });
      if (!device || device.organizationId !== organizationId) return null;
      const { frame, refused } = await deployFrameFor(app, device);
      await recordRefused(app, device, refused);
      return frame;
    },
    async applied(principal, applied, raw, failed) {
      // Node-RED's words may quote a value it was given: the organization's secrets leave as "***", as in agent.error.
      const error = raw === undefined ? undefined : (await app.variables.ensure(principal.organizationId)).redactText(raw);
      const device = await recordApplied(app, principal, applied, error, failed);
      if (device && error) app.logger.warn({ deviceId: device.id, error }, "a device could not apply its deployment");
    },
    async event(principal, frame: Exclude<AgentFrame, { type: "agent.hello" | "agent.applied" }>) {
      const device = await deviceOf(principal);
      if (!device || device.organizationId !== principal.organizationId || !(await deviceRunsFlow(app, device, frame.flow_id))) return false;
      const redactor = await app.variables.ensure(device.organizationId);
      const options = { deviceId: device.id };
      const org = device.organizationId;
      if (frame.type === "agent.debug") {
        publishOrgEvent(
          app,
          org,
          "debug",
          frame.flow_id,
          {
            node_id: frame.node_id,
            name: redactor.redactText(frame.name),
            property: frame.property,
            msg: redactor.redact(frame.msg),
            format: frame.format,
            ...(frame.topic !== undefined ? { topic: redactor.redactText(frame.topic) } : {}),
            ...(frame.subflow ? { subflow: frame.subflow } : {}),
          },
          options,
        );
      } else if (frame.type === "agent.status") {
        const status = frame.status ? { ...frame.status, ...(frame.status.text !== undefined ? { text: redactor.redactText(frame.status.text) } : {}) } : null;
        publishOrgEvent(app, org, "node.status", frame.flow_id, { node_id: frame.node_id, status }, options);
      } else {
        publishOrgEvent(app, org, "node.status", frame.flow_id, { node_id: frame.node_id, status: { fill: "red", shape: "ring", text: "error" }, error: redactor.redactText(frame.message) }, options);
      }
      return true;
    },
  };
}
