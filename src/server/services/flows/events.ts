import type { AppServices } from "../../app-services";
import type { EventData, EventTopic } from "../../../shared/realtime";

/** How people see the actor of an event ("saved by …"): their name, else their email. */
export async function actorName(app: AppServices, userId: string): Promise<string> {
  const user = await app.db.prisma.user.findUnique({ where: { id: userId }, select: { firstName: true, lastName: true, email: true } });
  return user ? [user.firstName, user.lastName].filter(Boolean).join(" ") || user.email : "someone";
}

/**
 * Publishes an event to the organization's channel in the store's pub/sub (realtime/org-events.ts):
 * with Redis every instance's WebSocket clients see it. Events are best effort; a store hiccup never
 * fails the write that caused them.
 */
export function publishOrgEvent<T extends EventTopic>(app: AppServices, organizationId: string, topic: T, flowId: string | null, data: EventData[T], options: { deviceId?: string } = {}): void {
  app.events.publish(organizationId, topic, flowId, data, options);
}
