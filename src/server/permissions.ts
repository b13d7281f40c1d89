import { AppError } from "./errors";
import { atLeast, permissions, type Permission } from "../shared/permissions";

export * from "../shared/permissions";

export interface Authority {
  role: import("../shared/permissions").Role;
  /** Present for API keys: what the key may do on top of its role. */
  scopes?: readonly string[];
  kind: "session" | "api_key";
}

/** Throws FORBIDDEN or INSUFFICIENT_SCOPE unless the caller holds the permission. */
export function assertPermission(authority: Authority, permission: Permission): void {
  const rule = permissions[permission];
  if (!atLeast(authority.role, rule.minRole)) {
    throw new AppError("FORBIDDEN", `your role (${authority.role}) cannot do this; it needs ${rule.minRole} or above`);
  }
  if (authority.kind === "api_key") {
    if (rule.scope === null) throw new AppError("INSUFFICIENT_SCOPE", "API keys cannot do this; sign in as a user");
    if (!authority.scopes?.includes(rule.scope)) {
      throw new AppError("INSUFFICIENT_SCOPE", `this API key lacks the ${rule.scope} scope`);
    }
  }
}
