/**
 * Subflow instances running behind the doors a user uses (SPEC §16, issue 22): a definition made
 * through /subflows, used twice in a flow behind two webhooks, deployed; editing the definition and
 * redeploying it (POST /subflows/{id}/deploy) changes the instance that does not override it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { handleWebhook } from "@/server/api/rest/webhook-handler";

const testApp = setUpTestApp();
const request = testApp.request;
let owner: Awaited<ReturnType<typeof signUp>>;
let slug: string;

beforeAll(async () => {
  owner = await signUp(request);
  slug = (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.organizationId } })).slug;
});

const call = async (path: string) => {
  const res = await handleWebhook(testApp.app, new Request(`http://app.test/hooks/${slug}/${path}`), slug, [path]);
  return { status: res.status, body: await res.text() };
};

describe("subflow instances in a deployed flow", () => {
  it("each instance runs the definition with its own env; a redeployed definition reaches the instance that does not override it", async () => {
    const created = await request("POST", "/subflows", {
      token: owner.accessToken,
      body: {
        name: "Greeter",
        env: [{ name: "GREETING", type: "str", value: "hello" }],
        nodes: [
          { id: "in", type: "subflow-in" },
          { id: "greet", type: "change", config: { rules: [{ t: "set", p: "payload", p_type: "msg", to: "${GREETING} from ${NR_SUBFLOW_NAME}", to_type: "env" }] } },
          { id: "out", type: "subflow-out", config: { port: 0 } },
        ],
        connections: [
          { source: "in", target: "greet" },
          { source: "greet", target: "out" },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const sf = created.body.subflow as { id: string };
    const flow = await request("POST", "/flows", {
      token: owner.accessToken,
      body: {
        name: "greetings",
        nodes: [
          { id: "sfe-in1", type: "http-in", config: { method: "get", path: "/greet-a" } },
          { id: "sfe-a", type: `subflow:${sf.id}`, name: "A", config: { env: [{ name: "GREETING", type: "str", value: "hi" }] } },
          { id: "sfe-out1", type: "http-response" },
          { id: "sfe-in2", type: "http-in", config: { method: "get", path: "/greet-b" } },
          { id: "sfe-b", type: `subflow:${sf.id}`, name: "B" },
          { id: "sfe-out2", type: "http-response" },
        ],
        connections: [
          { source: "sfe-in1", target: "sfe-a" },
          { source: "sfe-a", target: "sfe-out1" },
          { source: "sfe-in2", target: "sfe-b" },
          { source: "sfe-b", target: "sfe-out2" },
        ],
      },
    });
    expect(flow.status, flow.text).toBe(201);
    const deployed = await request("POST", `/flows/${flow.body.flow.id}/deploy`, { token: owner.accessToken });
    expect(deployed.body.deployment?.state, deployed.text).toBe("running");
    expect(await call("greet-a")).toEqual({ status: 200, body: "hi from A" });
    expect(await call("greet-b")).toEqual({ status: 200, body: "hello from B" });

    const edited = await request("PUT", `/subflows/${sf.id}`, { token: owner.accessToken, body: { revision: 1, env: [{ name: "GREETING", type: "str", value: "howdy" }] } });
    expect(edited.status, edited.text).toBe(200);
    const redeployed = await request("POST", `/subflows/${sf.id}/deploy`, { token: owner.accessToken });
    expect(redeployed.status, redeployed.text).toBe(200);
    expect(await call("greet-a")).toEqual({ status: 200, body: "hi from A" });
    expect(await call("greet-b")).toEqual({ status: 200, body: "howdy from B" });
  });
});
