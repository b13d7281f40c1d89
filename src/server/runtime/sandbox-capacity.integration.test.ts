/**
 * One organization cannot take the process's function-node capacity (issue 28: each function node
 * is a WebAssembly instance reserving ~10 GB of address space): past FUNCTION_NODES_PER_ORGANIZATION
 * a deploy's flow goes into error saying why, and another organization deploys as usual.
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";

const testApp = setUpTestApp({ FUNCTION_NODES_PER_ORGANIZATION: "2" });
const request = testApp.request;

const functions = (tag: string, n: number) => Array.from({ length: n }, (_, i) => ({ id: `${tag}-fn${i}`, type: "function", config: { code: "return msg;" } }));

async function deploy(token: string, nodes: unknown[]) {
  const flow = (await request("POST", "/flows", { token, body: { name: "fns", nodes } })).body.flow;
  const res = await request("POST", `/flows/${flow.id}/deploy`, { token });
  expect(res.status, res.text).toBe(200);
  return { id: flow.id as string, state: res.body.deployment.state as string };
}

describe("function nodes per organization", () => {
  it("a deploy past the bound goes into error with the reason; another organization is not affected; stopping frees the slots", async () => {
    const a = await signUp(request);
    const b = await signUp(request);
    const first = await deploy(a.accessToken, functions("a1", 2));
    expect(first.state).toBe("running");
    const over = await deploy(a.accessToken, functions("a2", 1));
    expect(over.state).toBe("error");
    const flow = (await request("GET", `/flows/${over.id}`, { token: a.accessToken })).body.flow;
    expect(flow.state_error).toMatch(/this organization already runs 2 function nodes, the most it may run at once/);
    expect((await deploy(b.accessToken, functions("b1", 2))).state).toBe("running");
    // Disabling the first flow gives its slots back: the second deploys.
    expect((await request("PUT", `/flows/${first.id}`, { token: a.accessToken, body: { enabled: false } })).status).toBe(200);
    const again = await request("POST", `/flows/${over.id}/deploy`, { token: a.accessToken });
    expect(again.body.deployment.state, again.text).toBe("running");
  });
});
