import { describe, expect, it } from "vitest";
import type { Execution, ExecutionStep } from "@/shared/executions";
import { errorLine, executionPath, formatDuration, inputPreview, type PathCanvas } from "./execution-path";

const step = (node_id: string, extra: Partial<ExecutionStep> = {}): ExecutionStep => ({
  node_id,
  input: { payload: node_id },
  input_recorded: true,
  outputs: [],
  started_at: "2026-11-26T00:00:00.000Z",
  duration_ms: 1,
  ...extra,
});

const execution = (steps: ExecutionStep[], extra: Partial<Execution> = {}): Execution => ({
  id: "exe_1",
  flow_id: "flw_1",
  deployment_id: null,
  trigger_node_id: steps[0]?.node_id ?? "inj",
  status: "success",
  started_at: "2026-11-26T00:00:00.000Z",
  duration_ms: 3,
  replay_of: null,
  error: null,
  instance_id: "i1",
  sampled: true,
  replayable: true,
  steps,
  steps_omitted: 0,
  ...extra,
});

// inject → function → debug, and a switch with two ports after inject: port 0 → a, port 1 → b.
const canvas: PathCanvas = {
  names: new Map([
    ["inj", "inject"],
    ["fn", "function"],
    ["dbg", "debug"],
    ["sw", "switch"],
    ["a", "a"],
    ["b", "b"],
  ]),
  edges: [
    { id: "inj:0:fn", source: "inj", sourcePort: 0, target: "fn" },
    { id: "fn:0:dbg", source: "fn", sourcePort: 0, target: "dbg" },
    { id: "inj:0:sw", source: "inj", sourcePort: 0, target: "sw" },
    { id: "sw:0:a", source: "sw", sourcePort: 0, target: "a" },
    { id: "sw:1:b", source: "sw", sourcePort: 1, target: "b" },
  ],
};

describe("executionPath", () => {
  it("marks the nodes reached in order and the wires taken, and reads the error on its node", () => {
    const path = executionPath(
      execution([step("inj", { outputs: [{ port: 0, count: 1 }] }), step("fn", { error: "n is 2" })], { status: "error", error: "n is 2" }),
      { ...canvas, edges: canvas.edges.slice(0, 2) },
    );
    expect([...path.nodes.values()].map((n) => [n.nodeId, n.order, n.error])).toEqual([
      ["inj", 1, null],
      ["fn", 2, "n is 2"],
    ]);
    // fn failed: nothing reached debug, so its wire is not taken.
    expect([...path.edges]).toEqual(["inj:0:fn"]);
    expect(path.summary).toBe("Reached: inject → function (error: n is 2)");
  });

  it("takes only the ports that sent, and says where a message was dropped", () => {
    const path = executionPath(
      execution([step("inj", { outputs: [{ port: 0, count: 1 }] }), step("sw", { outputs: [{ port: 1, count: 1 }] }), step("b", { dropped: true })]),
      canvas,
    );
    expect([...path.edges].sort()).toEqual(["inj:0:sw", "sw:1:b"]);
    expect(path.nodes.get("b")!.dropped).toBe(true);
    expect(path.summary).toBe("Reached: inject → switch → b (dropped here)");
  });

  it("counts a node reached twice once, names nodes no longer on the canvas, and an error no step has", () => {
    const path = executionPath(
      execution([step("inj", { outputs: [{ port: 0, count: 2 }] }), step("gone"), step("gone")], { status: "error", error: "instance i1 stopped while it ran" }),
      canvas,
    );
    expect(path.nodes.get("gone")).toMatchObject({ order: 2, missing: true });
    expect(path.nodes.get("gone")!.steps).toHaveLength(2);
    expect(path.summary).toBe("Reached: inject → gone (not on the canvas). Error: instance i1 stopped while it ran");
    expect(executionPath(execution([step("inj")], { status: "running", duration_ms: null }), canvas).summary).toBe("Reached so far: inject");
  });
});

describe("inputPreview and formatDuration", () => {
  it("shows JSON, the cut text as it is, nothing when not recorded, and shortens long inputs", () => {
    expect(inputPreview(step("a", { input: { payload: 2 } })).text).toBe('{\n  "payload": 2\n}');
    expect(inputPreview(step("a", { input: '{"payload":"xxx', truncated: true })).text).toBe('{"payload":"xxx');
    expect(inputPreview(step("a", { input: undefined, input_recorded: false }))).toEqual({ text: "", cut: false });
    const long = inputPreview(step("a", { input: { payload: "x".repeat(5000) } }), 100);
    expect(long.cut).toBe(true);
    expect(long.text).toHaveLength(101);
  });

  it("reads durations", () => {
    expect(formatDuration(null)).toBe("running");
    expect(formatDuration(12.4)).toBe("12 ms");
    expect(formatDuration(1400)).toBe("1.4 s");
    expect(formatDuration(125_000)).toBe("2 min 5 s");
  });
});

describe("errorLine", () => {
  it("says Error once", () => {
    expect(errorLine("Error: n is 2")).toBe("Error: n is 2");
    expect(errorLine("TypeError: Cannot read properties of null (reading 'y')")).toBe("TypeError: Cannot read properties of null (reading 'y')");
    expect(errorLine("timed out")).toBe("Error: timed out");
    expect(errorLine("error: custom text")).toBe("Error: error: custom text");
  });
});
