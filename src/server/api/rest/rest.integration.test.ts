import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createTestApp, restClient } from "@/test/app";
import type { AppServices } from "@/server/app-services";
import { AppError, errorTable, type ErrorCode, rateLimited } from "@/server/errors";
import { StoreUnavailableError } from "@/server/store";
import { createCallerFactory, createInnerContext, publicProcedure, router } from "../trpc";
import { createRestHandler } from "./handler";
import { limitTrpcBody } from "../trpc-body-limit";
import { CLIENT_IP_HEADER } from "../../http/client-ip";

// A router made for this test: one endpoint per failure mode, behind the real REST adapter.
const echoInput = z.object({ name: z.string().min(2), count: z.number().int().optional() });
const testRouter = router({
  echo: publicProcedure
    .meta({ rest: { method: "POST", path: "/echo", status: 201 } })
    .input(echoInput)
    .output(echoInput)
    .mutation(({ input }) => input),
  big: publicProcedure
    .meta({ rest: { method: "PUT", path: "/big/{id}", bodyLimit: 5 * 1024 * 1024 } })
    .input(z.object({ id: z.string(), data: z.string() }))
    .mutation(({ input }) => ({ id: input.id, size: input.data.length })),
  fail: publicProcedure
    .meta({ rest: { method: "GET", path: "/fail/{code}" } })
    .input(z.object({ code: z.string() }))
    .query(({ input }) => {
      if (input.code === "RATE_LIMITED") throw rateLimited(42);
      throw new AppError(input.code as ErrorCode, `failed with ${input.code}`);
    }),
  crash: publicProcedure.meta({ rest: { method: "GET", path: "/crash" } }).query(() => {
    throw new Error("boom at /srv/secret/path.ts:10");
  }),
  storeDown: publicProcedure.meta({ rest: { method: "GET", path: "/store-down" } }).query(() => {
    throw new StoreUnavailableError();
  }),
  revise: publicProcedure
    .meta({ rest: { method: "PUT", path: "/revs/{id}" } })
    .input(z.object({ id: z.string(), name: z.string().optional(), revision: z.number().int().optional() }))
    .mutation(({ input }) => input),
  gone: publicProcedure.meta({ rest: { method: "DELETE", path: "/things/{id}", status: 204 } }).input(z.object({ id: z.string() })).mutation(() => undefined),
});

let app: AppServices;
let send: (method: string, path: string, init?: { body?: string; headers?: Record<string, string> }) => Promise<Response>;

beforeAll(async () => {
  app = await createTestApp();
  const handle = createRestHandler({ router: testRouter, getAppServices: async () => app });
  send = (method, path, init = {}) =>
    handle(
      new Request(`http://app.test/api/v1${path}`, {
        method,
        body: init.body,
        headers: { [CLIENT_IP_HEADER]: "203.0.113.1", ...(init.body !== undefined ? { "content-length": String(Buffer.byteLength(init.body)) } : {}), ...init.headers },
      }),
    );
});
afterAll(async () => app?.close());

const json = { "content-type": "application/json" };

describe("REST adapter", () => {
  it("calls the procedure and answers with its status and output", async () => {
    const res = await send("POST", "/echo", { body: JSON.stringify({ name: "abc", count: 2 }), headers: json });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ name: "abc", count: 2 });
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("answers 204 with no body", async () => {
    const res = await send("DELETE", "/things/x");
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
  });

  it("refuses malformed JSON with 400 INVALID_JSON", async () => {
    const res = await send("POST", "/echo", { body: '{"name": "abc",', headers: json });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("INVALID_JSON");
  });

  it("refuses a body of white space as INVALID_JSON, and a PUT without a body as VALIDATION_FAILED", async () => {
    const blank = await send("POST", "/echo", { body: "  \n", headers: json });
    expect(blank.status).toBe(400);
    expect((await blank.json()).error.code).toBe("INVALID_JSON");
    const none = await send("PUT", "/revs/a", { headers: json });
    expect(none.status).toBe(400);
    expect((await none.json()).error).toMatchObject({ code: "VALIDATION_FAILED", message: "request body must be a JSON object" });
    expect((await send("PUT", "/revs/a", { body: "{}", headers: json })).status).toBe(200);
  });

  it("reads If-Match as the revision: one tag (weak or not), * for any; several, other text or a different body revision are refused", async () => {
    const put = async (ifMatch: string, body: object = { name: "x" }) => {
      const res = await send("PUT", "/revs/a", { body: JSON.stringify(body), headers: { ...json, "if-match": ifMatch } });
      return { status: res.status, body: await res.json() };
    };
    expect((await put('"7"')).body.revision).toBe(7);
    expect((await put('W/"7"')).body.revision).toBe(7);
    expect((await put("7")).body.revision).toBe(7);
    expect(await put("*")).toEqual({ status: 200, body: { id: "a", name: "x" } });
    expect(await put('"7"', { revision: 7 })).toMatchObject({ status: 200, body: { revision: 7 } });
    const differing = await put('"1"', { revision: 7 });
    expect(differing.status).toBe(409);
    expect(differing.body.error.code).toBe("REVISION_CONFLICT");
    for (const bad of ['"13", "1"', '"abc"', "NaN", '"-1"']) {
      const refused = await put(bad);
      expect(refused.status, bad).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "VALIDATION_FAILED", message: 'If-Match must name one revision, such as "7", or be *' });
    }
  });

  it("refuses wrong types with 400 VALIDATION_FAILED and details per field", async () => {
    const res = await send("POST", "/echo", { body: JSON.stringify({ name: "a", count: "two" }), headers: json });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(["count", "name"]);
  });

  it("refuses a body that is not an object", async () => {
    const res = await send("POST", "/echo", { body: "[1,2]", headers: json });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("VALIDATION_FAILED");
  });

  it("refuses other content types with 415", async () => {
    const res = await send("POST", "/echo", { body: "name=abc", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(415);
    expect((await res.json()).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const none = await send("POST", "/echo", { body: JSON.stringify({ name: "abc" }) });
    expect(none.status).toBe(415);
  });

  it("accepts a charset parameter on the JSON content type", async () => {
    const res = await send("POST", "/echo", { body: JSON.stringify({ name: "abc" }), headers: { "content-type": "application/json; charset=utf-8" } });
    expect(res.status).toBe(201);
  });

  it("refuses bodies over 1 MiB with 413, and allows larger bodies where the route says so", async () => {
    const big = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) });
    const res = await send("POST", "/echo", { body: big, headers: json });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("PAYLOAD_TOO_LARGE");

    const ok = await send("PUT", "/big/a", { body: JSON.stringify({ data: "y".repeat(3 * 1024 * 1024) }), headers: json });
    expect(ok.status).toBe(200);
    expect((await ok.json()).size).toBe(3 * 1024 * 1024);
    const tooBig = await send("PUT", "/big/a", { body: JSON.stringify({ data: "y".repeat(5 * 1024 * 1024 + 1) }), headers: json });
    expect(tooBig.status).toBe(413);
  });

  it("refuses a Content-Length that is not a number unread, with the same 413 as tRPC", async () => {
    const body = JSON.stringify({ name: "abc" });
    const res = await send("POST", "/echo", { body, headers: { ...json, "content-length": "abc" } });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("PAYLOAD_TOO_LARGE");

    const trpc = await limitTrpcBody(
      new Request("http://app.test/api/trpc/echo", { method: "POST", body, headers: { ...json, "content-length": "abc" } }),
      testRouter,
      "/api/trpc",
    );
    expect(trpc).toBeInstanceOf(Response);
    expect((trpc as Response).status).toBe(413);
    expect((await (trpc as Response).json()).error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("counts the bytes of a body sent without Content-Length", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 2 * 1024 * 1024) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const handle = createRestHandler({ router: testRouter, getAppServices: async () => app });
    const res = await handle(
      new Request("http://app.test/api/v1/echo", {
        method: "POST",
        body: stream,
        headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
        duplex: "half",
      } as RequestInit),
    );
    expect(res.status).toBe(413);
  });

  it("answers an unknown path with a JSON 404 and a known path with the wrong method with 405", async () => {
    const res = await send("GET", "/nothing/here");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect((await res.json()).error.code).toBe("NOT_FOUND");
    const wrong = await send("GET", "/echo");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
  });

  it("maps every error code to its status and the one envelope", async () => {
    for (const [code, { status }] of Object.entries(errorTable)) {
      const res = await send("GET", `/fail/${code}`);
      expect(res.status, code).toBe(status);
      const body = await res.json();
      expect(body.error.code, code).toBe(code);
      expect(typeof body.error.message).toBe("string");
    }
  });

  it("sends Retry-After with 429", async () => {
    const res = await send("GET", "/fail/RATE_LIMITED");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("42");
  });

  it("hides a crash behind 500 INTERNAL without a stack trace", async () => {
    const res = await send("GET", "/crash");
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: { code: "INTERNAL", message: "internal error" } });
    expect(text).not.toMatch(/boom|secret|\.ts/);
  });

  it("answers 503 UNAVAILABLE when the store cannot be reached", async () => {
    const res = await send("GET", "/store-down");
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect((await res.json()).error.code).toBe("UNAVAILABLE");
  });

  it("reports the same codes to tRPC callers", async () => {
    const caller = createCallerFactory(testRouter)(createInnerContext(app));
    await expect(caller.fail({ code: "LAST_OWNER" })).rejects.toMatchObject({ code: "CONFLICT", cause: { code: "LAST_OWNER" } });
  });
});

describe("system endpoints", () => {
  it("health, ready, settings", async () => {
    const request = restClient(app);
    const health = await request("GET", "/health");
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("ok");

    const ready = await request("GET", "/ready");
    expect(ready.status).toBe(200);
    expect(ready.body.checks.database).toMatchObject({ status: "ok", kind: process.env.DATABASE_URL ? "postgresql" : "embedded" });
    expect(ready.body.checks.store).toMatchObject({ status: "ok", kind: process.env.REDIS_URL ? "redis" : "memory" });

    const settings = await request("GET", "/settings");
    expect(settings.status).toBe(200);
    expect(settings.body.password_policy).toMatchObject({ min_length: 8, max_length: 72, max_bytes: 72 });
    expect(settings.body.ws_url).toBe("ws://app.test/ws");
    expect(settings.body.tokens.access_token_ttl_sec).toBe(900);
    expect(settings.body.rate_limits.login_failures_per_account_per_15_min).toBe(10);
    expect(settings.body.terms_url).toBeNull();
  });

  it("settings give the operator's terms of service (TERMS_URL); one that is not an http(s) URL does not start", async () => {
    const withTerms = await createTestApp({ TERMS_URL: "https://example.com/legal/terms" });
    try {
      const res = await restClient(withTerms)("GET", "/settings");
      expect(res.status).toBe(200);
      expect(res.body.terms_url).toBe("https://example.com/legal/terms");
    } finally {
      await withTerms.close();
    }
    await expect(createTestApp({ TERMS_URL: "javascript:alert(1)" })).rejects.toThrow(/TERMS_URL/);
  });

  it("ready answers 503 with the failing check when the database is closed", async () => {
    const broken = await createTestApp();
    await broken.db.close();
    const res = await restClient(broken)("GET", "/ready");
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("UNAVAILABLE");
    expect(res.body.error.details[0].path).toBe("database");
    // The whole app (its store, runtime and directory); the database is closed already.
    await broken.close();
  });
});
