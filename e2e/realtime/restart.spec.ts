import { test, expect } from "@playwright/test";
import WebSocket from "ws";
import { ownServer } from "../helpers/own-server";

// A server of its own (not the shared one): this test kills it with SIGKILL.
const server = ownServer({ port: Number(process.env.E2E_RESTART_PORT ?? 3291), name: "restart" });
const api = server.api;

/** The template node's output tells which version of the flow ran. */
const graph = (version: string) => ({
  nodes: [
    { id: "restart-inject", type: "inject", config: { payload_type: "string", payload: "x" } },
    { id: "restart-tpl", type: "template", config: { template: version } },
    { id: "restart-dbg", type: "debug" },
  ],
  connections: [
    { source: "restart-inject", target: "restart-tpl" },
    { source: "restart-tpl", target: "restart-dbg" },
  ],
});

/** Injects and returns what the debug node shows, seen on a WebSocket. */
async function runOnce(token: string): Promise<unknown> {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws`, { headers: { authorization: `Bearer ${token}` } });
  const frames: Array<Record<string, any>> = [];
  ws.on("message", (d) => frames.push(JSON.parse(d.toString())));
  await expect.poll(() => frames.some((f) => f.type === "ready")).toBe(true);
  // On PostgreSQL + Redis the restarted instance takes the flow once the killed one's lease has run
  // out (about 4 s, src/server/flow-runtime/README.md "Several instances"); until then the inject is refused (409
  // or 503) and nothing is sent, so asking again cannot send twice.
  await expect.poll(async () => (await api("POST", "/nodes/restart-inject/inject", token, {})).status, { timeout: 20_000 }).toBe(200);
  await expect.poll(() => frames.some((f) => f.topic === "debug")).toBe(true);
  ws.close();
  return frames.find((f) => f.topic === "debug")!.data.msg;
}

test.describe.configure({ timeout: 180_000 });

test("deployed flows run again after kill -9, and a deploy killed midway leaves the old or the new version, never a mix", async () => {
  server.start();
  try {
    await server.waitUp();
    const email = `restart-${Date.now()}@example.com`;
    await api("POST", "/auth/register", undefined, { email, password: "restart passphrase 1", organization_name: "Restart Org", accept_terms: true });
    const login = async () => (await api("POST", "/auth/login", undefined, { email, password: "restart passphrase 1" })).body.access_token as string;
    let token = await login();
    const flow = (await api("POST", "/flows", token, { name: "survivor", ...graph("v1") })).body.flow;
    expect((await api("POST", `/flows/${flow.id}/deploy`, token)).body.deployment.state).toBe("running");

    await server.kill9();
    server.start();
    await server.waitUp();
    token = await login();
    const after = await api("GET", `/flows/${flow.id}`, token);
    expect(after.body.flow).toMatchObject({ state: "running", deployed_revision: 1 });
    expect(await runOnce(token)).toBe("v1");

    // Save v2, start its deploy, and kill the server while it is in flight.
    const saved = await api("PUT", `/flows/${flow.id}`, token, graph("v2"));
    expect(saved.body.flow.revision).toBe(2);
    const inFlight = api("POST", `/flows/${flow.id}/deploy`, token).catch(() => null);
    await new Promise((r) => setTimeout(r, 15));
    await server.kill9();
    await inFlight;

    server.start();
    await server.waitUp();
    token = await login();
    const recovered = (await api("GET", `/flows/${flow.id}`, token)).body.flow;
    expect(recovered.state).toBe("running");
    expect([1, 2]).toContain(recovered.deployed_revision);
    const history = (await api("GET", `/flows/${flow.id}/deployments`, token)).body.deployments;
    expect(history[0].revision).toBe(recovered.deployed_revision);
    const nodes = (await api("GET", `/flows/${flow.id}/nodes`, token)).body.nodes;
    expect(nodes.map((n: { id: string }) => n.id).sort()).toEqual(["restart-dbg", "restart-inject", "restart-tpl"]);
    // What runs is exactly the version the deployment record says.
    expect(await runOnce(token)).toBe(`v${recovered.deployed_revision}`);
  } finally {
    await server.dispose();
  }
});
