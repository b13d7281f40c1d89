import { Prisma, type Deployment, type Flow } from "../../generated/prisma/client";
import type { DeviceInMessage, FlowState, Message, NodeStatus } from "../runtime/types";
import { compileRoute, matchRoute, webhookError, webhookResponseFromWire, webhookResponseToWire, webhookRouteKey, type WebhookRequest, type WebhookResponse, type WireWebhookResponse } from "../runtime/webhooks";
import { SOCKET_ROUTE_METHOD, socketListenerPath } from "../runtime/socket-hooks";
import { AppError } from "../errors";
import { LocalFlowRuntime, type LocalRuntimeDeps } from "./local";
import { LeaseKeeper } from "./lease-keeper";
import { ClusterBus, DEFAULT_HANDLED_REQUEST_LIMITS, RpcTimeout, nodeChannel, type ClusterEvent } from "./cluster-bus";
import { PeerLink, acceptPeer } from "./peer-link";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { DeploymentSnapshot, FlowPlacement, FlowRuntime, FlowRuntimeStats, InjectOrigin, InjectResult, ReplayResult, SetActiveResult } from "./types";
import { groupKeeper, placementGroups, placementKeysOf } from "./placement-groups";

export interface ClusterTimings {
  /**
   * How long a lease lives without renewal: a killed instance's flows run elsewhere after at most
   * this long (the others take them at its expiry), and an instance that cannot renew (paused,
   * cut off from Redis) stops its flows after it.
   */
  leaseTtlMs: number;
  /**
   * How often leases and membership are renewed: a quarter of the TTL, so an instance survives a
   * stall (a long GC, a slow store) of up to three quarters of it without losing its flows.
   */
  renewMs: number;
  /** How often placement is reconsidered (the database read, fair share, dead holders). */
  tickMs: number;
  /**
   * How long a published webhook route lives without renewal. The holder renews its flows' routes
   * at the first tick after a third of it has passed, so a route left behind by an instance that
   * died (or lost its lease) is gone after this long.
   */
  routeTtlMs: number;
}

export const DEFAULT_CLUSTER_TIMINGS: ClusterTimings = { leaseTtlMs: 2_000, renewMs: 500, tickMs: 1_000, routeTtlMs: 30_000 };

/**
 * A takeover waits this long past the lease's expiry as Redis reported it: the timer starts after
 * the reply arrived, so the key is gone by then on Redis's own clock; this covers a timer that
 * fires a little early.
 */
export const TAKEOVER_MARGIN_MS = 25;

const leaseKey = (flowId: string) => `cluster:flow:${flowId}`;
const MEMBERS_KEY = "cluster:members";
const memberKey = (instanceId: string) => `cluster:member:${instanceId}`;
/** The organization's webhook routes with parameters (`get /hello/:name`), for instances that forward a request. */
const routePatternsKey = (slug: string) => `cluster:hookpatterns:${webhookRouteKey(slug, "", "").split(" ")[0]}`;

/** Which flow serves a webhook route: the holder writes it, other instances read it to forward a request. */
const routeKey = (slug: string, method: string, path: string) => `cluster:hook:${webhookRouteKey(slug, method, path)}`;
/**
 * A websocket listener's route is served by every flow using the listener (Node-RED: every
 * websocket-in on it gets every message): one key per flow, naming it (written and renewed by its
 * holder, as a route key), and the set of those flows, for the edge that fans a socket's events out.
 * Members are never removed: one whose key is gone is skipped.
 */
const socketFlowKey = (slug: string, path: string, flowId: string) => `cluster:wshook:${webhookRouteKey(slug, SOCKET_ROUTE_METHOD, path)} ${flowId}`;
const socketFlowsKey = (slug: string, path: string) => `cluster:wsflows:${webhookRouteKey(slug, SOCKET_ROUTE_METHOD, path)}`;

const RECONCILE_TIMEOUT_MS = 20_000;
const INJECT_TIMEOUT_MS = 5_000;
const STATUS_TIMEOUT_MS = 3_000;
/** The flow's own answer may take 30 s (WebhookRegistry); the hop adds a little. */
const WEBHOOK_TIMEOUT_MS = 32_000;

/** A link hop to another instance: its delivery is confirmed (or refused) within this, else the message is given up. */
const LINK_TIMEOUT_MS = 5_000;

interface LinkArgs {
  flowId: string;
  organizationId: string;
  nodeId: string;
  msg: Message;
  hops: number;
  /** Set for a link-out's reply to a link-call. */
  eventId?: string;
}

/**
 * How long a forwarding instance trusts what it last read of who holds a flow, or which flow serves
 * a webhook route, before it asks the store again. Only where to send: the holder checks its lease
 * (an inject) or answers from its own registry (a webhook), and a call that reached nobody or the
 * wrong instance is made again after a fresh read, so an answer is never stale, at worst a
 * retry later.
 */
const RECENT_MS = 1_000;
const RECENT_MAX = 10_000;

/** Recently read values with an age limit and a size bound (the oldest go first). */
class Recent {
  private readonly entries = new Map<string, { value: string; at: number }>();

  get(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (performance.now() - entry.at > RECENT_MS) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: string): void {
    this.entries.delete(key);
    if (this.entries.size >= RECENT_MAX) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, at: performance.now() });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Deployments whose placement keys are read in one query (only their configuration nodes are read). */
const KEYS_QUERY_CHUNK = 500;

/** How long an inject waits for a flow that should run but has no holder (between two holders). */
const HAND_OVER_WAIT_MS = 3_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Held {
  token: number;
  since: number;
  /** performance.now() until which the lease is proven: when the last successful renew was sent, plus the TTL. */
  validUntil: number;
  /** The lease keeper's slot when its worker renews this lease (then it proves it for longer), else null. */
  slot: number | null;
}

/** The route keys this instance published for a flow it holds (they name the flow). */
interface PublishedRoutes {
  keys: string[];
  /** performance.now() of the last successful write of all of them; 0: to be written at the next tick. */
  refreshedAt: number;
}

type OwnerReply<T> = { notOwner: true } | { notOwner?: false; value: T };

interface ReplayArgs {
  flowId: string;
  nodeId: string;
  message: Message;
  replayOf: string;
}

interface InjectArgs {
  flowId: string;
  nodeId: string;
  overrides: { payload?: unknown; topic?: string };
  /** Absent from an instance that published the event itself (before issue 26). */
  origin?: InjectOrigin;
}

interface WebhookArgs {
  slug: string;
  request: WebhookRequest;
  /** The flows the asker found running here (their leases): a start of theirs under way is waited for. Absent from older instances. */
  flowIds?: string[];
}

export interface ClusteredRuntimeDeps extends Omit<LocalRuntimeDeps, "fence"> {
  timings?: Partial<ClusterTimings>;
  /**
   * Requests to other instances straight over a connection to each (peer-link.ts): this instance's URL (null: it
   * cannot be reached, it only sends) and the key all instances sign them with. Without it every
   * request goes over Redis.
   */
  peer?: { url: string | null; key: Buffer };
}

/**
 * Several instances on one PostgreSQL and one Redis. Each deployed, enabled flow runs on the one
 * instance holding its lease in the store (a key with a TTL and a fencing token, see
 * KeyValueStore.leaseAcquire). Every tick an instance renews its membership and its leases, and
 * takes unheld flows up to its fair share, ceil(flows / live instances); one holding two or more
 * flows above the least loaded instance releases the difference's half, so a rolling restart
 * spreads out again. A flow whose lease is gone for two ticks is taken whatever the share (failover).
 *
 * Safety: an instance runs a flow only while it can prove its lease: its last successful renew was
 * sent less than the TTL ago (monotonic clock). The engine checks this before every send and
 * delivery (the fence), so an instance that was paused past its TTL sends nothing when it wakes,
 * and its tick stops its copy once the store says the lease is someone else's. A grant's token
 * changes with every grant, so a stale holder can neither renew nor release the new one.
 *
 * Calls made on any instance (apply, stop, inject, statuses, webhooks) go to the holder over the
 * store's pub/sub (ClusterBus); the holder re-reads the flow from the database, so a deploy or
 * rollback committed anywhere takes effect where the flow runs.
 */
export class ClusteredFlowRuntime implements FlowRuntime {
  readonly mode = "cluster" as const;
  readonly instanceId: string;
  private readonly local: LocalFlowRuntime;
  private readonly bus: ClusterBus;
  private readonly peers: PeerLink | null;
  /** Connections other instances opened to send their requests here (closed when this one stops). */
  private readonly peerSockets = new Set<Duplex>();
  private readonly timings: ClusterTimings;
  private readonly held = new Map<string, Held>();
  private readonly routes = new Map<string, PublishedRoutes>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Flows seen without a lease at the previous tick: taken at this one even above the fair share. */
  private orphansSeen = new Set<string>();
  /**
   * Flows whose holder looked dead (nobody listens on its channel any more: a killed process's
   * connection to Redis is closed at once): a timer set for its lease's expiry, then placed here
   * whatever the share. Only a hint for when to try; the lease decides (see scheduleTakeover).
   */
  private readonly takeovers = new Map<string, NodeJS.Timeout | null>();
  /** Flow id → the other instance that held it at the last read (forwarded calls). */
  private readonly recentHolders = new Recent();
  /** Webhook route key → the flow that served it at the last read. */
  private readonly recentRoutes = new Recent();
  /**
   * Deployment id → its placement keys (placement-groups.ts): a deployment never changes, so each
   * is read once; entries of deployments no longer current are dropped at each placement.
   */
  private readonly placementKeys = new Map<string, string[]>();
  private readonly takeoverDue = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  /** Renews the leases from a worker thread (lease-keeper.ts) when the store is a server (Redis); null in process. */
  private keeper: LeaseKeeper | null = null;
  private memberByKeeper = false;
  private renewing: Promise<void> | null = null;
  private ticking: Promise<void> | null = null;
  private tickAgain = false;
  /** Placement runs apart from the renewals: a slow database must never delay a lease renewal. */
  private placing: Promise<void> | null = null;
  private placeAgain = false;
  /** Route renewals run apart from the ticks too: a slow store must not delay the next lease renewal. */
  private refreshing: Promise<void> | null = null;
  private closing = false;

  constructor(private readonly deps: ClusteredRuntimeDeps) {
    this.instanceId = deps.instanceId;
    const tickMs = deps.timings?.tickMs ?? DEFAULT_CLUSTER_TIMINGS.tickMs;
    const leaseTtlMs = deps.timings?.leaseTtlMs ?? DEFAULT_CLUSTER_TIMINGS.leaseTtlMs;
    // Timings given without a renewal period renew at least every tick and four times per TTL.
    const renewMs = deps.timings?.renewMs ?? Math.min(tickMs, DEFAULT_CLUSTER_TIMINGS.renewMs, leaseTtlMs / 4);
    this.timings = { ...DEFAULT_CLUSTER_TIMINGS, ...deps.timings, tickMs, leaseTtlMs, renewMs };
    this.local = new LocalFlowRuntime({
      ...deps,
      fence: (flowId) => this.holds(flowId),
      remoteLinks: {
        deliver: (flowId, d) => this.forwardLink({ flowId, ...d }),
        reply: (flowId, r) => this.forwardLink({ flowId, ...r }),
      },
    });
    this.peers = deps.peer ? new PeerLink(deps.store, this.instanceId, deps.peer.url, deps.peer.key, deps.logger) : null;
    this.bus = new ClusterBus(deps.store, this.instanceId, deps.logger, (event) => this.onClusterEvent(event), DEFAULT_HANDLED_REQUEST_LIMITS, this.peers);
    this.bus.handle("reconcile", (args) => this.onReconcile(args as { flowId: string }));
    // Over Redis the reply follows the event's PUBLISH on the same connection; over the direct connection it must wait for Redis's acknowledgement.
    this.bus.handle("inject", (args, via) => this.onInject(args as InjectArgs, via === "bus" ? "sent" : "published"));
    this.bus.handle("statuses", (args) => this.onStatuses(args as { flowId: string }));
    this.bus.handle("webhook", (args) => this.onWebhook(args as WebhookArgs));
    this.bus.handle("link", (args) => this.onLink(args as LinkArgs));
    this.bus.handle("replay", (args) => this.onReplay(args as ReplayArgs));
    this.bus.handle("active", (args) => Promise.resolve(this.onSetActive(args as { flowId: string; nodeId: string; active: boolean })));
    this.bus.handle("adopt", (args) => this.onAdopt(args as { flowId: string }));
  }

  /**
   * A link message (to a link-in, or a reply to a link-call) for a flow that does not run here: sent
   * to the instance holding its lease, which delivers it into that flow's queue. False when the flow
   * runs nowhere, or its instance did not confirm in time (the message is then given up: a link-call
   * waiting for it times out, as Node-RED's does).
   */
  private async forwardLink(args: LinkArgs): Promise<boolean> {
    const lease = await this.deps.store.leaseGet(leaseKey(args.flowId));
    if (!lease) return false;
    if (lease.holder === this.instanceId) return this.onLink(args);
    try {
      return await this.bus.request<boolean>(lease.holder, "link", args, LINK_TIMEOUT_MS);
    } catch (err) {
      this.deps.logger.warn({ err, flowId: args.flowId, owner: lease.holder }, "a link message could not be handed to the flow's instance");
      return false;
    }
  }

  /** Where the flow runs: the message goes into its queue (the engine checks the node runs there, in that organization). */
  private async onLink({ flowId, organizationId, nodeId, msg, hops, eventId }: LinkArgs): Promise<boolean> {
    if (!this.holds(flowId)) return false;
    return eventId === undefined ? this.local.deliverLink(organizationId, nodeId, msg, hops) : this.local.returnLink(organizationId, nodeId, eventId, msg, hops);
  }

  /** Until when (performance.now()) the lease is proven: by the last renewal here or by the keeper's worker. */
  private provenUntil(held: Held): number {
    return held.slot === null || !this.keeper ? held.validUntil : Math.max(held.validUntil, this.keeper.validUntil(held.slot));
  }

  /** Forgets a lease this instance held (stopped, released or lost): its keeper slot is freed. */
  private forget(flowId: string): void {
    const held = this.held.get(flowId);
    if (!held) return;
    this.held.delete(flowId);
    if (held.slot !== null) this.keeper?.drop(held.slot);
  }

  /** The keeper's worker found a lease it renews held by someone else (or gone): the flow stops here. */
  private onLeaseLost(slot: number, token: number): void {
    for (const [flowId, held] of this.held) {
      if (held.slot !== slot || held.token !== token) continue;
      this.deps.logger.warn({ flowId }, "lease lost (expired, and another instance may hold it): flow stopped here");
      void this.withLock(flowId, () => this.evict(flowId, held));
      return;
    }
  }

  /** Whether this instance can prove its lease on the flow right now. */
  holds(flowId: string): boolean {
    const held = this.held.get(flowId);
    return held !== undefined && performance.now() < this.provenUntil(held);
  }

  /**
   * Whether a new message (an inject, a replay) may start here: the flow is held, and this instance
   * is not closing. A closing one is about to stop its flows (a message still in a flow's queue when
   * the flow stops is dropped, as on any stop), so it answers "not the holder" and the asker waits
   * for the next one as between any two holders; a message it took before closing has had the
   * close's store round trips to leave the queue. Not the fence: what already runs keeps running
   * until the flow stops.
   */
  private takesNewMessages(flowId: string): boolean {
    return !this.closing && this.holds(flowId);
  }

  /** Flows this instance holds (for tests and diagnostics). */
  heldFlowIds(): string[] {
    return [...this.held.keys()];
  }

  /**
   * Joins: subscribes, announces itself and runs the first tick. Never fails: if the store is not
   * reachable yet, every later tick tries again (an instance takes no flow before it can answer
   * for them on the bus). The ticks start at once, so a tick may join while this call still waits
   * for a slow store: both wait for the same subscription (ClusterBus.start), never two.
   */
  async start(): Promise<void> {
    this.timer = setInterval(() => void this.tick(), this.timings.tickMs);
    this.timer.unref();
    this.startRenewing();
    if (await this.joinBus()) {
      await this.heartbeat().catch(() => undefined);
      await this.bus.broadcast({ type: "joined", from: this.instanceId }).catch(() => undefined);
    }
    await this.tick();
    await this.placing;
    this.deps.logger.info({ instance: this.instanceId, flows: this.held.size, bus: this.bus.ready }, "joined the cluster");
  }

  /**
   * Renewals run whenever this instance may hold a lease: from start(), or from the first lease it
   * takes (an instance that places flows only when asked, as the tests' apps do, renews them too).
   * With a store server (Redis) the lease keeper's worker renews them off the main thread.
   */
  private startRenewing(): void {
    if (this.renewTimer || this.closing) return;
    const connection = this.deps.store.connectionInfo();
    if (connection) {
      this.keeper = new LeaseKeeper({
        connection,
        ttlMs: this.timings.leaseTtlMs,
        renewMs: this.timings.renewMs,
        // A main thread that has not turned for this long (hung, not busy) is left to lose its leases.
        stallMs: Math.max(10_000, 4 * this.timings.leaseTtlMs),
        logger: this.deps.logger,
        onLost: (slot, token) => this.onLeaseLost(slot, token),
      });
    }
    this.renewTimer = setInterval(() => void this.renew(), this.timings.renewMs);
    this.renewTimer.unref();
  }

  private async joinBus(): Promise<boolean> {
    if (this.bus.ready) return true;
    try {
      await this.bus.start();
      return true;
    } catch (err) {
      this.deps.logger.warn({ err }, "cluster channels could not be subscribed yet; retrying every tick");
      return false;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The interface: each call reaches the instance holding the flow.

  async apply(flow: Flow, _deployment: Deployment): Promise<FlowState> {
    return this.reconcileAnywhere(flow.id);
  }

  async setEnabled(flow: Flow, _enabled: boolean): Promise<FlowState> {
    return this.reconcileAnywhere(flow.id);
  }

  async stop(flowId: string): Promise<void> {
    await this.reconcileAnywhere(flowId);
  }

  async inject(flowId: string, nodeId: string, overrides: { payload?: unknown; topic?: string }, origin?: InjectOrigin): Promise<InjectResult> {
    const handOverDeadline = Date.now() + HAND_OVER_WAIT_MS;
    const args: InjectArgs = { flowId, nodeId, overrides, origin };
    let shouldRun: boolean | undefined;
    for (let attempt = 0; Date.now() < handOverDeadline + 1_000; attempt++) {
      if (attempt > 0) await sleep(Math.min(100 * attempt, 250));
      // Held here and provably so (the engine's own fence): no need to ask the store who holds it.
      if (this.holds(flowId)) {
        const reply = await this.onInject(args, "published");
        if (!reply.notOwner) return reply.value;
      }
      const recent = this.recentHolders.get(flowId);
      const holder = recent ?? (await this.deps.store.leaseGet(leaseKey(flowId)))?.holder;
      if (!holder) {
        // Between two holders (a hand-over or a rebalance): wait a moment for the next one.
        shouldRun ??= await this.shouldRun(flowId);
        if (shouldRun && Date.now() < handOverDeadline) continue;
        return { ok: false, reason: "not_running" };
      }
      if (holder === this.instanceId) {
        const reply = await this.onInject(args, "published");
        if (!reply.notOwner) return reply.value;
        continue;
      }
      this.recentHolders.set(flowId, holder);
      try {
        const reply = await this.bus.request<OwnerReply<InjectResult>>(holder, "inject", args, INJECT_TIMEOUT_MS);
        if (!reply.notOwner) return reply.value;
        this.recentHolders.delete(flowId);
      } catch (err) {
        this.recentHolders.delete(flowId);
        if (err instanceof RpcTimeout) {
          // Nobody listens on its channel: the message reached no one. Read the lease again if this
          // holder was only remembered; otherwise it is likely dead: be ready when its lease runs out.
          if (err.notListening && recent !== undefined) continue;
          if (err.notListening || err.targetGone) this.scheduleTakeover(flowId);
          return { ok: false, reason: "unavailable" };
        }
        throw err;
      }
    }
    return { ok: false, reason: "not_running" };
  }

  /** Switching a debug node goes where the flow runs, as replay does. */
  setActive(flowId: string, nodeId: string, active: boolean): Promise<SetActiveResult> {
    return this.atHolder(flowId, "active", { flowId, nodeId, active }, (args) => Promise.resolve(this.onSetActive(args)));
  }

  /** Replay goes where the flow runs, as inject does (without waiting out a hand-over: the caller may try again). */
  replay(flowId: string, nodeId: string, message: Message, replayOf: string): Promise<ReplayResult> {
    return this.atHolder(flowId, "replay", { flowId, nodeId, message, replayOf }, (args) => this.onReplay(args));
  }

  /**
   * A call made where the flow runs: here when this instance holds it, else on its holder over the
   * bus; a few tries while the lease moves, none waiting out a hand-over (the caller may try again).
   */
  private async atHolder<R extends { ok: boolean }, A extends { flowId: string }>(
    flowId: string,
    method: string,
    args: A,
    here: (args: A) => Promise<OwnerReply<R>>,
  ): Promise<R | { ok: false; reason: "not_running" | "unavailable" }> {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (attempt > 0) await sleep(100 * attempt);
      if (this.holds(flowId)) {
        const reply = await here(args);
        if (!reply.notOwner) return reply.value;
      }
      const lease = await this.deps.store.leaseGet(leaseKey(flowId));
      if (!lease) return { ok: false, reason: "not_running" };
      if (lease.holder === this.instanceId) continue;
      try {
        const reply = await this.bus.request<OwnerReply<R>>(lease.holder, method, args, INJECT_TIMEOUT_MS);
        if (!reply.notOwner) return reply.value;
      } catch (err) {
        if (err instanceof RpcTimeout) return { ok: false, reason: "unavailable" };
        throw err;
      }
    }
    return { ok: false, reason: "not_running" };
  }

  private async onReplay({ flowId, nodeId, message, replayOf }: ReplayArgs): Promise<OwnerReply<ReplayResult>> {
    const pending = this.locks.get(flowId);
    if (pending) await pending.catch(() => undefined);
    if (!this.takesNewMessages(flowId)) return { notOwner: true };
    // The holder answers once the execution is stored, so the instance that took the request reads it.
    return { value: await this.local.replay(flowId, nodeId, message, replayOf) };
  }

  async nodeStatuses(flowId: string): Promise<Map<string, NodeStatus | null>> {
    const lease = await this.deps.store.leaseGet(leaseKey(flowId));
    if (!lease) return new Map();
    if (lease.holder === this.instanceId) return this.local.nodeStatuses(flowId);
    try {
      const reply = await this.bus.request<OwnerReply<Array<[string, NodeStatus | null]>>>(lease.holder, "statuses", { flowId }, STATUS_TIMEOUT_MS);
      return new Map(reply.notOwner ? [] : reply.value);
    } catch (err) {
      this.deps.logger.warn({ err, flowId, owner: lease.holder }, "node statuses could not be read from the flow's instance");
      return new Map();
    }
  }

  async placement(flowId: string): Promise<FlowPlacement | null> {
    const lease = await this.deps.store.leaseGet(leaseKey(flowId));
    return lease ? { instanceId: lease.holder, since: new Date(lease.since) } : null;
  }

  async hasWebhook(organizationSlug: string, method: string, path: string, options?: { fresh?: boolean }): Promise<boolean> {
    if (await this.local.hasWebhook(organizationSlug, method, path)) return true;
    return (await this.remoteRoute(organizationSlug, method, path, { fresh: options?.fresh === true })) !== null;
  }

  /**
   * The published route that serves a request, and where its flow runs: the route of exactly this
   * path, else one with parameters (`/hello/:name`) that matches it, from the organization's set of
   * such routes (any that still has its key; their order across flows is not defined).
   */
  private async remoteRoute(slug: string, method: string, path: string, { fresh }: { fresh: boolean }): Promise<{ key: string; flowId: string; holder: string } | null> {
    const exact = routeKey(slug, method, path);
    const found = await this.webhookHolder(exact, { fresh });
    if (found) return { key: exact, ...found };
    const candidates = await this.deps.store.setMembers(routePatternsKey(slug));
    const lower = method.toLowerCase();
    for (const member of candidates) {
      const space = member.indexOf(" ");
      const pattern = member.slice(space + 1);
      if (member.slice(0, space) !== lower) continue;
      const compiled = compileRoute(pattern);
      if (!compiled || !matchRoute(compiled, path)) continue;
      const key = routeKey(slug, lower, pattern);
      const target = await this.webhookHolder(key, { fresh });
      if (target) return { key, ...target };
    }
    return null;
  }

  /**
   * The instance running the flow that serves a webhook route, as published by that instance:
   * the route key names the flow, its lease the instance. Remembered for a moment (RECENT_MS), so
   * the lookup made to answer 404 early and the forward itself, and the next requests, do not each
   * read both keys; `fresh` reads the store.
   */
  private async webhookHolder(key: string, { fresh }: { fresh: boolean }): Promise<{ flowId: string; holder: string } | null> {
    const flowId = (fresh ? undefined : this.recentRoutes.get(key)) ?? (await this.deps.store.get(key));
    if (flowId === null) return null;
    const holder = (fresh ? undefined : this.recentHolders.get(flowId)) ?? (await this.deps.store.leaseGet(leaseKey(flowId)))?.holder;
    if (!holder) {
      this.recentRoutes.delete(key);
      // A route key found while its flow runs nowhere: stale, or between two holders.
      await this.ageStaleRoute(key);
      return null;
    }
    this.recentRoutes.set(key, flowId);
    if (holder !== this.instanceId) this.recentHolders.set(flowId, holder);
    return { flowId, holder };
  }

  /**
   * A route key found while its flow runs nowhere: stale, or between two holders. Versions before
   * issue 28 wrote route keys without a TTL and never deleted them; such a key gets one here, so it
   * goes away even if no holder ever writes it again (a holder that does sets its own TTL anyway).
   */
  private async ageStaleRoute(key: string): Promise<void> {
    try {
      if ((await this.deps.store.ttl(key)) === null) await this.deps.store.expire(key, this.timings.routeTtlMs);
    } catch (err) {
      this.deps.logger.warn({ err }, "a stale webhook route could not be given a TTL");
    }
  }

  async liveInstances(ids: string[]): Promise<Set<string>> {
    const alive = await Promise.all(ids.map(async (id) => [id, id === this.instanceId || (await this.deps.store.get(memberKey(id))) !== null] as const));
    return new Set(alive.filter(([, live]) => live).map(([id]) => id));
  }

  /**
   * One event of a listener's socket, for every instance running a flow that uses the listener
   * (this one included): each instance's listener gives it to its own websocket-in nodes, so every
   * flow on the listener gets every message, as in Node-RED. The answer is the one to act on: busy
   * (429) or unreachable (503/504) anywhere, and the edge sends the event again (an instance that
   * took it already knows its `seq` and skips it); 200 when some instance took it; null when none
   * serves the path.
   */
  private async handleSocketEvent(slug: string, request: WebhookRequest): Promise<WebhookResponse | null> {
    const targets = await this.socketTargets(slug, request.path);
    // A flow whose lease this instance has just taken runs once its start is done.
    await this.startsSettled(targets.filter((t) => t.holder === this.instanceId).map((t) => t.flowId));
    const answers: Array<WebhookResponse | null> = [await this.local.handleWebhook(slug, request)];
    const holders = new Map<string, string[]>();
    for (const target of targets) if (target.holder !== this.instanceId) holders.set(target.holder, [...(holders.get(target.holder) ?? []), target.flowId]);
    if (holders.size === 0 && answers[0] === null) {
      // Published before listeners' routes were fanned out (an older instance's key): the one flow it names.
      const target = await this.remoteRoute(slug, request.method, request.path, { fresh: false });
      if (target && target.holder !== this.instanceId) holders.set(target.holder, [target.flowId]);
    }
    await Promise.all(
      [...holders].map(async ([holder, flowIds]) => {
        try {
          const reply = await this.bus.request<OwnerReply<WireWebhookResponse | null>>(holder, "webhook", { slug, request, flowIds } satisfies WebhookArgs, WEBHOOK_TIMEOUT_MS);
          answers.push(reply.notOwner ? null : webhookResponseFromWire(reply.value));
        } catch (err) {
          if (!(err instanceof RpcTimeout)) throw err;
          // An instance that is gone: its flows go on elsewhere (their listeners count this socket at its next frame).
          if (err.notListening || err.targetGone) {
            for (const flowId of flowIds) {
              this.scheduleTakeover(flowId);
              this.recentHolders.delete(flowId);
            }
            return;
          }
          answers.push(webhookError(new AppError("UNAVAILABLE", "the instance running this flow did not answer")));
        }
      }),
    );
    const given = answers.filter((a): a is WebhookResponse => a !== null);
    return given.find((a) => a.status === 429 || a.status === 503 || a.status === 504) ?? given.find((a) => a.status < 400) ?? given[0] ?? null;
  }

  /** The flows using a listener's path, where each runs (a flow whose key is gone, or that runs nowhere, is left out). */
  private async socketTargets(slug: string, path: string): Promise<Array<{ flowId: string; holder: string }>> {
    const flowIds = await this.deps.store.setMembers(socketFlowsKey(slug, path));
    const found = await Promise.all(flowIds.map((flowId) => this.webhookHolder(socketFlowKey(slug, path, flowId), { fresh: false })));
    return found.filter((t): t is { flowId: string; holder: string } => t !== null);
  }

  async handleWebhook(organizationSlug: string, request: WebhookRequest): Promise<WebhookResponse | null> {
    if (request.method === SOCKET_ROUTE_METHOD) return this.handleSocketEvent(organizationSlug, request);
    const here = await this.local.handleWebhook(organizationSlug, request);
    if (here) return here;
    // A route key outlives its flow by at most routeTtlMs (a holder that died): no lease, no
    // forwarding, 404. And the holder answers from its own registry, by slug, method and path: a
    // key naming a flow that no longer serves the route is a 404 too, never another flow's answer.
    // Once from what was read a moment ago; again from the store when that reached nobody, or an
    // instance that no longer serves the route (no flow saw the request either way).
    for (const fresh of [false, true]) {
      const target = await this.remoteRoute(organizationSlug, request.method, request.path, { fresh });
      if (!target) return null;
      if (target.holder === this.instanceId) {
        // The lease was taken here a moment ago and the flow is starting: it answers once started.
        if (!this.locks.has(target.flowId)) return null;
        await this.startsSettled([target.flowId]);
        return this.local.handleWebhook(organizationSlug, request);
      }
      const key = target.key;
      try {
        const reply = await this.bus.request<OwnerReply<WireWebhookResponse | null>>(target.holder, "webhook", { slug: organizationSlug, request, flowIds: [target.flowId] } satisfies WebhookArgs, WEBHOOK_TIMEOUT_MS);
        const response = reply.notOwner ? null : webhookResponseFromWire(reply.value);
        if (response !== null || fresh) return response;
      } catch (err) {
        if (!(err instanceof RpcTimeout)) throw err;
        if (!err.notListening || fresh) {
          if (err.notListening || err.targetGone) this.scheduleTakeover(target.flowId);
          return webhookError(new AppError("UNAVAILABLE", "the instance running this flow did not answer"));
        }
      }
      this.recentRoutes.delete(key);
      this.recentHolders.delete(target.flowId);
    }
    return null;
  }

  deviceMessage(organizationId: string, message: DeviceInMessage): void {
    // Device messages travel on the organization's pub/sub channel; only the holder's device-in nodes listen.
    this.local.deviceMessage(organizationId, message);
  }

  /**
   * Hands every flow over: leaves the membership, then for each flow stops it here and releases
   * its lease, and tells the others, who take them at once.
   */
  /** The flows this instance runs (those whose lease it holds): its local runtime's counts. */
  stats(): FlowRuntimeStats {
    return this.local.stats();
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearInterval(this.timer);
    clearInterval(this.renewTimer);
    // The worker stops refreshing the membership, which is withdrawn below, but keeps renewing the
    // leases until the flows are handed over: a hand-over slower than the lease's TTL must not fence
    // the messages still being delivered.
    this.keeper?.leave();
    for (const timer of this.takeovers.values()) if (timer) clearTimeout(timer);
    this.takeovers.clear();
    await this.ticking?.catch(() => undefined);
    await this.renewing?.catch(() => undefined);
    await this.placing?.catch(() => undefined);
    await this.refreshing?.catch(() => undefined);
    await Promise.all([
      this.deps.store.setRemove(MEMBERS_KEY, this.instanceId).catch(() => undefined),
      this.deps.store.del(memberKey(this.instanceId)).catch(() => undefined),
    ]);
    const released = [...this.held.keys()];
    await Promise.all(released.map((flowId) => this.withLock(flowId, () => this.release(flowId, false))));
    await this.bus.broadcast({ type: "left", from: this.instanceId }).catch(() => undefined);
    if (released.length > 0) await this.bus.broadcast({ type: "released", from: this.instanceId, flowIds: released }).catch(() => undefined);
    await this.local.close();
    await this.keeper?.close();
    await this.bus.close();
    await this.peers?.withdraw();
    this.peers?.close();
    for (const socket of this.peerSockets) socket.destroy();
  }

  /**
   * GET /_cluster/peer, upgraded: the connection another instance sends its requests for this one
   * over (peer-link.ts), signed with the cluster's key; each is answered as the same request over
   * Redis would be. Refused when this instance has no peer key or is stopping.
   */
  acceptPeer(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const key = this.deps.peer?.key;
    if (!key || this.closing) {
      socket.destroy();
      return;
    }
    const accepted = acceptPeer(req, socket, head, { key, instanceId: this.instanceId, handle: (text) => this.bus.receiveDirect(text), logger: this.deps.logger });
    if (!accepted) return;
    this.peerSockets.add(accepted);
    accepted.once("close", () => this.peerSockets.delete(accepted));
  }

  // ---------------------------------------------------------------------------------------------
  // Placement

  private withLock<T>(flowId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(flowId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(fn);
    this.locks.set(flowId, next);
    void next
      .finally(() => {
        if (this.locks.get(flowId) === next) this.locks.delete(flowId);
      })
      .catch(() => undefined);
    return next;
  }

  private onClusterEvent(event: ClusterEvent): void {
    // Flows changed hands: forwarded calls read the store again.
    this.recentHolders.clear();
    this.recentRoutes.clear();
    // Someone released flows or left: take them now rather than at the next tick.
    if (event.type === "released" || event.type === "left" || event.type === "joined") this.scheduleTick();
  }

  private scheduleTick(): void {
    if (this.closing) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    setImmediate(() => void this.tick());
  }

  private tick(): Promise<void> {
    if (this.closing) return Promise.resolve();
    if (this.ticking) {
      this.tickAgain = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      try {
        await this.renew();
        this.refreshing ??= this.refreshRoutes().finally(() => {
          this.refreshing = null;
        });
        // Requests for this instance's flows come over the bus: no placement before it listens.
        if (!(await this.joinBus())) return;
        await this.heartbeat().catch((err: unknown) => this.deps.logger.warn({ err }, "cluster membership could not be renewed"));
        this.schedulePlace();
      } catch (err) {
        this.deps.logger.warn({ err }, "cluster lease renewal failed");
      }
    })().finally(() => {
      this.ticking = null;
      if (this.tickAgain && !this.closing) {
        this.tickAgain = false;
        setImmediate(() => void this.tick());
      }
    });
    return this.ticking;
  }

  private schedulePlace(): void {
    if (this.closing) return;
    if (this.placing) {
      this.placeAgain = true;
      return;
    }
    this.placing = this.place()
      .catch((err: unknown) => this.deps.logger.warn({ err }, "cluster placement failed"))
      .finally(() => {
        this.placing = null;
        if (this.placeAgain && !this.closing) {
          this.placeAgain = false;
          this.schedulePlace();
        }
      });
  }

  /**
   * Renews the leases and, once this instance listens on the bus, its membership: every renewMs,
   * and at each tick (one renewal at a time; a call made meanwhile shares it).
   */
  private renew(): Promise<void> {
    if (this.closing) return Promise.resolve();
    this.renewing ??= (async () => {
      try {
        await this.renewAll();
        if (this.bus.ready) await this.heartbeat().catch((err: unknown) => this.deps.logger.warn({ err }, "cluster membership could not be renewed"));
      } finally {
        this.renewing = null;
      }
    })();
    return this.renewing;
  }

  /**
   * The holders among `holders` that nobody listens for any more (a killed process's connection to
   * Redis closes at once): their flows are taken at their leases' expiry, not at the next tick.
   */
  private async watchForDeadHolders(holders: ReadonlyArray<readonly [string, string | null]>): Promise<void> {
    const others = [...new Set(holders.map(([, holder]) => holder).filter((h): h is string => h !== null && h !== this.instanceId))];
    if (others.length === 0) return;
    const counts = await this.deps.store.listeners(others.map(nodeChannel));
    const gone = new Set(others.filter((_, i) => counts[i] === 0));
    if (gone.size === 0) return;
    for (const [flowId, holder] of holders) if (holder !== null && gone.has(holder)) this.scheduleTakeover(flowId);
  }

  /**
   * Places the flow here (whatever the share) right after its lease expires, as Redis reports its
   * remaining time. Never earlier: the lease decides, so this is only about when to try. A holder
   * that was merely cut off from Redis (no listener either) stops its copy when it can no longer
   * prove its lease, which is before the key expires (it measures from before its last renewal was
   * sent); a holder that renewed meanwhile keeps the flow (the acquire finds the lease held).
   */
  private scheduleTakeover(flowId: string): void {
    if (this.closing || this.takeovers.has(flowId) || this.held.has(flowId)) return;
    this.takeovers.set(flowId, null);
    this.deps.store.ttl(leaseKey(flowId)).then(
      (remainingMs) => {
        if (this.closing || this.takeovers.get(flowId) !== null) return;
        const timer = setTimeout(() => {
          this.takeovers.delete(flowId);
          this.takeoverDue.add(flowId);
          this.schedulePlace();
        }, (remainingMs ?? 0) + TAKEOVER_MARGIN_MS);
        timer.unref();
        this.takeovers.set(flowId, timer);
      },
      () => this.takeovers.delete(flowId),
    );
  }

  private async heartbeat(): Promise<void> {
    await this.deps.store.set(memberKey(this.instanceId), String(Date.now()), { ttlMs: this.timings.leaseTtlMs });
    await this.deps.store.setAdd(MEMBERS_KEY, this.instanceId);
    // Where the others reach this instance (written again every few minutes).
    await this.peers?.advertise().catch((err: unknown) => this.deps.logger.warn({ err }, "this instance's address could not be published; the others use Redis"));
    // The lease keeper's worker refreshes the membership with the leases from now on, so a main
    // thread busy for a moment is not counted out of the fair share (and its flows rebalanced away).
    if (!this.memberByKeeper && this.keeper?.active) {
      this.memberByKeeper = true;
      this.keeper.member(memberKey(this.instanceId), String(Date.now()));
    }
  }

  /** Live instances: members whose heartbeat has not expired (the dead are dropped from the set). */
  private async liveMembers(): Promise<string[]> {
    const members = await this.deps.store.setMembers(MEMBERS_KEY);
    const alive = await Promise.all(members.map(async (id) => [id, (await this.deps.store.get(memberKey(id))) !== null] as const));
    const dead = alive.filter(([, ok]) => !ok).map(([id]) => id);
    if (dead.length > 0) await this.deps.store.setRemove(MEMBERS_KEY, ...dead).catch(() => undefined);
    const live = alive.filter(([, ok]) => ok).map(([id]) => id);
    if (!this.closing && !live.includes(this.instanceId)) live.push(this.instanceId);
    return live;
  }

  private async renewAll(): Promise<void> {
    // Leases the keeper's worker renews are renewed here only when it falls behind (starting up,
    // starved of CPU, stopped): when less than half their TTL is left.
    const keeper = this.keeper?.active ? this.keeper : null;
    const now = performance.now();
    await Promise.all(
      [...this.held.entries()].map(async ([flowId, held]) => {
        if (keeper && held.slot !== null && keeper.validUntil(held.slot) - now > this.timings.leaseTtlMs / 2) return;
        const sentAt = performance.now();
        let renewed: boolean;
        try {
          renewed = await this.deps.store.leaseRenew(leaseKey(flowId), held.token, this.timings.leaseTtlMs);
        } catch (err) {
          // The store did not answer: keep trying while the lease is still proven, stop once it is not.
          if (performance.now() >= this.provenUntil(held) && this.held.get(flowId) === held) {
            this.deps.logger.warn({ err, flowId }, "lease could not be renewed before it expired: flow stopped here");
            await this.withLock(flowId, () => this.evict(flowId, held));
          }
          return;
        }
        if (this.held.get(flowId) !== held) return;
        if (renewed) {
          held.validUntil = Math.max(held.validUntil, sentAt + this.timings.leaseTtlMs);
        } else {
          this.deps.logger.warn({ flowId }, "lease lost (expired, and another instance may hold it): flow stopped here");
          await this.withLock(flowId, () => this.evict(flowId, held));
        }
      }),
    );
  }

  /** Stops the local copy of a flow whose lease is gone; nothing is written, the new holder runs it. */
  private async evict(flowId: string, held?: Held): Promise<void> {
    if (held && this.held.get(flowId) !== held) return;
    this.forget(flowId);
    // Its route keys stay: the lease may be another instance's now, whose keys name the same flow.
    // They expire (routeTtlMs) unless the next holder renews them.
    this.routes.delete(flowId);
    await this.local.evict(flowId);
  }

  /** Stops the flow here and gives its lease back (hand-over, rebalance or shutdown). */
  private async release(flowId: string, announce: boolean): Promise<void> {
    const held = this.held.get(flowId);
    if (!held) return;
    // The flow goes on elsewhere: its route keys (naming the same flow) stay for the next holder,
    // which writes them again; withdrawn here, webhooks sent through other instances would answer
    // 404 until it had. Nobody taking it over, they expire (routeTtlMs).
    this.routes.delete(flowId);
    this.forget(flowId);
    await this.local.evict(flowId);
    await this.deps.store.leaseRelease(leaseKey(flowId), held.token).catch((err: unknown) => {
      this.deps.logger.warn({ err, flowId }, "lease could not be released; it expires on its own");
    });
    if (announce) await this.bus.broadcast({ type: "released", from: this.instanceId, flowIds: [flowId] }).catch(() => undefined);
  }

  /** The flows that should run, each with its current deployment. */
  private async desiredFlows(): Promise<Map<string, string | null>> {
    const rows = await this.deps.prisma.flow.findMany({
      where: { deletedAt: null, enabled: true, currentDeploymentId: { not: null }, targetDeviceId: null, targetDeviceTag: null, organization: { deletedAt: null } },
      select: { id: true, currentDeploymentId: true },
    });
    return new Map(rows.map((r) => [r.id, r.currentDeploymentId]));
  }

  private async place(): Promise<void> {
    if (this.closing) return;
    const [wanted, members] = await Promise.all([this.desiredFlows(), this.liveMembers()]);
    const desired = [...wanted.keys()];
    // Flows held here that should not run any more (a stop whose message was missed), or that run
    // another deployment than the current one (a deploy or rollback whose message was missed: the
    // instance that committed it died before telling the holder).
    for (const flowId of [...this.held.keys()]) {
      if (!wanted.has(flowId) || this.local.appliedDeployment(flowId) !== wanted.get(flowId)) {
        await this.withLock(flowId, () => this.reconcileHere(flowId));
      }
    }
    const holders = await Promise.all(desired.map(async (flowId) => [flowId, (await this.deps.store.leaseGet(leaseKey(flowId)))?.holder ?? null] as const));
    await this.watchForDeadHolders(holders).catch((err: unknown) => this.deps.logger.warn({ err }, "cluster: dead holders could not be looked for"));
    // A takeover whose flow is held again (renewed, or taken by another instance) or gone is over.
    for (const flowId of this.takeoverDue) if (!wanted.has(flowId)) this.takeoverDue.delete(flowId);
    for (const [flowId, holder] of holders) if (holder !== null) this.takeoverDue.delete(flowId);
    const holderOf = new Map<string, string | null>(holders);
    const groups = await this.groupsOf(wanted);
    await this.consolidateGroups(groups, holderOf);
    const counts = new Map<string, number>(members.map((m) => [m, 0]));
    const unheld: string[] = [];
    for (const [flowId, holder] of holderOf) {
      if (holder === null) unheld.push(flowId);
      else counts.set(holder, (counts.get(holder) ?? 0) + 1);
    }
    const share = Math.ceil(desired.length / Math.max(1, members.length));
    let mine = this.held.size;
    const seen = new Set<string>();
    // What to take, one unit at a time: a flow of its own, or a placement group (its members go
    // together wherever one of them runs).
    const units: string[][] = [];
    const unitsSeen = new Set<string[]>();
    for (const flowId of shuffle(unheld)) {
      const group = groups.get(flowId);
      if (!group) units.push([flowId]);
      else if (!unitsSeen.has(group)) {
        unitsSeen.add(group);
        units.push(group);
      }
    }
    for (const unit of units) {
      if (this.closing) return;
      if (unit.length === 1 && !groups.has(unit[0]!)) {
        const flowId = unit[0]!;
        const takeover = this.takeoverDue.delete(flowId);
        if (mine >= share && !this.orphansSeen.has(flowId) && !takeover) {
          seen.add(flowId);
          continue;
        }
        const started = await this.withLock(flowId, () => this.acquireAndRun(flowId));
        if (started) mine++;
        else seen.add(flowId);
        continue;
      }
      const free = unit.filter((flowId) => holderOf.get(flowId) === null);
      const takeover = free.map((flowId) => this.takeoverDue.delete(flowId)).some(Boolean);
      // Another instance runs part of the group: it takes the rest itself.
      if (unit.some((flowId) => { const h = holderOf.get(flowId); return h !== null && h !== undefined && h !== this.instanceId; })) {
        for (const flowId of free) seen.add(flowId);
        continue;
      }
      const joining = unit.some((flowId) => this.held.has(flowId));
      if (!joining && mine >= share && !takeover && !free.some((flowId) => this.orphansSeen.has(flowId))) {
        for (const flowId of free) seen.add(flowId);
        continue;
      }
      // Members in order: when none runs, the first is taken first, so of several instances trying
      // at once one wins it and the others stop there (acquireAndRun checks the group either way).
      let placedHere = joining;
      for (const flowId of free) {
        if (this.closing) return;
        const started = !this.held.has(flowId) && (await this.withLock(flowId, () => this.acquireAndRun(flowId, unit)));
        if (started) {
          mine++;
          placedHere = true;
          continue;
        }
        seen.add(flowId);
        if (!placedHere) {
          for (const rest of free) seen.add(rest);
          break;
        }
      }
    }
    this.orphansSeen = seen;
    // Rebalance: give back half the difference to the least loaded live instance, a placement group
    // whole or not at all.
    const others = members.filter((m) => m !== this.instanceId).map((m) => counts.get(m) ?? 0);
    if (others.length > 0 && unheld.length === 0) {
      const least = Math.min(...others);
      const excess = Math.floor((mine - least) / 2);
      if (mine - least >= 2 && excess > 0) {
        const victims = this.rebalanceVictims(groups, excess);
        if (victims.length > 0) {
          this.deps.logger.info({ flows: victims.length, held: mine, least }, "handing flows over to balance the cluster");
          await Promise.all(victims.map((flowId) => this.withLock(flowId, () => this.release(flowId, false))));
          await this.bus.broadcast({ type: "released", from: this.instanceId, flowIds: victims }).catch(() => undefined);
        }
      }
    }
  }

  /**
   * The flows to hand over for a rebalance, at most `excess`: flows of their own first, then whole
   * placement groups, smallest first, each only if it fits (so a group is never split, and moving
   * it never leaves this instance below the one receiving it).
   */
  private rebalanceVictims(groups: ReadonlyMap<string, string[]>, excess: number): string[] {
    const units: string[][] = [];
    const seen = new Set<string[]>();
    for (const flowId of this.held.keys()) {
      const group = groups.get(flowId);
      if (!group) units.push([flowId]);
      else if (!seen.has(group)) {
        seen.add(group);
        units.push(group.filter((id) => this.held.has(id)));
      }
    }
    units.sort((a, b) => a.length - b.length);
    const victims: string[] = [];
    let left = excess;
    for (const unit of units) {
      if (unit.length > left) continue;
      victims.push(...unit);
      left -= unit.length;
    }
    return victims;
  }

  /**
   * A placement group held by several instances (two groups joined by a deploy: a flow now uses
   * both brokers) goes to one: the keeper (groupKeeper) keeps its flows, the others release theirs,
   * which the keeper then takes. Updates `holderOf` for what was released here.
   */
  private async consolidateGroups(groups: ReadonlyMap<string, string[]>, holderOf: Map<string, string | null>): Promise<void> {
    const released: string[] = [];
    for (const group of new Set(groups.values())) {
      const holders = group.map((flowId) => holderOf.get(flowId) ?? null);
      const distinct = new Set(holders.filter((h) => h !== null));
      if (distinct.size < 2 || !distinct.has(this.instanceId)) continue;
      const keeper = groupKeeper(holders);
      if (keeper === this.instanceId) continue;
      const mine = group.filter((flowId) => this.held.has(flowId));
      this.deps.logger.info({ flows: mine.length, keeper }, "handing flows over to the instance running their placement group");
      await Promise.all(mine.map((flowId) => this.withLock(flowId, () => this.release(flowId, false))));
      for (const flowId of mine) holderOf.set(flowId, null);
      released.push(...mine);
    }
    if (released.length > 0) await this.bus.broadcast({ type: "released", from: this.instanceId, flowIds: released }).catch(() => undefined);
  }

  /**
   * Takes the flow's lease if nobody holds it and runs its current deployment here. A flow of a
   * placement group (`group`, its members) runs only where none of the others runs elsewhere: read
   * after the lease is taken, so of two instances taking members of one group at once, at least one
   * sees the other's lease (each writes, then reads) and gives its own back before starting anything.
   */
  private async acquireAndRun(flowId: string, group?: readonly string[]): Promise<boolean> {
    if (this.closing || this.held.has(flowId)) return false;
    this.startRenewing();
    const sentAt = performance.now();
    const lease = await this.deps.store.leaseAcquire(leaseKey(flowId), this.instanceId, this.timings.leaseTtlMs);
    if (!lease) return false;
    if (group && group.length > 1) {
      const others = await Promise.all(group.filter((id) => id !== flowId).map(async (id) => (await this.deps.store.leaseGet(leaseKey(id)))?.holder ?? null)).catch(() => null);
      const elsewhere = others === null ? "unknown" : others.find((holder) => holder !== null && holder !== this.instanceId);
      if (elsewhere) {
        this.deps.logger.info({ flowId, with: elsewhere }, "flow not placed here: its placement group runs on another instance");
        await this.deps.store.leaseRelease(leaseKey(flowId), lease.token).catch(() => undefined);
        return false;
      }
    }
    const validUntil = sentAt + this.timings.leaseTtlMs;
    const slot = this.keeper?.active ? this.keeper.hold(leaseKey(flowId), lease.token, validUntil) : null;
    this.held.set(flowId, { token: lease.token, since: lease.since, validUntil, slot });
    try {
      const state = await this.reconcileHere(flowId);
      if (this.held.has(flowId)) this.deps.logger.info({ flowId, token: lease.token, state }, "flow placed here");
      return this.held.has(flowId);
    } catch (err) {
      this.deps.logger.error({ err, flowId }, "flow could not be started here; its lease is released");
      await this.release(flowId, false);
      return false;
    }
  }

  /**
   * Puts the flow's state in the database into effect here, where its lease is held: runs its
   * current deployment (again only if it changed), or stops it and releases the lease.
   */
  private async reconcileHere(flowId: string): Promise<FlowState> {
    const flow = await this.deps.prisma.flow.findUnique({ where: { id: flowId }, include: { organization: { select: { deletedAt: true, slug: true } } } });
    const deployment = flow?.currentDeploymentId ? await this.deps.prisma.deployment.findUnique({ where: { id: flow.currentDeploymentId } }) : null;
    const runs = flow && deployment && !flow.deletedAt && flow.enabled && !flow.organization.deletedAt && !flow.targetDeviceId && !flow.targetDeviceTag;
    if (!runs || !flow || !deployment) {
      if (flow && deployment && !flow.deletedAt && !flow.organization.deletedAt && !flow.targetDeviceId && !flow.targetDeviceTag) {
        // Disabled: stopped, and recorded as such.
        await this.local.apply(flow, deployment);
      } else {
        await this.local.stop(flowId);
      }
      const held = this.held.get(flowId);
      // The routes of the version that ran, wherever it ran: an instance that took the lease only to
      // stop the flow (it ran nowhere, between two holders) never published them itself.
      if (held) await this.withdrawRoutes(flowId, held, flow && deployment ? routeKeysOf(flow.organization.slug, deployment) : []);
      this.forget(flowId);
      if (held) await this.deps.store.leaseRelease(leaseKey(flowId), held.token).catch(() => undefined);
      return "stopped";
    }
    if (this.local.runningDeployment(flowId) === deployment.id) return "running";
    const state = await this.local.apply(flow, deployment);
    await this.publishRoutes(flow.organization.slug, flowId, deployment);
    return state;
  }

  /**
   * Where /hooks/{slug}/... requests for this flow's http-in nodes go, for instances that do not run
   * it: one key per route, naming the flow, with a TTL the holder renews (refreshRoutes). Written
   * when the holder starts a version (the newest start wins a route two flows share); the routes
   * the previous version served and this one does not are deleted, if they still name this flow.
   */
  private async publishRoutes(slug: string, flowId: string, deployment: Deployment): Promise<void> {
    const keys = routeKeysOf(slug, deployment);
    // The lease was lost while this version started (evict ran): nothing of it may be published.
    if (!this.held.has(flowId)) return;
    // Routes with parameters are also listed per organization, so another instance finds the one a
    // path matches. Members are never removed: one whose key is gone matches nothing.
    const patterns = routePatternsOf(deployment);
    if (patterns.length > 0) {
      await this.deps.store.setAdd(routePatternsKey(slug), ...patterns).catch((err: unknown) => {
        this.deps.logger.warn({ err, flowId }, "webhook route patterns could not be published; trying again at the next start");
      });
    }
    // Listeners' paths list the flows using them (their keys are among `keys`).
    for (const path of socketPathsOf(deployment)) {
      await this.deps.store.setAdd(socketFlowsKey(slug, path), flowId).catch((err: unknown) => {
        this.deps.logger.warn({ err, flowId }, "a websocket listener's flows could not be published; trying again at the next start");
      });
    }
    const before = this.routes.get(flowId)?.keys ?? [];
    const written = performance.now();
    const entry: PublishedRoutes = { keys, refreshedAt: 0 };
    this.routes.set(flowId, entry);
    const results = await Promise.all(
      keys.map((key) =>
        this.deps.store.set(key, flowId, { ttlMs: this.timings.routeTtlMs }).then(
          () => true,
          (err: unknown) => {
            this.deps.logger.warn({ err, flowId }, "webhook route could not be published; trying again at the next tick");
            return false;
          },
        ),
      ),
    );
    if (results.every(Boolean) && this.routes.get(flowId) === entry) entry.refreshedAt = written;
    await this.deleteRoutes(
      flowId,
      before.filter((key) => !keys.includes(key)),
    );
  }

  /** Deletes the flow's route keys (those that still name it) while its lease is proven, so no next holder's keys can be hit. */
  private async withdrawRoutes(flowId: string, held: Held, alsoKeys: string[] = []): Promise<void> {
    const published = this.routes.get(flowId);
    this.routes.delete(flowId);
    const keys = [...new Set([...(published?.keys ?? []), ...alsoKeys])];
    if (keys.length === 0 || performance.now() >= this.provenUntil(held)) return;
    await this.deleteRoutes(flowId, keys);
  }

  private async deleteRoutes(flowId: string, keys: string[]): Promise<void> {
    await Promise.all(
      keys.map((key) =>
        this.deps.store.delIfEqual(key, flowId).catch((err: unknown) => {
          this.deps.logger.warn({ err, flowId }, "webhook route could not be deleted; it expires on its own");
        }),
      ),
    );
  }

  /**
   * Renews the route keys of the flows held here, once a third of their TTL has passed: re-arms
   * keys that name the flow, writes back keys that are gone (a write that failed, or a route another
   * flow served until it stopped), and leaves alone keys another flow has taken since.
   */
  private async refreshRoutes(): Promise<void> {
    const due = performance.now() - this.timings.routeTtlMs / 3;
    await Promise.all(
      [...this.routes.entries()].map(async ([flowId, entry]) => {
        // A start or stop under way rewrites the routes itself; this one waits for the next tick.
        if (entry.refreshedAt > due || this.locks.has(flowId)) return;
        await this.withLock(flowId, async () => {
          if (this.routes.get(flowId) !== entry) return;
          // Not held any more: its keys expire by themselves; the entry goes.
          if (!this.held.has(flowId)) {
            this.routes.delete(flowId);
            return;
          }
          if (!this.holds(flowId)) return;
          const sentAt = performance.now();
          try {
            await Promise.all(entry.keys.map((key) => this.deps.store.setIfAbsentOrEqual(key, flowId, { ttlMs: this.timings.routeTtlMs })));
            entry.refreshedAt = sentAt;
          } catch (err) {
            this.deps.logger.warn({ err, flowId }, "webhook routes could not be renewed; trying again at the next tick");
          }
        });
      }),
    );
  }

  /** apply / setEnabled / stop, made on any instance: the holder (or, if none, this one) reconciles. */
  private async reconcileAnywhere(flowId: string): Promise<FlowState> {
    for (let attempt = 0; attempt < 5; attempt++) {
      if (attempt > 0) await sleep(100 * attempt);
      const lease = await this.deps.store.leaseGet(leaseKey(flowId));
      if (lease?.holder === this.instanceId) {
        const reply = await this.onReconcile({ flowId });
        if (!reply.notOwner) return reply.value;
        continue;
      }
      if (lease) {
        try {
          const reply = await this.bus.request<OwnerReply<FlowState>>(lease.holder, "reconcile", { flowId }, RECONCILE_TIMEOUT_MS);
          if (!reply.notOwner) return reply.value;
          continue;
        } catch (err) {
          if (!(err instanceof RpcTimeout)) throw err;
          // The holder is gone or paused: its lease runs out and the next holder starts from the database.
          this.deps.logger.warn({ flowId, owner: lease.holder }, "the flow's instance did not answer; the change takes effect when the flow is placed again");
          return this.expectedState(flowId);
        }
      }
      // Held by nobody: run it here when it should run, or where its placement group runs.
      if (await this.shouldRun(flowId)) {
        const group = await this.groupOf(flowId);
        const keeper = group ? await this.groupHolder(group) : null;
        if (keeper && keeper !== this.instanceId) {
          try {
            const reply = await this.bus.request<OwnerReply<FlowState>>(keeper, "adopt", { flowId }, RECONCILE_TIMEOUT_MS);
            if (!reply.notOwner) return reply.value;
            continue;
          } catch (err) {
            if (!(err instanceof RpcTimeout)) throw err;
            this.deps.logger.warn({ flowId, owner: keeper }, "the instance running the flow's placement group did not answer; the flow is placed with the group later");
            return this.expectedState(flowId);
          }
        }
        if (await this.withLock(flowId, () => this.acquireAndRun(flowId, group ?? undefined))) return this.local.placement(flowId).then((p) => (p ? "running" : "error"));
        continue;
      }
      const stopped = await this.deps.prisma.flow.updateManyAndReturn({
        where: { id: flowId, currentDeploymentId: { not: null } },
        data: { state: "stopped", stateError: null },
        select: { organizationId: true },
      });
      for (const { organizationId } of stopped) await this.deps.flowsChanged(organizationId);
      return "stopped";
    }
    return this.expectedState(flowId);
  }

  private async shouldRun(flowId: string): Promise<boolean> {
    const count = await this.deps.prisma.flow.count({
      where: { id: flowId, deletedAt: null, enabled: true, currentDeploymentId: { not: null }, targetDeviceId: null, targetDeviceTag: null, organization: { deletedAt: null } },
    });
    return count === 1;
  }

  private async expectedState(flowId: string): Promise<FlowState> {
    return (await this.shouldRun(flowId)) ? "running" : "stopped";
  }

  /** The placement group of the flow (its current deployment's, among the flows that run), or null when it has none. */
  private async groupOf(flowId: string): Promise<string[] | null> {
    const groups = await this.groupsOf(await this.desiredFlows());
    return groups.get(flowId) ?? null;
  }

  /** The instance keeping a placement group now (groupKeeper over its members' leases), or null when none runs. */
  private async groupHolder(group: readonly string[]): Promise<string | null> {
    const holders = await Promise.all(group.map(async (id) => (await this.deps.store.leaseGet(leaseKey(id)))?.holder ?? null));
    return groupKeeper(holders);
  }

  /**
   * The placement groups of the flows that run (flow id → current deployment id): each
   * deployment's keys from the configuration nodes it carries, read once per deployment.
   */
  private async groupsOf(wanted: ReadonlyMap<string, string | null>): Promise<Map<string, string[]>> {
    const current = new Set<string>();
    for (const deploymentId of wanted.values()) if (deploymentId) current.add(deploymentId);
    for (const deploymentId of this.placementKeys.keys()) if (!current.has(deploymentId)) this.placementKeys.delete(deploymentId);
    const missing = [...current].filter((id) => !this.placementKeys.has(id));
    for (let i = 0; i < missing.length; i += KEYS_QUERY_CHUNK) {
      const chunk = missing.slice(i, i + KEYS_QUERY_CHUNK);
      // Only the configuration nodes: a snapshot may be large, and no placement needs the rest of it.
      const rows = await this.deps.prisma.$queryRaw<Array<{ id: string; organization_id: string; config_nodes: DeploymentSnapshot["config_nodes"] | null }>>`
        SELECT id, organization_id, snapshot->'config_nodes' AS config_nodes FROM deployments WHERE id IN (${Prisma.join(chunk)})`;
      for (const row of rows) this.placementKeys.set(row.id, placementKeysOf(this.deps.nodes, row.organization_id, row.config_nodes));
    }
    const keysByFlow = new Map<string, string[]>();
    for (const [flowId, deploymentId] of wanted) {
      const keys = deploymentId ? this.placementKeys.get(deploymentId) : undefined;
      if (keys && keys.length > 0) keysByFlow.set(flowId, keys);
    }
    return placementGroups(keysByFlow);
  }

  // ---------------------------------------------------------------------------------------------
  // What the holder answers

  /**
   * A flow of a placement group this instance keeps, deployed or enabled through another instance:
   * placed here, with its group (or reconciled here, if it already runs here).
   */
  private async onAdopt({ flowId }: { flowId: string }): Promise<OwnerReply<FlowState>> {
    return this.withLock(flowId, async () => {
      if (this.held.has(flowId)) return { value: await this.reconcileHere(flowId) };
      if (!(await this.shouldRun(flowId))) return { notOwner: true as const };
      const group = await this.groupOf(flowId);
      if (!group || (await this.groupHolder(group)) !== this.instanceId) return { notOwner: true as const };
      if (!(await this.acquireAndRun(flowId, group))) return { notOwner: true as const };
      return { value: (await this.local.placement(flowId)) ? ("running" as const) : ("error" as const) };
    });
  }

  private async onReconcile({ flowId }: { flowId: string }): Promise<OwnerReply<FlowState>> {
    return this.withLock(flowId, async () => {
      if (!this.held.has(flowId)) return { notOwner: true as const };
      return { value: await this.reconcileHere(flowId) };
    });
  }

  /**
   * Sends the message here, where the flow runs, and publishes its `inject` event ahead of the
   * answer. The event leaves with this turn's batch (concurrent injects share one PUBLISH, and the
   * debug events the message causes at once usually join it). Made here, or forwarded over the direct connection
   * (`published`): the answer waits until Redis has acknowledged that PUBLISH. Forwarded over Redis
   * (`sent`): the reply waits only until the PUBLISH is issued; ClusterBus publishes the reply next
   * on the same Redis connection, and Redis runs one connection's commands in order, so the asking
   * instance cannot have the reply before the event is published, and no round trip is added.
   */
  private async onInject({ flowId, nodeId, overrides, origin }: InjectArgs, ack: "published" | "sent"): Promise<OwnerReply<InjectResult>> {
    // A start under way (lease just taken) finishes first.
    const pending = this.locks.get(flowId);
    if (pending) await pending.catch(() => undefined);
    if (!this.takesNewMessages(flowId)) return { notOwner: true };
    const result = this.local.injectNow(flowId, nodeId, overrides, origin);
    if (result.ok && origin) await (ack === "published" ? this.deps.events.published() : this.deps.events.sent());
    return { value: result };
  }

  private onSetActive({ flowId, nodeId, active }: { flowId: string; nodeId: string; active: boolean }): OwnerReply<SetActiveResult> {
    if (!this.held.has(flowId)) return { notOwner: true };
    return { value: this.local.setActiveNow(flowId, nodeId, active) };
  }

  private async onStatuses({ flowId }: { flowId: string }): Promise<OwnerReply<Array<[string, NodeStatus | null]>>> {
    if (!this.held.has(flowId)) return { notOwner: true };
    return { value: [...(await this.local.nodeStatuses(flowId)).entries()] };
  }

  private async onWebhook({ slug, request, flowIds }: WebhookArgs): Promise<OwnerReply<WireWebhookResponse | null>> {
    // The asker found this instance in the flows' leases: a start under way (lease just taken) finishes first.
    if (flowIds) await this.startsSettled(flowIds);
    return { value: webhookResponseToWire(await this.local.handleWebhook(slug, request)) };
  }

  /**
   * Waits for what is under way here for these flows (a start after the lease was taken, a stop).
   * A lease names its new holder before the flow runs there; a request that found the flow
   * through the lease in that moment is answered by the started flow, not refused.
   */
  private async startsSettled(flowIds: readonly string[]): Promise<void> {
    for (const flowId of flowIds) {
      const pending = this.locks.get(flowId);
      if (pending) await pending.catch(() => undefined);
    }
  }
}

/**
 * The route keys of a deployment: one per enabled http-in node (method and path), and one per
 * websocket-listener its enabled websocket in/out nodes use (SOCKET_ROUTE_METHOD and the listener's
 * path, SPEC §23: an instance accepts a socket where one is published), with the flow's own key of
 * that path (socketFlowKey): a socket's events go to the holders of every flow using the listener.
 */
function routeKeysOf(slug: string, deployment: Deployment): string[] {
  const snapshot = deployment.snapshot as unknown as DeploymentSnapshot;
  // http-in nodes inside subflow definitions listen too (every definition a snapshot carries is used).
  const nodes = [...snapshot.nodes, ...Object.values(snapshot.subflows ?? {}).flatMap((definition) => definition.nodes)].filter((n) => !(n as { disabled?: boolean }).disabled);
  const keys = nodes
    .filter((n) => n.type === "http-in")
    .map((n) => {
      const config = n.config as { method?: string; path?: string };
      return routeKey(slug, config.method ?? "get", config.path ?? "/hook");
    });
  for (const path of socketPathsOf(deployment)) keys.push(routeKey(slug, SOCKET_ROUTE_METHOD, path), socketFlowKey(slug, path, deployment.flowId));
  return [...new Set(keys)];
}

/** The paths of the websocket-listeners a deployment's enabled websocket in/out nodes use. */
function socketPathsOf(deployment: Deployment): string[] {
  const snapshot = deployment.snapshot as unknown as DeploymentSnapshot;
  const nodes = [...snapshot.nodes, ...Object.values(snapshot.subflows ?? {}).flatMap((definition) => definition.nodes)].filter((n) => !(n as { disabled?: boolean }).disabled);
  const paths = new Set<string>();
  for (const n of nodes) {
    if (n.type !== "websocket-in" && n.type !== "websocket-out") continue;
    const config = n.config as { server?: string; client?: string };
    // The client wins when both are set (Node-RED's rule): then no listener is used.
    if (config.client || !config.server) continue;
    const listener = snapshot.config_nodes?.[config.server];
    const path = listener?.type === "websocket-listener" ? (listener.config as { path?: unknown }).path : undefined;
    if (typeof path === "string" && path !== "") paths.add(socketListenerPath(path));
  }
  return [...paths];
}

/** The http-in routes of a deployment that have parameters, as `<method> <path>`. */
function routePatternsOf(deployment: Deployment): string[] {
  const snapshot = deployment.snapshot as unknown as DeploymentSnapshot;
  const nodes = [...snapshot.nodes, ...Object.values(snapshot.subflows ?? {}).flatMap((definition) => definition.nodes)];
  return [
    ...new Set(
      nodes
        .filter((n) => n.type === "http-in" && !(n as { disabled?: boolean }).disabled)
        .map((n) => n.config as { method?: string; path?: string })
        .filter((c) => compileRoute(c.path ?? "") !== null)
        .map((c) => `${(c.method ?? "get").toLowerCase()} ${c.path}`),
    ),
  ];
}

function shuffle<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
