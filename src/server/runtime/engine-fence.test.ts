import { describe, expect, it } from "vitest";
import { FlowEngine } from "./engine";
import type { Message, NodeFactory } from "./types";

/**
 * The fence: a clustered instance that can no longer prove its lease on a flow (it was paused past
 * the lease's TTL) must not send anything from that flow, even from timers that fire the moment it
 * wakes, before its own tick notices and stops the flow.
 */
describe("engine fence", () => {
  it("sends and delivers nothing of a flow while its fence is down, and resumes when it is up", async () => {
    const received: Message[] = [];
    let proven = true;
    const source: NodeFactory = (ctx) => ({
      trigger: () => {
        ctx.send({ _msgid: ctx.newMessageId(), payload: "tick" });
        return "sent";
      },
    });
    const sink: NodeFactory = (ctx) => ({
      input(msg, _send, done) {
        received.push({ ...msg, flow: ctx.flowId });
        done();
      },
    });
    const engine = new FlowEngine({
      types: new Map([
        ["inject", { behaviour: source, outputs: () => 1, roles: { trigger: true } }],
        ["sink", { behaviour: sink, outputs: () => 0 }],
      ]),
      callbacks: { onFlowState: () => undefined, onNodeStatus: () => undefined, onDebug: () => undefined, onNodeError: () => undefined },
      fence: (flowId) => flowId !== "flw_fenced" || proven,
    });
    const spec = (flowId: string) => ({
      flowId,
      organizationId: "org",
      organizationSlug: "org",
      revision: 1,
      nodes: [
        { id: `${flowId}-src`, type: "inject", name: "", config: {} },
        { id: `${flowId}-sink`, type: "sink", name: "", config: {} },
      ],
      connections: [{ source: `${flowId}-src`, source_port: 0, target: `${flowId}-sink` }],
    });
    await engine.deploy(spec("flw_fenced"));
    await engine.deploy(spec("flw_other"));
    const settle = () => new Promise((resolve) => setImmediate(resolve));

    engine.inject("flw_fenced", "flw_fenced-src", {});
    await settle();
    expect(received).toHaveLength(1);

    proven = false;
    engine.inject("flw_fenced", "flw_fenced-src", {});
    engine.inject("flw_other", "flw_other-src", {});
    await settle();
    // Only the other flow's message: the fenced one was dropped at the send.
    expect(received).toHaveLength(2);
    expect(received[1]!.flow).toBe("flw_other");

    // A message already queued when the fence drops is not delivered either.
    proven = true;
    engine.inject("flw_fenced", "flw_fenced-src", {});
    proven = false;
    await settle();
    expect(received).toHaveLength(2);

    proven = true;
    engine.inject("flw_fenced", "flw_fenced-src", {});
    await settle();
    expect(received).toHaveLength(3);
    await engine.close();
  });
});
