import { z } from "zod";
import { debugSubflowSourceSchema } from "./debug-source";

/**
 * The device agent's frames on /ws (SPEC §22), beside the device channel's (§6): what a `device_`
 * key's connection may send as an agent, and what the server sends it. docs/WEBSOCKET.md ("The
 * device agent") is the prose form; packages/agent speaks it.
 */

const flowId = z.string().min(1).max(100);
const nodeId = z.string().min(1).max(200);
/** {flow id: deployment id}: what the agent runs. */
const appliedMap = z.record(flowId, z.string().max(100)).refine((m) => Object.keys(m).length <= 1000, "at most 1,000 flows");

export const agentHelloSchema = z.object({
  type: z.literal("agent.hello"),
  agent_version: z.string().min(1).max(50),
  node_red_version: z.string().min(1).max(50),
  node_types: z.array(z.string().min(1).max(200)).max(5000),
  /** X25519 public key, SPKI DER in base64: secrets of deployments are sealed to it. */
  public_key: z.string().min(1).max(200),
  applied: appliedMap,
  /** The `revision` of the deployment frame it applied last (agents before it: absent). */
  revision: z.string().max(100).optional(),
});
export type AgentHello = z.infer<typeof agentHelloSchema>;

export const agentFrameSchemas = [
  agentHelloSchema,
  /**
   * After an `agent.deploy`: what now runs, or the error that kept it from running (the old
   * deployment goes on) with the deployments it was asked to run (`failed`).
   */
  z.object({ type: z.literal("agent.applied"), applied: appliedMap, error: z.string().max(2000).optional(), failed: appliedMap.optional() }),
  z.object({
    type: z.literal("agent.debug"),
    flow_id: flowId,
    node_id: nodeId,
    name: z.string().max(10_000).default(""),
    property: z.string().max(200).default("payload"),
    msg: z.unknown(),
    format: z.string().max(100).default(""),
    topic: z.string().max(10_000).optional(),
    /** A debug node inside a subflow instance: where it is (node_id is then its running id, as the server's runtime makes it). */
    subflow: debugSubflowSourceSchema.optional(),
  }),
  z.object({
    type: z.literal("agent.status"),
    flow_id: flowId,
    node_id: nodeId,
    status: z.object({ fill: z.string().max(20).optional(), shape: z.string().max(20).optional(), text: z.string().max(10_000).optional() }).nullable(),
  }),
  z.object({ type: z.literal("agent.error"), flow_id: flowId, node_id: nodeId, message: z.string().max(10_000) }),
] as const;

export type AgentFrame = z.infer<(typeof agentFrameSchemas)[number]>;

/** A secret sealed to the agent's public key: X25519 with an ephemeral key, HKDF-SHA256, AES-256-GCM. */
export interface SealedBox {
  /** The ephemeral public key (SPKI DER, base64). */
  epk: string;
  iv: string;
  tag: string;
  data: string;
}

/** What the server sends an agent. */
export type AgentServerFrame =
  | {
      type: "agent.deploy";
      /** {flow id: deployment id} of every flow this device runs: the agent applies `flows` as a whole. */
      deployments: Record<string, string>;
      /** Node-RED's flows.json (tabs, their nodes, configuration nodes), credentials left out. */
      flows: Array<Record<string, unknown>>;
      /** `{credentials: {node id: {...}}, env: {flow id: {name: value}}}` as JSON, sealed to the agent. */
      sealed: SealedBox | null;
      /** A digest of everything the frame holds (secrets included, keyed): the agent says it back in its hello. */
      revision: string;
    }
  | { type: "agent.inject"; flow_id: string; node_id: string; message_id: string; payload?: unknown; topic?: string }
  /** A debug node's button (POST /nodes/{id}/active): the device's Node-RED switches the node, as its POST /debug/{id}/enable does. */
  | { type: "agent.active"; flow_id: string; node_id: string; active: boolean };

export const deviceTargetSchema = z.union([
  z.literal("hosted"),
  z.object({ device_id: z.string().regex(/^dev_[\w-]{10,64}$/, "must be an id starting with dev_") }).strict(),
  z.object({ device_tag: z.string().trim().min(1).max(64) }).strict(),
]);
export type FlowTarget = z.infer<typeof deviceTargetSchema>;
