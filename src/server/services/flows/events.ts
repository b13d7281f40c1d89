import type { AppServices } from "../../app";

export type OrgEventTopic = "flow.created" | "flow.updated" | "flow.deleted" | "flow.deployed" | "flow.state" | "node.status" | "debug" | "inject";

export const orgEventsChannel = (organizationId: string) => `org:${organizationId}:events`;

export interface OrgEvent {
  type: "event";
  topic: OrgEventTopic;
  flow_id: string | null;
  data: Record<string, unknown>;
  ts: string;
}

/**
 * Publishes an event to the organization's channel in the store's pub/sub: with Redis every
 * instance's WebSocket clients see it. Events are best effort; a store hiccup never fails the write
 * that caused them.
 */
export async function publishOrgEvent(app: AppServices, organizationId: string, topic: OrgEventTopic, flowId: string | null, data: Record<string, unknown>): Promise<void> {
  const event: OrgEvent = { type: "event", topic, flow_id: flowId, data, ts: new Date().toISOString() };
  try {
    await app.store.publish(orgEventsChannel(organizationId), JSON.stringify(event));
  } catch (err) {
    app.logger.warn({ err, topic }, "event could not be published");
  }
}
