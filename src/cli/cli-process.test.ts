import { execFile } from "node:child_process";
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";

/**
 * The CLI's transport and terminal rules through its own process (bin/flowplane.mjs, which runs the
 * compiled bundle), against local servers: the key never reaches a second origin a redirect points
 * to, plain http:// to another host is refused, and the server's strings cannot act on the terminal.
 */
const BIN = path.resolve(import.meta.dirname, "../../bin/flowplane.mjs");
const KEY = `service_${"k".repeat(43)}`;
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const NASTY = "evil\u001b]0;owned\u0007\u001b[2J\u009b31m\u202egnp.exe\u2066\nfake";

interface Seen {
  method: string;
  url: string;
  key: string | undefined;
}

function listen(handler: http.RequestListener): Promise<{ server: http.Server; origin: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, key: req.headers["x-api-key"] as string | undefined });
    handler(req, res);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen })));
}

const json = (res: http.ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

let dir: string;
let a: Awaited<ReturnType<typeof listen>>;
let b: Awaited<ReturnType<typeof listen>>;
let wss: WebSocketServer;
const flows = [{ id: "flw_aaaaaaaaaaaa", name: NASTY, state: "running", revision: 3, nodes: 2 }];

function cli(args: string[], url: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH, HOME: dir, FLOWPLANE_CONFIG: path.join(dir, "config.json"), FLOWPLANE_URL: url, FLOWPLANE_API_KEY: KEY } as unknown as NodeJS.ProcessEnv;
    execFile(process.execPath, [BIN, ...args], { env, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "fp-cli-process-"));
  b = await listen((_req, res) => json(res, 200, { flows: [] }));
  a = await listen((req, res) => {
    if (req.url === "/api/v1/flows") return json(res, 200, { flows });
    if (req.url === "/away/api/v1/flows") return res.writeHead(302, { location: `${b.origin}/api/v1/flows` }).end();
    if (req.url === "/away/api/v1/flows/flw_aaaaaaaaaaaa/deploy") return res.writeHead(307, { location: `${b.origin}/api/v1/flows/flw_aaaaaaaaaaaa/deploy` }).end();
    if (req.url === "/moved/api/v1/flows") return res.writeHead(301, { location: "/api/v1/flows" }).end();
    if (req.url === "/fail/api/v1/flows") return json(res, 403, { error: { code: "FORBIDDEN", message: `no \u001b[1m${NASTY}` } });
    json(res, 404, { error: { code: "NOT_FOUND", message: "not found" } });
  });
  wss = new WebSocketServer({ server: a.server, path: "/ws" });
  wss.on("connection", (socket) => {
    socket.send(JSON.stringify({ type: "ready" }));
    socket.on("message", () => {
      socket.send(JSON.stringify({ type: "subscribed" }));
      socket.send(JSON.stringify({ type: "event", topic: "debug", flow_id: "flw_aaaaaaaaaaaa", ts: "2026-01-01T00:00:00.000Z", data: { payload: NASTY, name: "\u009d\u202d" } }));
    });
  });
}, 30_000);

afterAll(async () => {
  wss.close();
  await Promise.all([a, b].map(({ server }) => new Promise((resolve) => server.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  a.seen.length = 0;
  b.seen.length = 0;
});

describe("flowplane (the process)", () => {
  it("never sends the key to another origin a redirect names, for a GET or a POST", async () => {
    const list = await cli(["flows", "list"], `${a.origin}/away`);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain(`the server redirected to ${b.origin}, another origin than ${a.origin}: your API key is not sent there`);
    const deploy = await cli(["flows", "deploy", "flw_aaaaaaaaaaaa"], `${a.origin}/away`);
    expect(deploy.code).toBe(1);
    expect(b.seen).toEqual([]);
    expect(a.seen.map((s) => s.key)).toEqual([KEY, KEY]);
  }, 30_000);

  it("follows a redirect within the same origin, with the key", async () => {
    const list = await cli(["flows", "list", "--json"], `${a.origin}/moved`);
    expect(list, list.stderr).toMatchObject({ code: 0 });
    expect(a.seen).toEqual([
      { method: "GET", url: "/moved/api/v1/flows", key: KEY },
      { method: "GET", url: "/api/v1/flows", key: KEY },
    ]);
  }, 30_000);

  it("refuses plain http:// to a host other than this machine, before connecting, and says how to opt in", async () => {
    const list = await cli(["flows", "list"], "http://flowplane.invalid");
    expect(list.code).toBe(2);
    expect(list.stderr).toContain("refusing to send your API key over plain http:// to flowplane.invalid");
    expect(list.stderr).toContain("--insecure");
    const debug = await cli(["debug"], "http://flowplane.invalid:8080");
    expect(debug.code).toBe(2);
  }, 30_000);

  it("prints the server's names and errors with control characters escaped; --json is JSON with the same values", async () => {
    const table = await cli(["flows", "list"], a.origin);
    expect(table.code).toBe(0);
    expect(table.stdout).not.toMatch(CONTROLS);
    expect(table.stdout).toContain("evil\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\u202egnp.exe\\u2066\\u000afake");
    expect(table.stdout.trim().split("\n")).toHaveLength(2);

    const asJson = await cli(["flows", "list", "--json"], a.origin);
    expect(asJson.stdout).not.toMatch(CONTROLS);
    expect(JSON.parse(asJson.stdout)).toEqual(flows);

    const refused = await cli(["flows", "list"], `${a.origin}/fail`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).not.toMatch(CONTROLS);
    expect(refused.stderr).toContain("no \\u001b[1mevil");
  }, 30_000);

  it("debug lines are JSON with the same values and no raw control character", async () => {
    const debug = await cli(["debug", "--count", "1"], a.origin);
    expect(debug, debug.stderr).toMatchObject({ code: 0 });
    expect(debug.stdout).not.toMatch(CONTROLS);
    expect(JSON.parse(debug.stdout)).toEqual({ ts: "2026-01-01T00:00:00.000Z", flow_id: "flw_aaaaaaaaaaaa", payload: NASTY, name: "\u009d\u202d" });
  }, 30_000);
});
