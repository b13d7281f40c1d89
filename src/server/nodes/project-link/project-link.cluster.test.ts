/**
 * Project links on two real instances against one PostgreSQL and one Redis: a project call on one
 * instance reaches the project in of a flow running on the other, and its answer (a project out in
 * "return" mode there) comes back to the calling instance; both cross the built-in broker's Redis
 * emitter, which is what makes the two instances one broker.
 */
import { describe, expect, it } from "vitest";
import type { ClusterNode } from "@/test/cluster";
import { placedOn, twoInstances, deployVia } from "@/test/two-instances";

const two = twoInstances({ basePort: 4640 });

const deploy = (via: ClusterNode, name: string, nodes: unknown[], connections: unknown[]) => deployVia(two, via, name, nodes, connections);

describe("project links across instances", () => {
  it("a call made on one instance is answered by a flow on the other, every time", async () => {
    const { cluster, token, slug } = two;
    try {
      const a = cluster.node("a");
      const caller = await deploy(
        a,
        "caller",
        [
          { id: "pc_in", type: "http-in", config: { method: "post", path: "/ask" } },
          { id: "pc_call", type: "project-link-call", config: { topic: "price/lookup", timeout_seconds: 10 } },
          { id: "pc_out", type: "http-response" },
        ],
        [
          { source: "pc_in", target: "pc_call" },
          { source: "pc_call", target: "pc_out" },
        ],
      );
      const callerOn = await placedOn(a, caller, token);
      const other = cluster.live().find((n) => n.instanceId !== callerOn)!;
      const callee = await deploy(
        other,
        "callee",
        [
          { id: "pe_in", type: "project-link-in", config: { topic: "price/lookup" } },
          { id: "pe_price", type: "change", config: { rules: [{ t: "set", p: "payload", to: '{"sku": payload.sku, "price": payload.qty * 2}', to_type: "jsonata" }] } },
          { id: "pe_ret", type: "project-link-out", config: { mode: "return" } },
        ],
        [
          { source: "pe_in", target: "pe_price" },
          { source: "pe_price", target: "pe_ret" },
        ],
      );
      expect(await placedOn(a, callee, token)).not.toBe(callerOn);

      // The callee's subscription reaches the caller's instance through Redis a moment after it is made.
      await new Promise((r) => setTimeout(r, 1000));
      const onCaller = cluster.byInstance(callerOn);
      const ask = (qty: number) => onCaller.request("POST", `/hooks/${slug}/ask`, { body: { sku: `s${qty}`, qty } });
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(i + 1)));
      expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(answers.map((r) => r.body)).toEqual(Array.from({ length: 10 }, (_, i) => ({ sku: `s${i + 1}`, price: (i + 1) * 2 })));
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    }
  });
});
