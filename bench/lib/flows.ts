import type { FlowNodeInput } from "@/shared/flow-graph";
import type { BenchContext } from "./types";

export interface FlowBody {
  name: string;
  nodes: FlowNodeInput[];
  connections: Array<{ source: string; source_port?: number; target: string }>;
}

/** inject → debug, with node ids unique in the organization. */
export function injectDebugFlow(name: string, tag: string, debug: Record<string, unknown> = {}): FlowBody {
  return {
    name,
    nodes: [
      { id: `${tag}-inject`, type: "inject", config: { payload_type: "string", payload: "hello" } },
      { id: `${tag}-debug`, type: "debug", config: debug },
    ],
    connections: [{ source: `${tag}-inject`, target: `${tag}-debug` }],
  };
}

/** Creates a flow through the REST adapter; returns its id. */
export async function createFlow(ctx: BenchContext, token: string, body: FlowBody): Promise<string> {
  const res = await ctx.request<{ flow: { id: string } }>("POST", "/flows", { token, body });
  if (res.status !== 201) throw new Error(`create flow failed: ${res.status} ${res.text}`);
  return res.body.flow.id;
}

export async function deployFlow(ctx: BenchContext, token: string, flowId: string): Promise<void> {
  const res = await ctx.request("POST", `/flows/${flowId}/deploy`, { token });
  if (res.status !== 200) throw new Error(`deploy failed: ${res.status} ${res.text}`);
}

/** A service_ API key with every scope the creator's role allows. */
export async function createApiKey(ctx: BenchContext, token: string): Promise<string> {
  const res = await ctx.request<{ secret: string }>("POST", "/api-keys", { token, body: { name: "bench" } });
  if (res.status !== 201) throw new Error(`create API key failed: ${res.status} ${res.text}`);
  return res.body.secret;
}
