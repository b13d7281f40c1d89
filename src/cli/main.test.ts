import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run, type Io } from "./main";

/** The CLI's own contract (SPEC §18), without a server: exit statuses, messages, help, the saved login. */
let dir: string;
let out: string[];
let err: string[];
let calls: Array<{ method: string; url: string; headers: Headers; body: string | null }>;

const io = (answer: (url: string) => Response, env: Record<string, string> = {}): Io => ({
  out: (t) => out.push(t),
  err: (t) => err.push(t),
  env: { FLOWPLANE_CONFIG: path.join(dir, "config.json"), ...env } as unknown as NodeJS.ProcessEnv,
  interrupted: new Promise(() => undefined),
  fetch: (async (input: Request) => {
    calls.push({ method: input.method, url: input.url, headers: input.headers, body: input.body ? await input.text() : null });
    return answer(input.url);
  }) as typeof fetch,
});
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const logged = { FLOWPLANE_URL: "https://fp.test", FLOWPLANE_API_KEY: `service_${"k".repeat(43)}` };

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "fp-cli-"));
  out = [];
  err = [];
  calls = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("flowplane", () => {
  it("bad usage exits 2 with the command's usage", async () => {
    const never = io(() => json(500, {}));
    expect(await run([], never)).toBe(2);
    expect(await run(["flows", "fly"], never)).toBe(2);
    expect(err.join("\n")).toContain('unknown command "flows fly"');
    expect(await run(["flows", "pull"], never)).toBe(2);
    expect(err.at(-1)).toContain("Usage: flowplane flows pull <flow id>");
    expect(await run(["flows", "list", "--colour"], io(() => json(500, {}), logged))).toBe(2);
    expect(await run(["debug", "--count", "0"], io(() => json(500, {}), logged))).toBe(2);
    expect(await run(["flows", "push", path.join(dir, "missing.json")], io(() => json(500, {}), logged))).toBe(2);
    writeFileSync(path.join(dir, "obj.json"), '{"not": "an array"}');
    expect(await run(["flows", "push", path.join(dir, "obj.json")], io(() => json(500, {}), logged))).toBe(2);
    expect(err.at(-1)).toContain("is not a Node-RED flows.json");
    expect(calls).toEqual([]);
  });

  it("without a login, says how to log in (exit 2) and calls nothing", async () => {
    expect(await run(["flows", "list"], io(() => json(200, { flows: [] })))).toBe(2);
    expect(err.join("\n")).toContain("flowplane login --url");
    expect(calls).toEqual([]);
  });

  it("an API refusal prints the API's message and code, exit 1", async () => {
    const code = await run(["flows", "deploy", "flw_abcdefghijkl"], io(() => json(409, { error: { code: "FLOW_NOT_RUNNING", message: "the flow is not running" } }), logged));
    expect(code).toBe(1);
    expect(err.at(-1)).toBe("flowplane flows deploy: the flow is not running (FLOW_NOT_RUNNING)");
    expect(calls[0]).toMatchObject({ method: "POST", url: "https://fp.test/api/v1/flows/flw_abcdefghijkl/deploy" });
    expect(calls[0]!.headers.get("x-api-key")).toBe(logged.FLOWPLANE_API_KEY);
  });

  it("validation details are printed with the message", async () => {
    writeFileSync(path.join(dir, "f.json"), "[]");
    const code = await run(
      ["flows", "push", path.join(dir, "f.json")],
      io(() => json(400, { error: { code: "VALIDATION_FAILED", message: "invalid input", details: [{ path: "flows", message: "no tab and no nodes to import" }] } }), logged),
    );
    expect(code).toBe(1);
    expect(err.at(-1)).toBe("flowplane flows push: invalid input (flows: no tab and no nodes to import) (VALIDATION_FAILED)");
  });

  it("login checks the key, then saves URL and key readable by the user only", async () => {
    const code = await run(["login", "--url", "https://fp.test/", "--key", logged.FLOWPLANE_API_KEY], io(() => json(200, { flows: [] })));
    expect(code).toBe(0);
    expect(statSync(path.join(dir, "config.json")).mode & 0o777).toBe(0o600);
    expect(calls[0]!.url).toBe("https://fp.test/api/v1/flows");
    // Saved: the next command needs no environment.
    expect(await run(["flows", "list", "--json"], io(() => json(200, { flows: [] })))).toBe(0);
    expect(calls[1]!.headers.get("x-api-key")).toBe(logged.FLOWPLANE_API_KEY);
  });

  it("a refused login saves nothing", async () => {
    expect(await run(["login", "--url", "https://fp.test", "--key", "service_bad"], io(() => json(401, { error: { code: "TOKEN_INVALID", message: "API key is not valid" } })))).toBe(1);
    expect(() => statSync(path.join(dir, "config.json"))).toThrow();
  });

  it("inject sends the payload as JSON, or as a string when it is not JSON", async () => {
    const ok = () => json(200, { message_id: "m1", node_id: "n1", flow_id: "flw_x" });
    expect(await run(["inject", "n1", "--payload", '{"a":1}', "--topic", "t"], io(ok, logged))).toBe(0);
    expect(JSON.parse(calls[0]!.body!)).toEqual({ payload: { a: 1 }, topic: "t" });
    expect(await run(["inject", "n1", "--payload", "hello"], io(ok, logged))).toBe(0);
    expect(JSON.parse(calls[1]!.body!)).toEqual({ payload: "hello" });
  });

  it("refuses plain http:// to another host before sending the key, unless --insecure (remembered by login for that URL)", async () => {
    const plain = { ...logged, FLOWPLANE_URL: "http://fp.test" };
    expect(await run(["flows", "list"], io(() => json(200, { flows: [] }), plain))).toBe(2);
    expect(err.at(-1)).toContain("refusing to send your API key over plain http:// to fp.test");
    expect(await run(["login", "--url", "http://fp.test", "--key", logged.FLOWPLANE_API_KEY], io(() => json(200, { flows: [] })))).toBe(2);
    expect(calls).toEqual([]);
    // Opted in: sent, and the saved login remembers the choice for that URL only.
    expect(await run(["flows", "list", "--insecure"], io(() => json(200, { flows: [] }), plain))).toBe(0);
    expect(await run(["flows", "list"], io(() => json(200, { flows: [] }), { ...plain, FLOWPLANE_INSECURE: "1" }))).toBe(0);
    expect(await run(["login", "--url", "http://fp.test", "--key", logged.FLOWPLANE_API_KEY, "--insecure"], io(() => json(200, { flows: [] })))).toBe(0);
    expect(await run(["flows", "list"], io(() => json(200, { flows: [] })))).toBe(0);
    expect(calls.map((c) => c.url)).toEqual(Array(4).fill("http://fp.test/api/v1/flows"));
    expect(await run(["flows", "list"], io(() => json(200, { flows: [] }), { FLOWPLANE_URL: "http://other.test" }))).toBe(2);
    // This machine is no network: http is fine there.
    for (const url of ["http://localhost:3000", "http://127.0.0.1:3000", "http://[::1]:3000", "http://app.localhost"]) {
      expect(await run(["flows", "list"], io(() => json(200, { flows: [] }), { ...logged, FLOWPLANE_URL: url }))).toBe(0);
    }
  });

  it("escapes control characters of the server's strings; --json stays JSON with the same values", async () => {
    const name = "evil\u001b]0;owned\u0007\u001b[2J\u009b31m\u202egnp.exe\nfake line";
    const flows = [{ id: "flw_a", name, state: "running", revision: 1, nodes: 2 }];
    expect(await run(["flows", "list"], io(() => json(200, { flows }), logged))).toBe(0);
    const printed = out.join("\n");
    // eslint-disable-next-line no-control-regex -- control characters are what this matches
    expect(printed).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(printed).toContain("evil\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\u202egnp.exe\\u000afake line");
    expect(out.at(-1)!.split("\n")).toHaveLength(1);
    out = [];
    expect(await run(["flows", "list", "--json"], io(() => json(200, { flows }), logged))).toBe(0);
    // eslint-disable-next-line no-control-regex -- control characters are what this matches
    expect(out.join("\n")).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(JSON.parse(out.join("\n"))).toEqual(flows);
    // An error message from the server too.
    expect(await run(["flows", "deploy", "flw_a"], io(() => json(409, { error: { code: "X\u001b[1m", message: "no\u001b]8;;http://evil\u0007 way" } }), logged))).toBe(1);
    expect(err.at(-1)).toBe("flowplane flows deploy: no\\u001b]8;;http://evil\\u0007 way (X\\u001b[1m)");
  });

  it("--help works for every command", async () => {
    for (const command of [["login"], ["flows", "list"], ["flows", "pull"], ["flows", "push"], ["flows", "deploy"], ["inject"], ["debug"]]) {
      expect(await run([...command, "--help"], io(() => json(500, {})))).toBe(0);
      expect(out.at(-1)).toContain(`flowplane ${command.join(" ")}`);
    }
    expect(await run(["--help"], io(() => json(500, {})))).toBe(0);
  });

  it("agent: launches flowplane-agent with the URL and device key and exits with its status, or says how to install it", async () => {
    const none = io(() => json(500, {}), { PATH: dir, FLOWPLANE_AGENT_BIN: path.join(dir, "no-such-agent") });
    expect(await run(["agent", "--url", "https://fp.test", "--key", "service_x"], none)).toBe(2);
    expect(err.at(-1)).toContain("--key must be a device key");
    expect(await run(["agent", "--url", "http://fp.example.com", "--key", "device_x"], none)).toBe(2);
    expect(await run(["agent", "--url", "https://fp.test", "--key", "device_x"], none)).toBe(1);
    expect(err.at(-1)).toContain("flowplane-agent is not installed: npm install -g flowplane-agent");
    const fake = path.join(dir, "fake-agent.sh");
    const seen = path.join(dir, "args.txt");
    writeFileSync(fake, `#!/bin/sh\necho "$@" > ${seen}\nexit 3\n`, { mode: 0o755 });
    const launched = io(() => json(500, {}), { PATH: process.env.PATH ?? "", FLOWPLANE_AGENT_BIN: fake });
    expect(await run(["agent", "--url", "https://fp.test", "--key", "device_abc", "--dir", "/tmp/d"], launched)).toBe(3);
    expect(readFileSync(seen, "utf8").trim()).toBe("--url https://fp.test --key device_abc --dir /tmp/d");
    expect(calls).toEqual([]);
  });
});
