import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { builtinVariables } from "@/server/runtime/memory-context";

const flow = closingTestFlows();

/**
 * SPEC §14: a string property holding ${NAME} is resolved when the node uses it, so a changed
 * variable reaches the running flow without a redeploy.
 */
describe("variables in the sequence nodes' string properties", () => {
  const vars: Record<string, string> = {};
  const variables = () => builtinVariables(vars);

  it("split's separator, join's joiner and trigger's reset value follow the variable", async () => {
    vars.SEP = ";";
    vars.JOIN = "+";
    vars.STOP = "halt";
    const h = await flow(
      [
        { id: "sp", type: "split", config: { split: "${SEP}" } },
        { id: "j", type: "join", config: { mode: "manual", build: "string", joiner: "${JOIN}", count: 2 } },
        { id: "t", type: "trigger", config: { duration: 0, reset: "${STOP}" } },
        { id: "s", type: "sink" },
        { id: "s2", type: "sink" },
        { id: "s3", type: "sink" },
      ],
      [
        { source: "sp", target: "s" },
        { source: "j", target: "s2" },
        { source: "t", target: "s3" },
      ],
      {},
      {},
      { variables },
    );
    h.send("sp", { payload: "a;b,c" });
    await h.waitFor(2);
    vars.SEP = ",";
    h.send("sp", { payload: "a;b,c" });
    h.send("j", { payload: "x" });
    h.send("j", { payload: "y" });
    h.send("t", { payload: 1 });
    await h.waitFor(6);
    vars.STOP = "stop";
    h.send("t", { payload: "halt" });
    h.send("t", { payload: "stop" });
    h.send("t", { payload: 2 });
    await h.waitFor(7);
    await new Promise((r) => setTimeout(r, 50));
    const at = (sink: string) => h.arrivals.filter((a) => a.sink === sink).map((a) => a.msg.payload);
    expect(at("s")).toEqual(["a", "b,c", "a;b", "c"]);
    expect(at("s2")).toEqual(["x+y"]);
    expect(at("s3")).toEqual(["1", "1"]);
  });
});
