import { afterEach, describe, expect, it, vi } from "vitest";
import { errorTable } from "../errors";
import type { Message } from "./types";
import { SOCKET_ROUTE_METHOD, WebhookRegistry, compileRoute, matchRoute, routePathProblem, webhookRouteKey, type WebhookListener, type WebhookResponse } from "./webhooks";

afterEach(() => {
  vi.useRealTimers();
});

describe("WebhookRegistry", () => {
  it("answers a request its flow leaves unanswered with 504 GATEWAY_TIMEOUT from the one error table", () => {
    vi.useFakeTimers();
    const registry = new WebhookRegistry();
    const answers: WebhookResponse[] = [];
    registry.openResponse({ flowId: "flw_1", organizationId: "org_1" }, (r) => answers.push(r));
    vi.advanceTimersByTime(29_999);
    expect(answers).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(answers).toEqual([
      {
        status: errorTable.GATEWAY_TIMEOUT.status,
        headers: { "content-type": "application/json" },
        body: { error: { code: "GATEWAY_TIMEOUT", message: "the flow did not answer in time" } },
      },
    ]);
    expect(answers[0]!.status).toBe(504);
  });

  it("times each pending request out 30 s after it came, however many wait and whichever were answered", () => {
    vi.useFakeTimers();
    const registry = new WebhookRegistry();
    const binding = { flowId: "flw_1", organizationId: "org_1" };
    const answers: string[] = [];
    const open = (name: string) => {
      const id = registry.openResponse(binding, (r) => answers.push(`${name} ${r.status}`));
      const msg: Message = { _msgid: name, res: { _id: id } };
      return msg;
    };
    const first = open("first");
    vi.advanceTimersByTime(10_000);
    open("second");
    vi.advanceTimersByTime(5_000);
    const third = open("third");
    // The oldest is answered by its flow: the others still time out at their own deadlines.
    expect(registry.respond(binding, first, { status: 200, headers: {}, body: "ok" })).toBe(true);
    expect(registry.respond(binding, first, { status: 200, headers: {}, body: "again" })).toBe(false);
    vi.advanceTimersByTime(24_999);
    expect(answers).toEqual(["first 200"]);
    vi.advanceTimersByTime(1);
    expect(answers).toEqual(["first 200", "second 504"]);
    vi.advanceTimersByTime(4_999);
    expect(answers).toEqual(["first 200", "second 504"]);
    vi.advanceTimersByTime(1);
    expect(answers).toEqual(["first 200", "second 504", "third 504"]);
    // Too late: the flow's answer goes nowhere.
    expect(registry.respond(binding, third, { status: 200, headers: {}, body: "late" })).toBe(false);
    // Nothing left waiting, no timer left; a new request gets its full 30 s.
    expect(vi.getTimerCount()).toBe(0);
    open("fourth");
    vi.advanceTimersByTime(29_999);
    expect(answers).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(answers.at(-1)).toBe("fourth 504");
  });

  it("a timed-out request whose answer throws leaves the later ones their timeout", () => {
    vi.useFakeTimers();
    const registry = new WebhookRegistry();
    const binding = { flowId: "flw_1", organizationId: "org_1" };
    const answers: number[] = [];
    registry.openResponse(binding, () => {
      throw new Error("the socket is gone");
    });
    vi.advanceTimersByTime(5_000);
    registry.openResponse(binding, (r) => answers.push(r.status));
    expect(() => vi.advanceTimersByTime(25_000)).toThrow("the socket is gone");
    vi.advanceTimersByTime(4_999);
    expect(answers).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(answers).toEqual([504]);
  });

  it("never lets a slug (percent-decoded from the URL, so it may hold spaces) alias another route", () => {
    const registry = new WebhookRegistry();
    const listener = (flowId: string): WebhookListener => ({ flowId, organizationId: "org_1", nodeId: "n", onRequest: () => undefined });
    // Paths with spaces are refused at save; the registry does not rely on it.
    const served = listener("flw_1");
    registry.register("acme", "post", "/x get /y", served);
    expect(registry.lookup("acme", "POST", "/x get /y")).toBe(served);
    expect(registry.lookup("acme post /x", "get", "/y")).toBeUndefined();
    expect(registry.lookup("acme post", "x", "get /y")).toBeUndefined();
    // Nor does an escape written by hand make one.
    expect(registry.lookup("acme%20post%20/x", "get", "/y")).toBeUndefined();
    registry.register("other", "get", "/a", listener("flw_2"));
    expect(registry.lookup("other get /a", "get", "/")).toBeUndefined();
  });

  it("matches routes with parameters in registration order, fixed paths among them, and forgets them when unregistered", async () => {
    const registry = new WebhookRegistry();
    const listener = (flowId: string): WebhookListener => ({ flowId, organizationId: "org_1", nodeId: flowId, onRequest: (req, respond) => respond({ status: 200, headers: {}, body: req.params }) });
    const fixed = listener("flw_fixed");
    const param = listener("flw_param");
    const later = listener("flw_later");
    registry.register("acme", "get", "/items/special", fixed);
    const dropParam = registry.register("acme", "get", "/items/:id", param);
    registry.register("acme", "get", "/items/:id/:part?", later);
    // The fixed path came first: it answers itself; the parameter route everything else it matches.
    expect(registry.match("acme", "get", "/items/special")).toEqual({ listener: fixed, params: {} });
    expect(registry.match("acme", "get", "/items/7")).toEqual({ listener: param, params: { id: "7" } });
    expect(registry.match("acme", "get", "/items/7/x")).toEqual({ listener: later, params: { id: "7", part: "x" } });
    expect(registry.match("acme", "post", "/items/7")).toBeUndefined();
    expect(registry.match("other", "get", "/items/7")).toBeUndefined();
    expect(await registry.handle("acme", { method: "GET", path: "/items/a%2Fb", query: {}, headers: {}, body: undefined })).toMatchObject({ body: { id: "a/b" } });
    // Another flow may not take a route as written, parameters or not.
    expect(() => registry.register("acme", "get", "/items/:id", listener("flw_other"))).toThrow(/served by another flow/);
    dropParam();
    expect(registry.match("acme", "get", "/items/7")).toEqual({ listener: later, params: { id: "7" } });
  });
});

describe("webhookRouteKey", () => {
  it("reads as slug, method and path for every valid route (the keys other instances already use)", () => {
    expect(webhookRouteKey("acme-co", "POST", "/orders/new/")).toBe("acme-co post /orders/new");
    expect(webhookRouteKey("acme-co", "get", "//")).toBe("acme-co get /");
  });

  it("is one-to-one: spaces and % inside a part are escaped", () => {
    const triples: Array<[string, string, string]> = [
      ["acme", "post", "/x get /y"],
      ["acme post /x", "get", "/y"],
      ["acme post", "/x", "get /y"],
      ["acme%20post%20/x", "get", "/y"],
      ["acme\tpost", "get", "/y"],
      ["acme\u00a0post", "get", "/y"],
    ];
    const keys = triples.map(([slug, method, path]) => webhookRouteKey(slug, method, path));
    expect(new Set(keys).size).toBe(triples.length);
    for (const key of keys) expect(key.split(" ")).toHaveLength(3);
  });
});

describe("http-in routes (Express 4's grammar)", () => {
  it("runs a route parameter's own expression on RE2: a pattern V8 would backtrack on for ever answers at once", () => {
    const route = compileRoute("/slow/:id(\\w*\\w*\\w*\\w*\\w*\\w*\\w*x)")!;
    expect(matchRoute(route, `/slow/${"a".repeat(5000)}`)).toBeNull();
    expect(matchRoute(route, "/SLOW/aax")).toEqual({ id: "aax" });
  });

  it("refuses at save what RE2 cannot run, and a literal part that is not URL-safe", () => {
    expect(routePathProblem("/x/:id(\\d+)")).toBeNull();
    expect(routePathProblem("/x/:id(\\1)")).toMatch(/RE2 syntax/);
    expect(routePathProblem("/x/:id(\\d+)-:to")).toMatch(/-:to/);
    expect(routePathProblem("/x?y")).toMatch(/URL-safe/);
    expect(routePathProblem("x")).toBe("must start with /");
  });

  it("keys an HTTP route's path in lower case, a websocket listener's as it is", () => {
    expect(webhookRouteKey("acme", "GET", "/Hello/")).toBe(webhookRouteKey("acme", "get", "/hello"));
    expect(webhookRouteKey("acme", SOCKET_ROUTE_METHOD, "/Ws")).not.toBe(webhookRouteKey("acme", SOCKET_ROUTE_METHOD, "/ws"));
  });
});
