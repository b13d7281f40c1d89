import type { AppServices } from "../../app-services";
import { AppError } from "../../errors";
import type { SessionPrincipal as Principal } from "../../auth/principal";
import { SessionStore } from "../../auth/session-store";
import { recordAudit } from "../audit/record-audit";
import { endOtherSessions, endSession } from "./tokens";

export async function listSessions(app: AppServices, principal: Principal) {
  const sessions = await new SessionStore(app.store).listForUser(principal.userId);
  return {
    sessions: sessions.map((s) => ({
      id: s.id,
      ip_address: s.ip_address,
      user_agent: s.user_agent,
      created_at: s.created_at,
      last_accessed_at: s.last_accessed_at,
      current: s.id === principal.sessionId,
    })),
  };
}

export async function revokeSession(app: AppServices, principal: Principal, sessionId: string, ip: string) {
  const session = await new SessionStore(app.store).get(sessionId);
  // Another user's session answers exactly like a missing one.
  if (!session || session.user_id !== principal.userId) throw new AppError("NOT_FOUND", "session not found");
  await endSession(app, session);
  await recordAudit(app, { action: "user.session_revoked", organizationId: principal.organizationId, actorId: principal.userId, targetType: "session", targetId: sessionId, ipAddress: ip });
}

export async function revokeOtherSessions(app: AppServices, principal: Principal, ip: string) {
  await endOtherSessions(app, principal.userId, principal.sessionId);
  await recordAudit(app, { action: "user.session_revoked", organizationId: principal.organizationId, actorId: principal.userId, targetType: "session", targetId: "all-others", ipAddress: ip });
}

export async function logout(app: AppServices, principal: Principal, ip: string) {
  await endSession(app, principal.session);
  await recordAudit(app, { action: "user.logout", organizationId: principal.organizationId, actorId: principal.userId, targetType: "session", targetId: principal.sessionId, ipAddress: ip });
}
