import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { handleWebhookUrl } from "@/server/api/rest/webhook-handler";
import { compileRoute, matchRoute } from "@/server/runtime/webhooks";

/**
 * http-in route parameters (SPEC §23), as Express 4 / Node-RED: `/hello/:name` →
 * `msg.req.params.name`, through /hooks as a caller reaches them; Node-RED's "Handle URL
 * parameters" example imported as a user would; the first route registered wins, as in Express;
 * and a path that is not a route is a 400 at save.
 */

const testApp = setUpTestApp();
const request = testApp.request;
let token: string;
let slug: string;

beforeAll(async () => {
  const user = await signUp(request);
  token = user.accessToken;
  slug = (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: user.organizationId } })).slug;
});

const hook = (p: string, init?: RequestInit) => handleWebhookUrl(testApp.app, new Request(`http://app.test/hooks/${slug}${p}`, init));

async function deploy(name: string, nodes: unknown[], connections: unknown[]) {
  const created = await request("POST", "/flows", { token, body: { name, nodes, connections } });
  expect(created.status, created.text).toBe(201);
  const deployed = await request("POST", `/flows/${created.body.flow.id}/deploy`, { token });
  expect(deployed.status, deployed.text).toBe(200);
  return created.body.flow.id as string;
}

/** http-in → function (payload = the route and msg.req.params) → http-response: the request as the flow saw it, as JSON. */
function mirror(prefix: string, method: string, routePath: string) {
  return {
    nodes: [
      { id: `${prefix}_in`, type: "http-in", position: { x: 0, y: 0 }, config: { method, path: routePath } },
      { id: `${prefix}_set`, type: "function", position: { x: 100, y: 0 }, config: { code: `msg.payload = { route: ${JSON.stringify(routePath)}, params: msg.req.params }; return msg;` } },
      { id: `${prefix}_out`, type: "http-response", position: { x: 200, y: 0 }, config: {} },
    ],
    connections: [
      { source: `${prefix}_in`, target: `${prefix}_set` },
      { source: `${prefix}_set`, target: `${prefix}_out` },
    ],
  };
}

describe("route grammar (path-to-regexp 0.1.13, Express 4.22, as Node-RED 5.0.7; recorded against it in cases.ts)", () => {
  it.each([
    ["/hello/:name", "/hello/Nick", { name: "Nick" }],
    ["/hello/:name", "/hello/Nick/", { name: "Nick" }],
    ["/hello/:name", "/hello/Ni%20ck", { name: "Ni ck" }],
    ["/hello/:name", "/hello/a/b", null],
    ["/hello/:name", "/hello", null],
    ["/flights/:from-:to", "/flights/LAX-SFO", { from: "LAX", to: "SFO" }],
    ["/users/:id?", "/users", {}],
    ["/users/:id?", "/users/7", { id: "7" }],
    ["/files/*", "/files/a/b.txt", { 0: "a/b.txt" }],
    ["/a.b/:x", "/aXb/1", null],
    ["/Hello/:name", "/HELLO/nick", { name: "nick" }],
    ["/user/:id(\\d+)", "/user/42", { id: "42" }],
    ["/user/:id(\\d+)", "/user/4x", null],
    ["/report.:format", "/report.json", { format: "json" }],
    ["/docs/:path*", "/docs/a/b", { path: "a", 0: "/b" }],
    ["/flights/:from-:to", "/flights/a-b-c", { from: "a-b", to: "c" }],
  ])("%s on %s", (route, path, expected) => {
    expect(matchRoute(compileRoute(route)!, path)).toEqual(expected);
  });
});

describe("http-in route parameters through /hooks", () => {
  it("runs Node-RED's 'Handle URL parameters' example: /hello-param/:name answers with the name", async () => {
    const flows = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../../test/fixtures/node-red-examples/network/http/03 - Handle URL parameters.json"), "utf8")) as Array<Record<string, unknown>>;
    const tab = { id: "tabparams01", type: "tab", label: "params" };
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: [tab, ...flows.map((n) => ({ ...n, z: tab.id }))] } });
    expect(dry.status).toBe(200);
    expect((dry.body.report as Array<{ type: string; support: string }>).filter((r) => r.type === "http in")).toEqual([expect.objectContaining({ support: "supported" })]);
    const imported = await request("POST", "/flows/import", { token, body: { flows: [tab, ...flows.map((n) => ({ ...n, z: tab.id }))] } });
    expect(imported.status, imported.text).toBe(201);
    const flowId = imported.body.flows[0].id as string;
    expect((await request("POST", `/flows/${flowId}/deploy`, { token })).status).toBe(200);
    const res = await hook("/hello-param/Nick");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("<h1>Hello Nick!</h1>");
    // The template's text without a content type is HTML, as Express's res.send makes it (inert: sandboxed, nosniff).
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toMatch(/^sandbox;/);
    expect((await hook("/hello-param")).status).toBe(404);
    // Exported back, the path is Node-RED's.
    const exported = (await request("GET", `/flows/${flowId}/export`, { token })).body as Array<Record<string, unknown>>;
    expect(exported.find((n) => n.type === "http in")).toMatchObject({ url: "/hello-param/:name", method: "get" });
  });

  it("gives msg.req.params for every route, and the route registered first wins, as in Express", async () => {
    const first = mirror("rp1", "get", "/items/:id");
    await deploy("first", first.nodes, first.connections);
    const second = mirror("rp2", "get", "/items/special");
    await deploy("second", second.nodes, second.connections);
    const fixed = mirror("rp3", "post", "/plain");
    await deploy("third", fixed.nodes, fixed.connections);

    const item = await hook("/items/42");
    expect(await item.json()).toEqual({ route: "/items/:id", params: { id: "42" } });
    // Express: /items/:id was registered first, so it answers /items/special too.
    expect(await (await hook("/items/special")).json()).toEqual({ route: "/items/:id", params: { id: "special" } });
    const plain = await hook("/plain", { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(await plain.json()).toEqual({ route: "/plain", params: {} });
    expect((await hook("/items/1/2")).status).toBe(404);
  });

  it("matches whatever the case, and a parameter's own expression takes only what it matches, as Express does", async () => {
    const digits = mirror("rx1", "get", "/Orders/:id(\\d+)");
    await deploy("regex", digits.nodes, digits.connections);
    const fixed = mirror("rx2", "get", "/Status/Check");
    await deploy("fixed", fixed.nodes, fixed.connections);

    expect(await (await hook("/orders/42")).json()).toEqual({ route: "/Orders/:id(\\d+)", params: { id: "42" } });
    expect(await (await hook("/ORDERS/7/")).json()).toEqual({ route: "/Orders/:id(\\d+)", params: { id: "7" } });
    expect((await hook("/orders/abc")).status).toBe(404);
    expect(await (await hook("/status/check")).json()).toEqual({ route: "/Status/Check", params: {} });
    expect(await (await hook("/STATUS/CHECK")).json()).toEqual({ route: "/Status/Check", params: {} });
    // Two routes differing only in case are one route: the one that started first keeps answering (Express's order).
    const shadow = mirror("rx3", "get", "/status/check");
    await deploy("shadow", shadow.nodes, shadow.connections);
    expect(await (await hook("/status/CHECK")).json()).toEqual({ route: "/Status/Check", params: {} });
  });

  it("refuses a path that is not a route with a 400 naming it, and saves nothing", async () => {
    // A lone colon, a literal `?`, no leading slash, a parameter's expression RE2 does not take (a
    // backreference), an unclosed one, and a lookahead beside one (`-:to` after `:id(…)`).
    for (const bad of ["/x/:", "/x?y", "no-slash", "/x/:id(\\1)", "/x/:id(a+", "/x/:id(\\d+)-:to"]) {
      const res = await request("POST", "/flows", { token, body: { name: "bad", nodes: [{ id: "bad_in", type: "http-in", position: { x: 0, y: 0 }, config: { path: bad } }], connections: [] } });
      expect(res.status, bad).toBe(400);
      expect(res.body.error.message).toMatch(/path/);
    }
  });
});
