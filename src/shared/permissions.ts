/**
 * Ordered roles and the ONE permission table: every procedure declares the permission it needs
 * (`meta({ permission })`) and nothing else decides who may do what. Isomorphic, so the UI can hide
 * what the server would refuse.
 */
export const roles = ["viewer", "member", "admin", "owner"] as const;
export type Role = (typeof roles)[number];

export const apiKeyScopes = [
  "flows:read",
  "flows:write",
  "flows:deploy",
  "nodes:read",
  "nodes:inject",
  "org:read",
  "events:read",
  "device:connect",
  "files:read",
  "files:write",
  "mqtt:publish",
  "mqtt:subscribe",
] as const;
export type ApiKeyScope = (typeof apiKeyScopes)[number];

export interface PermissionRule {
  /** The lowest role allowed. */
  minRole: Role;
  /** The API-key scope that grants it; null: API keys may not do this at all (sessions only). */
  scope: ApiKeyScope | null;
  description: string;
}

export const permissions = {
  "account:self": { minRole: "viewer", scope: null, description: "manage one's own account, sessions and MFA" },
  "org:read": { minRole: "viewer", scope: "org:read", description: "see the organization and its members" },
  "org:create": { minRole: "viewer", scope: null, description: "create a new organization (becoming its owner)" },
  "org:update": { minRole: "owner", scope: null, description: "rename the organization" },
  "org:delete": { minRole: "owner", scope: null, description: "delete the organization" },
  "members:invite": { minRole: "admin", scope: null, description: "invite members and revoke invitations" },
  "members:update": { minRole: "admin", scope: null, description: "change members' roles (up to one's own)" },
  "members:remove": { minRole: "admin", scope: null, description: "remove members" },
  "api_keys:manage_own": { minRole: "member", scope: null, description: "create, list and revoke one's own user API keys" },
  "api_keys:manage_all": { minRole: "admin", scope: null, description: "device keys, and revoking anyone's keys" },
  "audit:read": { minRole: "admin", scope: null, description: "read the audit log" },
  "flows:read": { minRole: "viewer", scope: "flows:read", description: "list and read flows and their deployments" },
  "flows:write": { minRole: "member", scope: "flows:write", description: "create, update, import and delete flows" },
  "flows:deploy": { minRole: "member", scope: "flows:deploy", description: "deploy and roll back flows" },
  "subflows:read": { minRole: "viewer", scope: "flows:read", description: "list and read subflow definitions" },
  "subflows:write": { minRole: "member", scope: "flows:write", description: "create, update and delete subflow definitions" },
  "config_nodes:read": { minRole: "viewer", scope: "flows:read", description: "list and read configuration nodes (credentials never: only whether each is set)" },
  "config_nodes:write": { minRole: "member", scope: "flows:write", description: "create, update and delete configuration nodes (the global-config node: admins only)" },
  "config_nodes:write_global": { minRole: "admin", scope: "flows:write", description: "create, update and delete the global-config node (the organization's env), like variables" },
  "nodes:read": { minRole: "viewer", scope: "nodes:read", description: "read the node catalog and node instances" },
  "nodes:inject": { minRole: "member", scope: "nodes:inject", description: "trigger inject nodes" },
  "events:read": { minRole: "viewer", scope: "events:read", description: "receive the organization's events over /ws" },
  "context:read": { minRole: "viewer", scope: "flows:read", description: "read flow and global context" },
  "context:write": { minRole: "member", scope: "flows:write", description: "set and delete keys of flow and global context" },
  "variables:read": { minRole: "viewer", scope: "flows:read", description: "list variables (secrets without their values)" },
  "variables:write": { minRole: "admin", scope: "flows:write", description: "create, change and delete variables and secrets" },
  "executions:read": { minRole: "viewer", scope: "flows:read", description: "list and read flows' executions" },
  "executions:replay": { minRole: "member", scope: "nodes:inject", description: "send an execution's trigger message again" },
  "files:read": { minRole: "viewer", scope: "files:read", description: "list and download the organization's files" },
  "files:write": { minRole: "member", scope: "files:write", description: "upload, replace and delete the organization's files" },
  "mqtt:subscribe": { minRole: "viewer", scope: "mqtt:subscribe", description: "subscribe to the organization's topics on the built-in MQTT broker" },
  "mqtt:publish": { minRole: "member", scope: "mqtt:publish", description: "publish to the organization's topics on the built-in MQTT broker" },
  "dashboards:read": { minRole: "viewer", scope: "flows:read", description: "list the organization's dashboard pages (every member may view them)" },
  "dashboards:share": { minRole: "admin", scope: null, description: "publish, list and revoke dashboard share links" },
  "devices:read": { minRole: "viewer", scope: "org:read", description: "list devices, their state and what they run" },
  "devices:write": { minRole: "admin", scope: null, description: "rename devices and set their tags, end MQTT sessions" },
} as const satisfies Record<string, PermissionRule>;

export type Permission = keyof typeof permissions;

/**
 * What each API-key scope lets a key do, for the page that creates keys: one short line per scope
 * over the permissions above that name it. A key never exceeds its creator's role, so what needs
 * admin says so.
 */
export const apiKeyScopeDescriptions = {
  "flows:read": "read flows and their deployments, executions, subflows, configuration nodes, context, variables (not secret values) and dashboard pages",
  "flows:write": "create, change and delete flows, subflows, configuration nodes and context keys; admins' and owners' keys also variables, secrets and the global-config node",
  "flows:deploy": "deploy and roll back flows",
  "nodes:read": "read the node catalog and node instances",
  "nodes:inject": "trigger inject nodes and replay executions",
  "org:read": "see the organization, its members and its devices",
  "events:read": "receive the organization's events over /ws",
  "device:connect": "connect a device over the WebSocket device channel",
  "files:read": "list and download the organization's files",
  "files:write": "upload, replace and delete the organization's files",
  "mqtt:publish": "publish to the organization's topics on the built-in MQTT broker",
  "mqtt:subscribe": "subscribe to the organization's topics on the built-in MQTT broker",
} as const satisfies Record<ApiKeyScope, string>;

export function isRole(value: string): value is Role {
  return (roles as readonly string[]).includes(value);
}

export function roleRank(role: Role): number {
  return roles.indexOf(role);
}

export function atLeast(role: Role, minimum: Role): boolean {
  return roleRank(role) >= roleRank(minimum);
}

// Who may grant which role and manage whom: the server's members service refuses (403) what these
// deny, and the members settings UI offers only what they allow. Whether someone may manage members
// at all is the permission table's (members:invite / members:update / members:remove).

/** Whether `actor` may give someone `role`: never a role above their own (so only owners grant owner). */
export function mayGrant(actor: Role, role: Role): boolean {
  return roleRank(role) <= roleRank(actor);
}

/** Whether `actor` may change or remove a member whose role is `target`: never someone above them (so only owners touch owners). */
export function mayManage(actor: Role, target: Role): boolean {
  return roleRank(target) <= roleRank(actor);
}

/** What a device key may hold: its channel (§6) and the built-in MQTT broker (§20). */
export const deviceKeyScopes = ["device:connect", "mqtt:publish", "mqtt:subscribe"] as const satisfies readonly ApiKeyScope[];

/** The scopes a role may hold: a key never exceeds its creator's role. */
export function scopesForRole(role: Role, kind: "user" | "device"): ApiKeyScope[] {
  if (kind === "device") return atLeast(role, "admin") ? [...deviceKeyScopes] : [];
  const granted = new Set<ApiKeyScope>();
  for (const rule of Object.values(permissions) as PermissionRule[]) {
    if (rule.scope && rule.scope !== "device:connect" && atLeast(role, rule.minRole)) granted.add(rule.scope);
  }
  return apiKeyScopes.filter((s) => granted.has(s));
}
