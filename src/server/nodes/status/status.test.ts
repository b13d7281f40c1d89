/** The status node, after Node-RED's Flow_spec.js #handleStatus and 25-status_spec.js. */
import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import type { NodeFactory, NodeStatus } from "@/server/runtime/types";

const flow = closingTestFlows();

/** Reports msg.status (or clears with null) on each message. */
const reporting: Record<string, NodeFactory> = {
  reports: (ctx) => ({
    input(msg, send, done) {
      ctx.status(msg.status as NodeStatus | null);
      send(msg);
      done();
    },
  }),
};

describe("status", () => {
  it("passes each status a node reports to every status node of the flow, with its source", async () => {
    const h = await flow(
      [{ id: "1", type: "reports", name: "a" }, { id: "sn", type: "status" }, { id: "sn2", type: "status" }, { id: "s1", type: "sink" }, { id: "s2", type: "sink" }],
      [
        { source: "sn", target: "s1" },
        { source: "sn2", target: "s2" },
      ],
      {},
      reporting,
    );
    h.send("1", { status: { fill: "green", shape: "dot", text: "my-status" } });
    await h.waitFor(2);
    for (const sink of ["s1", "s2"]) {
      const [m] = h.arrivals.filter((a) => a.sink === sink).map((a) => a.msg);
      expect(m).toEqual({ _msgid: expect.any(String), status: { fill: "green", shape: "dot", text: "my-status", source: { id: "1", type: "reports", name: "a" } } });
    }
  });

  it("a scoped status node reports only its nodes, and never the nodes it is wired to", async () => {
    const h = await flow(
      [
        { id: "1", type: "reports", name: "a" },
        { id: "2", type: "reports" },
        { id: "sn", type: "status", config: { scope: ["2"] } },
        { id: "sn2", type: "status", config: { scope: ["1", "2"] } },
        { id: "s1", type: "sink" },
      ],
      [
        { source: "1", target: "2" },
        { source: "sn", target: "s1" },
        // sn2 feeds node 2: node 2 is left out of its scope (no loop).
        { source: "sn2", target: "2" },
      ],
      {},
      reporting,
    );
    h.send("1", { status: { fill: "red", shape: "ring", text: "x" } });
    // 1 reports (sn2 gets it, sends it to 2), 2 reports (sn gets it, s1 records), 2 reports again (sn2 skips it).
    await h.waitFor(2);
    await new Promise((r) => setTimeout(r, 50));
    const sources = h.received.map((m) => (m.status as { source: { id: string } }).source.id);
    expect(sources).toEqual(["2", "2"]);
  });

  it("a cleared status arrives with only its source; the text is always a string", async () => {
    const h = await flow([{ id: "1", type: "reports" }, { id: "sn", type: "status" }, { id: "s", type: "sink" }], [{ source: "sn", target: "s" }], {}, reporting);
    h.send("1", { status: null });
    h.send("1", { status: { fill: "blue", shape: "dot", text: 42 } });
    const [cleared, numeric] = await h.waitFor(2);
    expect(cleared!.status).toEqual({ source: { id: "1", type: "reports" } });
    expect(numeric!.status).toMatchObject({ text: "42" });
  });

  it("reports the status of a built-in node (debug's message count)", async () => {
    const h = await flow(
      [{ id: "d", type: "debug", name: "dbg", config: { to_status: true } }, { id: "sn", type: "status", config: { scope: ["d"] } }, { id: "s", type: "sink" }],
      [{ source: "sn", target: "s" }],
    );
    h.send("d", { payload: 1 });
    const [m] = await h.waitFor(1);
    expect(m!.status).toEqual({ fill: "grey", shape: "dot", text: "1", source: { id: "d", type: "debug", name: "dbg" } });
  });
});
