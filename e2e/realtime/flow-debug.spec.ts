import { test, expect } from "@playwright/test";
import WebSocket from "ws";

/** Registers through the API and returns a bearer token. */
async function signUp(baseURL: string) {
  const email = `rt-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;
  const password = "realtime test passphrase";
  const post = (path: string, body: unknown, token?: string) =>
    fetch(`${baseURL}/api/v1${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  expect((await post("/auth/register", { email, password, organization_name: "Realtime Org", accept_terms: true })).status).toBe(201);
  const login = await (await post("/auth/login", { email, password })).json();
  return { token: login.access_token as string, post };
}

test("deploy inject → function → debug over REST, inject, and receive the debug event on a WebSocket", async ({ baseURL }) => {
  const { token, post } = await signUp(baseURL!);
  const suffix = Date.now().toString(36);
  const ids = { inject: `inj-${suffix}`, fn: `fn-${suffix}`, debug: `dbg-${suffix}` };
  const created = await post(
    "/flows",
    {
      name: "e2e realtime",
      nodes: [
        { id: ids.inject, type: "inject", config: { payload_type: "number", payload: "20" } },
        { id: ids.fn, type: "function", config: { code: "msg.payload = { celsius: msg.payload, fahrenheit: msg.payload * 9 / 5 + 32 }; return msg;" } },
        { id: ids.debug, type: "debug" },
      ],
      connections: [
        { source: ids.inject, target: ids.fn },
        { source: ids.fn, target: ids.debug },
      ],
    },
    token,
  );
  expect(created.status).toBe(201);
  const flow = (await created.json()).flow;

  const ws = new WebSocket(`${baseURL!.replace(/^http/, "ws")}/ws`);
  const frames: Array<Record<string, any>> = [];
  ws.on("message", (d) => frames.push(JSON.parse(d.toString())));
  await new Promise((resolve) => ws.once("open", resolve));
  ws.send(JSON.stringify({ type: "auth", token }));
  await expect.poll(() => frames.some((f) => f.type === "ready")).toBe(true);
  ws.send(JSON.stringify({ type: "subscribe", topics: ["debug", "flow.deployed"], flow_id: flow.id }));

  const deploy = await post(`/flows/${flow.id}/deploy`, {}, token);
  expect(deploy.status).toBe(200);
  expect((await deploy.json()).deployment.state).toBe("running");

  const inject = await post(`/nodes/${ids.inject}/inject`, { payload: 100 }, token);
  expect(inject.status).toBe(200);
  await expect.poll(() => frames.find((f) => f.topic === "debug")?.data?.msg).toEqual({ celsius: 100, fahrenheit: 212 });
  const debug = frames.find((f) => f.topic === "debug")!;
  expect(debug).toMatchObject({ type: "event", flow_id: flow.id, data: { node_id: ids.debug } });
  ws.close();
});
