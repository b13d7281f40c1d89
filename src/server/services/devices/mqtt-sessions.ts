import { createHash } from "node:crypto";
import type { AppServices } from "../../app-services";
import type { Principal } from "../../auth/principal";
import { notFound } from "../../errors";
import type { MqttSessionInfo } from "../../mqtt/broker";
import { recordAudit } from "../audit/record-audit";
import type { RequestMeta } from "../request-meta";
import type { MqttSessionView } from "./device.schemas";

/**
 * The built-in broker's persistent sessions of an organization (SPEC §20; GET /mqtt/sessions): what
 * each keeps for its client while it is away, against the organization's limits, and DELETE to end
 * one (an abandoned device's queue holds the organization's queued bytes until it returns or its
 * session expires). A session's id is derived from its client id, as an MQTT client's device id is,
 * so that any client id (slashes, spaces) fits a path.
 */
export const mqttSessionId = (organizationId: string, clientId: string) => `mqs_${mqttClientHash(organizationId, clientId)}`;

/** An MQTT client id of an organization as 22 URL-safe characters: its session's id and its device's (`dev_mqtt-…`). */
export const mqttClientHash = (organizationId: string, clientId: string) => createHash("sha256").update(`${organizationId}\0${clientId}`).digest("base64url").slice(0, 22);

function view(organizationId: string, s: MqttSessionInfo): MqttSessionView {
  return {
    id: mqttSessionId(organizationId, s.clientId),
    client_id: s.clientId,
    connected: s.connected,
    subscriptions: s.subscriptions,
    queued_messages: s.queuedMessages,
    queued_bytes: s.queuedBytes,
    expires_at: s.expiresAt?.toISOString() ?? null,
  };
}

export async function listMqttSessions(app: AppServices, principal: Principal) {
  const found = await app.mqtt.sessions(principal.organizationId);
  return {
    sessions: found.sessions.map((s) => view(principal.organizationId, s)),
    queued_bytes: found.queuedBytes,
    limits: { sessions: found.sessionsLimit, queued_bytes: found.queuedBytesLimit, queued_messages_per_session: found.queuedPerSessionLimit },
  };
}

/** Ends one of the organization's sessions; another organization's id answers 404, as a missing one does. */
export async function endMqttSession(app: AppServices, principal: Principal, id: string, meta: RequestMeta): Promise<void> {
  const { sessions } = await app.mqtt.sessions(principal.organizationId);
  const session = sessions.find((s) => mqttSessionId(principal.organizationId, s.clientId) === id);
  if (!session || !(await app.mqtt.endSession(principal.organizationId, session.clientId))) throw notFound("MQTT session");
  await recordAudit(app, {
    action: "mqtt_session.ended",
    organizationId: principal.organizationId,
    actorId: principal.userId,
    targetType: "mqtt_session",
    targetId: id,
    ipAddress: meta.ip,
    metadata: { client_id: session.clientId, queued_messages: session.queuedMessages, connected: session.connected },
  });
}
