import { expect, test, type APIResponse } from "@playwright/test";
import WebSocket from "ws";

// The server under test inherits this process's environment (playwright.config.ts), so the
// expected backends follow the same variables.
// CI names the backends it expects (E2E_EXPECT_*), so a production run can never pass on the embedded defaults.
const expectedDatabase = process.env.E2E_EXPECT_DATABASE ?? (process.env.DATABASE_URL ? "postgresql" : "embedded");
const expectedStore = process.env.E2E_EXPECT_STORE ?? (process.env.REDIS_URL ? "redis" : "memory");

/** Every JSON answer of the API is JSON and carries nosniff. */
async function json(res: APIResponse): Promise<Record<string, unknown>> {
  expect(res.headers()["content-type"]).toMatch(/^application\/json/);
  expect(res.headers()["x-content-type-options"]).toBe("nosniff");
  return (await res.json()) as Record<string, unknown>;
}

test.describe("system API", () => {
  test("GET /api/v1/health is ok", async ({ request }) => {
    const res = await request.get("/api/v1/health");
    expect(res.status()).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ status: "ok" });
    expect(typeof body.version).toBe("string");
    expect(body.uptime_sec).toBeGreaterThanOrEqual(0);
    // The instance's name, as flows report where they run (SPEC §11).
    expect(body.instance_id).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
    expect(res.headers()["x-request-id"]).toBeTruthy();
    // Idle connections outlive a balancer's 60 s (HTTP_KEEP_ALIVE_TIMEOUT_MS), and clients are told so.
    expect(res.headers()["keep-alive"]).toBe("timeout=65");
  });

  test("GET /api/v1/ready reports the database and the store", async ({ request }) => {
    const res = await request.get("/api/v1/ready");
    expect(res.status()).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({
      status: "ready",
      checks: {
        database: { status: "ok", kind: expectedDatabase },
        store: { status: "ok", kind: expectedStore },
      },
    });
  });

  test("GET /api/v1/settings publishes the policies and the WebSocket URL", async ({ request, baseURL }) => {
    const res = await request.get("/api/v1/settings");
    expect(res.status()).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ name: "Flowplane", public_url: baseURL, password_policy: { min_length: 8 } });
    expect(body.ws_url).toMatch(/\/ws$/);
    expect(body.ws_url).toBe(`${baseURL!.replace(/^http/, "ws")}/ws`);
  });

  test("GET /api/v1/openapi.json is an OpenAPI 3.1 document", async ({ request }) => {
    const res = await request.get("/api/v1/openapi.json");
    expect(res.status()).toBe(200);
    const doc = (await json(res)) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/v1/health", "/api/v1/ready", "/api/v1/settings"]));
    expect(doc.paths["/api/v1/health"]).toHaveProperty("get");
  });

  test("an unknown endpoint is a JSON 404", async ({ request }) => {
    const res = await request.get("/api/v1/does-not-exist");
    expect(res.status()).toBe(404);
    const body = (await json(res)) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("NOT_FOUND");
    expect(typeof body.error.message).toBe("string");
  });

  test("a wrong method on a known endpoint is a JSON 405 with Allow", async ({ request }) => {
    const res = await request.delete("/api/v1/health");
    expect(res.status()).toBe(405);
    expect(res.headers()["allow"]).toContain("GET");
    const body = (await json(res)) as { error: { code: string } };
    expect(body.error.code).toBe("METHOD_NOT_ALLOWED");
  });
});

test.describe("WebSocket /ws", () => {
  function wsUrl(baseURL: string | undefined): string {
    return `${baseURL!.replace(/^http/, "ws")}/ws`;
  }

  function open(url: string): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once("open", () => resolve(ws));
      ws.once("error", reject);
    });
  }

  function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
    return new Promise((resolve) => ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  function nextFrame(ws: WebSocket): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      ws.once("message", (data) => {
        try {
          resolve(JSON.parse(data.toString()) as Record<string, unknown>);
        } catch (err) {
          reject(err as Error);
        }
      });
      ws.once("close", (code) => reject(new Error(`closed with ${code} before a frame arrived`)));
    });
  }

  test("a bogus auth token closes the socket with 4401", async ({ baseURL }) => {
    const ws = await open(wsUrl(baseURL));
    const done = closed(ws);
    ws.send(JSON.stringify({ type: "auth", token: "bogus" }));
    const { code } = await done;
    expect(code).toBe(4401);
  });

  test("a non-JSON frame gets an error frame before authentication", async ({ baseURL }) => {
    const ws = await open(wsUrl(baseURL));
    try {
      const frame = nextFrame(ws);
      ws.send("this is not json");
      expect(await frame).toMatchObject({ type: "error" });
      // The connection stays open for the client to authenticate.
      expect(ws.readyState).toBe(WebSocket.OPEN);
      const done = closed(ws);
      ws.send(JSON.stringify({ type: "auth", token: "bogus" }));
      expect((await done).code).toBe(4401);
    } finally {
      ws.terminate();
    }
  });
});
