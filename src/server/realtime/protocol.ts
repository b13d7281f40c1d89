import { z } from "zod";

/** Frames a client may send on /ws. */
export const clientFrameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("auth"), token: z.string().min(1).max(8192) }),
  z.object({
    type: z.literal("subscribe"),
    topics: z.array(z.enum(["flow.created", "flow.updated", "flow.deleted", "flow.deployed", "flow.state", "node.status", "debug", "inject"])).min(1).optional(),
    flow_id: z.string().max(100).optional(),
  }),
  z.object({
    type: z.literal("unsubscribe"),
    topics: z.array(z.string().max(50)).min(1).optional(),
    flow_id: z.string().max(100).optional(),
  }),
  z.object({ type: z.literal("ping") }),
  z.object({ type: z.literal("device.publish"), topic: z.string().min(1).max(256), payload: z.unknown() }),
]);
export type ClientFrame = z.infer<typeof clientFrameSchema>;

export const WS_CLOSE = {
  normal: 1000,
  goingAway: 1001,
  unauthenticated: 4401,
  forbidden: 4403,
} as const;

export const WS_LIMITS = {
  maxPayloadBytes: 64 * 1024,
  authTimeoutMs: 10_000,
  heartbeatMs: 30_000,
  /** Past this many bytes waiting for a client, debug events for it are dropped and counted. */
  maxBufferedBytes: 1024 * 1024,
  /** Sockets one client IP may hold open before they authenticate (more: HTTP 429 on the upgrade). */
  maxUnauthenticatedPerIp: 20,
  /** Upgrade attempts per client IP per minute (more: HTTP 429). */
  upgradesPerIpPerMinute: 300,
} as const;
