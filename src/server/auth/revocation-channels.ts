/**
 * Pub/sub channels that carry revocations to every instance (through the store: Redis when
 * configured), so open WebSockets and running flows end wherever they are.
 */

/** `{ key_id, organization_id }`: an API key (service or device) was revoked. */
export const API_KEY_REVOKED_CHANNEL = "api-keys.revoked";

/**
 * `{}`: something that decides access changed (a role, a membership, an account, a key, an
 * organization); published after the access generation was replaced. Every instance's hub checks
 * its open sockets' credentials again.
 */
export const ACCESS_CHANGED_CHANNEL = "access.changed";

/** Per organization: `{ type: "organization.deleted", organization_id }` (the hub listens per organization). */
export const organizationLifecycleChannel = (organizationId: string) => `org:${organizationId}:lifecycle`;

export interface OrganizationLifecycleEvent {
  type: "organization.deleted";
  organization_id: string;
}
