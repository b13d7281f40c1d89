import { describe, expect, it } from "vitest";
import { definitionOf, variablesUsed } from "./variable-references";

describe("variables a flow uses", () => {
  it("finds ${NAME} in any string of a config and env.get in code, per node, built-ins left out", () => {
    const used = variablesUsed([
      { id: "req", config: { url: "${API_URL}/v1", headers: { "X-Key": "${API_KEY}" }, auth_password: "${API_TOKEN}" } },
      { id: "fn", config: { code: "const u = env.get('API_URL'); const n = env.get(\"NR_NODE_ID\"); return env.get( \"REGION\" );", outputs: 1 } },
      { id: "tpl", config: { rules: [{ to: "${API_URL}" }], count: 3 } },
      { id: "none", config: { text: "$API_URL {API_URL} ${NR_FLOW_NAME}" } },
    ]);
    expect(used).toEqual([
      { name: "API_KEY", nodeIds: ["req"] },
      { name: "API_TOKEN", nodeIds: ["req"] },
      { name: "API_URL", nodeIds: ["req", "fn", "tpl"] },
      { name: "REGION", nodeIds: ["fn"] },
    ]);
  });

  it("finds where a name is defined for a flow: the flow's own first, then the organization's", () => {
    const vars = [
      { name: "A", flow_id: null, v: "org" },
      { name: "A", flow_id: "flw_1", v: "flow" },
      { name: "B", flow_id: "flw_2", v: "other flow" },
    ];
    expect(definitionOf(vars, "flw_1", "A")?.v).toBe("flow");
    expect(definitionOf(vars, "flw_3", "A")?.v).toBe("org");
    expect(definitionOf(vars, "flw_1", "B")).toBeUndefined();
  });
});
