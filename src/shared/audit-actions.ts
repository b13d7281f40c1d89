/**
 * Every action the audit log records, with its words (the audit log page and its filter show
 * these). The server records only these (`recordAudit` takes an `AuditAction`), so a new action
 * cannot be written without its words here.
 */
export const AUDIT_ACTION_LABELS = {
  "user.login_succeeded": "Logged in",
  "user.login_failed": "Failed login",
  "user.logout": "Logged out",
  "user.registered": "Registered",
  "user.email_verified": "Verified email",
  "user.password_changed": "Changed password",
  "user.password_reset_requested": "Requested password reset",
  "user.password_reset": "Reset password",
  "user.mfa_enabled": "Turned on two-factor authentication",
  "user.mfa_disabled": "Turned off two-factor authentication",
  "user.mfa_failed": "Failed two-factor code",
  "user.backup_codes_regenerated": "Replaced backup codes",
  "user.backup_code_used": "Used a backup code",
  "user.session_revoked": "Revoked a session",
  "user.refresh_token_reused": "Refresh token reused (session ended)",
  "user.refresh_token_raced": "Refresh token presented twice at once (one refused, session kept)",
  "user.organization_switched": "Switched organization",
  "user.profile_updated": "Updated profile",
  "user.deleted": "Deleted account",
  "access.denied": "Was refused an action (permission)",
  "organization.created": "Created organization",
  "organization.renamed": "Renamed organization",
  "organization.deleted": "Deleted organization",
  "member.invited": "Invited a member",
  "member.invitation_revoked": "Revoked an invitation",
  "member.joined": "Joined",
  "member.role_changed": "Changed a role",
  "member.removed": "Removed a member",
  "api_key.created": "Created an API key",
  "api_key.revoked": "Revoked an API key",
  "flow.created": "Created a flow",
  "flow.deployed": "Deployed a flow",
  "flow.rolled_back": "Rolled back a flow",
  "flow.deleted": "Deleted a flow",
  "subflow.created": "Created a subflow",
  "subflow.updated": "Changed a subflow",
  "subflow.deployed": "Deployed a subflow's users",
  "subflow.deleted": "Deleted a subflow",
  "config_node.created": "Created a configuration node",
  "config_node.updated": "Changed a configuration node",
  "config_node.deployed": "Deployed a configuration node's users",
  "config_node.deleted": "Deleted a configuration node",
  "variable.created": "Created a variable or secret",
  "variable.updated": "Changed a variable or secret",
  "variable.deleted": "Deleted a variable or secret",
  "file.written": "Wrote a file",
  "file.deleted": "Deleted a file",
  "device.updated": "Changed a device",
  "mqtt_session.ended": "Ended an MQTT session",
  "dashboard.share_created": "Shared a dashboard by link",
  "dashboard.share_revoked": "Revoked a dashboard link",
} as const satisfies Record<string, string>;

export type AuditAction = keyof typeof AUDIT_ACTION_LABELS;

/** What an entry acted on, in words. */
export const AUDIT_TARGET_LABELS: Record<string, string> = {
  user: "User",
  session: "Session",
  organization: "Organization",
  invitation: "Invitation",
  api_key: "API key",
  flow: "Flow",
  deployment: "Deployment",
  subflow: "Subflow",
  config_node: "Configuration node",
  variable: "Variable",
  file: "File",
  device: "Device",
  dashboard_share_link: "Dashboard link",
  permission: "Permission",
};

/** An action's words; one recorded by an older version and since renamed shows as it was written. */
export const auditActionLabel = (action: string): string => (AUDIT_ACTION_LABELS as Record<string, string>)[action] ?? action;
