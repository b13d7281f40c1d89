/**
 * Dashboards across instances (SPEC §21), through the store's pub/sub, as device traffic goes
 * (realtime/device-bus.ts):
 *
 * - `org:<id>:dashboard:out`: what widget nodes show (`dashboard.update`) and ui-control's
 *   actions (`dashboard.control`), published by the instance running the widget's flow; every
 *   instance with viewers of the organization listens and forwards to the sockets whose page holds
 *   the widget (or to the one socket a message names).
 * - `org:<id>:dashboard:in`: what viewers send (inputs, page events), published by the instance
 *   holding the viewer's socket; only the instance running the widget's flow has a handler for it.
 * - `dashboard:shares:revoked`: a revoked share link's id; every instance closes its sockets.
 *
 * It is also the runtime's `RuntimeServices.dashboards` (emit, control, onInput, readState), with
 * the widgets' durable state written behind by `DashboardStateStore`.
 */
import type { KeyValueStore } from "../store";
import { durableSubscription, type DurableSubscription } from "../store/durable-subscription";
import { OrgListeners } from "../store/org-listeners";
import type { Logger } from "../logger";
import type { DashboardClientRef, DashboardInput, DashboardRuntime } from "../runtime/types";
import type { DashboardStateStore } from "../persistence/dashboard-state";

export const dashboardOutChannel = (organizationId: string) => `org:${organizationId}:dashboard:out`;
export const dashboardInChannel = (organizationId: string) => `org:${organizationId}:dashboard:in`;
export const DASHBOARD_SHARES_REVOKED_CHANNEL = "dashboard:shares:revoked";

/** One message on an organization's out channel. */
export interface DashboardOut {
  kind: "update" | "control";
  widget_id: string;
  msg: Record<string, unknown>;
  /** The widget's state after the message (updates to every viewer only). */
  state?: unknown;
  /** Only this socket gets it. */
  socket_id?: string;
  /** With socket_id: the state the widget would have, kept for that viewer's tab only (dashboards/private-states.ts). */
  own_state?: unknown;
}

/** One message on an organization's in channel. */
export interface DashboardIn extends DashboardInput {
  widget_id: string;
}

export class DashboardBus implements DashboardRuntime {
  private readonly out: OrgListeners<DashboardOut>;
  private readonly inputs: OrgListeners<DashboardIn>;
  /** org → widget → handlers, on the instance running the widget's flow. */
  private readonly widgetHandlers = new Map<string, Map<string, Set<(input: DashboardInput) => void>>>();
  private readonly inputStops = new Map<string, () => void>();
  private revokedSub: DurableSubscription | null = null;
  private readonly revokedHandlers = new Set<(shareId: string) => void>();

  constructor(
    private readonly store: KeyValueStore,
    private readonly logger: Logger,
    readonly states: DashboardStateStore,
  ) {
    this.out = new OrgListeners(store, logger, dashboardOutChannel, "dashboard");
    this.inputs = new OrgListeners(store, logger, dashboardInChannel, "dashboard");
  }

  // ---- the runtime's side (RuntimeServices.dashboards) ----

  emit(organizationId: string, widgetId: string, msg: Record<string, unknown>, options: { client?: DashboardClientRef; state?: unknown; ownState?: unknown } = {}): void {
    const one = options.client?.socketId;
    if (!one && options.state !== undefined) this.states.set(organizationId, widgetId, options.state);
    this.publishOut(organizationId, {
      kind: "update",
      widget_id: widgetId,
      msg,
      state: options.state ?? null,
      ...(one ? { socket_id: one, ...(options.ownState !== undefined ? { own_state: options.ownState } : {}) } : {}),
    });
  }

  control(organizationId: string, widgetId: string, msg: Record<string, unknown>, options: { client?: DashboardClientRef } = {}): void {
    const one = options.client?.socketId;
    this.publishOut(organizationId, { kind: "control", widget_id: widgetId, msg, ...(one ? { socket_id: one } : {}) });
  }

  onInput(organizationId: string, widgetId: string, handler: (input: DashboardInput) => void): () => void {
    let org = this.widgetHandlers.get(organizationId);
    if (!org) {
      this.widgetHandlers.set(organizationId, (org = new Map()));
      const widgets = org;
      this.inputStops.set(
        organizationId,
        this.inputs.add(organizationId, (m) => {
          for (const h of widgets.get(m.widget_id) ?? []) h({ event: m.event, msg: m.msg, client: m.client });
        }),
      );
    }
    let set = org.get(widgetId);
    if (!set) org.set(widgetId, (set = new Set()));
    set.add(handler);
    return () => {
      const current = this.widgetHandlers.get(organizationId);
      const handlers = current?.get(widgetId);
      if (!current || !handlers) return;
      handlers.delete(handler);
      if (handlers.size === 0) current.delete(widgetId);
      if (current.size === 0) {
        this.widgetHandlers.delete(organizationId);
        this.inputStops.get(organizationId)?.();
        this.inputStops.delete(organizationId);
      }
    };
  }

  async readState(organizationId: string, widgetId: string): Promise<unknown> {
    return (await this.states.read(organizationId, [widgetId])).get(widgetId) ?? null;
  }

  /** Resolves once this instance listens to the organization's inputs (tests). */
  inputsReady(organizationId: string): Promise<void> {
    return this.inputs.ready(organizationId);
  }

  private publishOut(organizationId: string, message: DashboardOut) {
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch (err) {
      this.logger.warn({ err, widget: message.widget_id }, "a dashboard message could not be sent (not JSON)");
      return;
    }
    this.store.publish(dashboardOutChannel(organizationId), text).catch((err: unknown) => this.logger.warn({ err }, "dashboard update could not be published"));
  }

  // ---- the viewers' side (the dashboard socket) ----

  /** Listens to what the organization's widgets show; returns the function that stops. */
  onOut(organizationId: string, handler: (m: DashboardOut) => void): () => void {
    return this.out.add(organizationId, handler);
  }

  outReady(organizationId: string): Promise<void> {
    return this.out.ready(organizationId);
  }

  /** A viewer's input, to the instance running the widget's flow. */
  /** Resolves whether the input was published (an outage is logged, never thrown). */
  publishInput(organizationId: string, input: DashboardIn): Promise<boolean> {
    return this.store.publish(dashboardInChannel(organizationId), JSON.stringify(input)).then(
      () => true,
      (err: unknown) => {
        this.logger.warn({ err }, "dashboard input could not be published");
        return false;
      },
    );
  }

  /** Tells every instance a share link was revoked (its sockets close). */
  shareRevoked(shareId: string): Promise<void> {
    return this.store.publish(DASHBOARD_SHARES_REVOKED_CHANNEL, shareId).then(
      () => undefined,
      (err: unknown) => this.logger.warn({ err }, "share revocation could not be published"),
    );
  }

  onShareRevoked(handler: (shareId: string) => void): () => void {
    this.revokedHandlers.add(handler);
    this.revokedSub ??= durableSubscription(this.store, DASHBOARD_SHARES_REVOKED_CHANNEL, (id) => {
      for (const h of this.revokedHandlers) h(id);
    });
    return () => {
      this.revokedHandlers.delete(handler);
    };
  }

  async close() {
    await this.out.close();
    await this.inputs.close();
    await this.revokedSub?.stop();
    await this.states.close();
  }
}
