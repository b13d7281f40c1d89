/**
 * Pub/sub channels that carry revocations to every instance (through the store: Redis when
 * configured), so open WebSockets and running flows end wherever they are.
 */

/** `{ key_id, organization_id }`: an API key (service or device) was revoked. */
export const API_KEY_REVOKED_CHANNEL = "api-keys.revoked";

/** Per organization: `{ type: "organization.deleted", organization_id }` (the hub listens per organization). */
export const organizationLifecycleChannel = (organizationId: string) => `org:${organizationId}:lifecycle`;

export interface OrganizationLifecycleEvent {
  type: "organization.deleted";
  organization_id: string;
}
