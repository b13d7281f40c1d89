import { describe, expect, it } from "vitest";
import { groupScopes, groupSetting, groupVariables } from "./group-env";
import { builtinVariables, memoryContextStore } from "./memory-context";
import { envValueCopy } from "./env-values";

const context = { flow: memoryContextStore(), global: memoryContextStore() };
const flow = (name: string) => ({ FLOW_ONLY: "flow", SECRET: "the organization's secret" })[name];

describe("group env (Node-RED's Group.getSetting)", () => {
  it("leaves a cred entry out, so the organization's variable of that name shows through", async () => {
    const errors: string[] = [];
    const scopes = await groupScopes([{ id: "g1", name: "G", style: {}, nodes: ["n1"], env: [{ name: "SECRET", type: "cred", value: "" }, { name: "N", type: "num", value: "2" }] }], flow, context, (_, m) => errors.push(m));
    const scope = scopes.get("n1")!;
    expect([groupSetting(scope, "SECRET", flow), groupSetting(scope, "N", flow), groupSetting(scope, "FLOW_ONLY", flow)]).toEqual(["the organization's secret", 2, "flow"]);
    expect(errors).toEqual([]);
  });

  it("hands out copies of object values (json, bin), so a reader that changes one changes only its own", async () => {
    const scopes = await groupScopes([{ id: "g1", name: "G", style: {}, nodes: ["n1"], env: [{ name: "CFG", type: "json", value: '{"a":[1]}' }, { name: "RAW", type: "bin", value: "[1,2]" }] }], flow, context, () => undefined);
    const scope = scopes.get("n1")!;
    const first = groupSetting(scope, "CFG", flow) as { a: number[] };
    first.a.push(2);
    expect(groupSetting(scope, "CFG", flow)).toEqual({ a: [1] });
    const raw = groupSetting(scope, "RAW", flow) as Buffer;
    raw[0] = 9;
    expect(Buffer.isBuffer(groupSetting(scope, "RAW", flow))).toBe(true);
    expect([...(groupSetting(scope, "RAW", flow) as Buffer)]).toEqual([1, 2]);
  });

  it("a bad entry is undefined and reported; the node's own built-ins come before the group's", async () => {
    const errors: string[] = [];
    const scopes = await groupScopes([{ id: "g1", name: "G", style: {}, nodes: ["n1"], env: [{ name: "BAD", type: "json", value: "{" }, { name: "NR_NODE_ID", type: "str", value: "shadow" }] }], flow, context, (id, m) => errors.push(`${id}: ${m}`));
    const env = groupVariables(scopes.get("n1")!, builtinVariables({ NR_NODE_ID: "n1" }));
    expect([env.get("BAD"), env.get("NR_NODE_ID"), env.get("NR_GROUP_ID")]).toEqual([undefined, "n1", "g1"]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^g1: Error evaluating env property 'BAD': SyntaxError/);
  });

  it("a value a clone cannot copy (a JSONata result holding a function) is handed out as it is, not an error", () => {
    const fn = () => 1;
    const value = { f: fn };
    expect(envValueCopy(value)).toBe(value);
    expect(envValueCopy({ a: [1] })).toEqual({ a: [1] });
  });
});
