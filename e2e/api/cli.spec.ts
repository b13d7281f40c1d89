import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { accessToken, registerViaApi, uniqueEmail } from "../helpers/accounts";

/**
 * SPEC §18 / issue 27: the `flowplane` CLI against the built server, as a CI pipeline uses it: a
 * service key, flows kept as Node-RED JSON, pushed (created, then updated in place), deployed,
 * injected, and the debug stream read back. Runs on both configurations with the rest of e2e.
 */
const BIN = path.resolve("bin/flowplane.mjs");

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;
let env: Record<string, string | undefined>;

function cli(args: string[], extraEnv: Record<string, string | undefined> = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...env, ...extraEnv } as NodeJS.ProcessEnv, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

const tab = { id: "cli-tab", type: "tab", label: "From the repo", info: "kept in git" };
const inject = { id: "cli-inject", type: "inject", z: "cli-tab", name: "go", props: [{ p: "payload" }], payload: "original", payloadType: "str", topic: "", repeat: "", once: false, x: 120, y: 80, wires: [["cli-debug"]] };
const debug = { id: "cli-debug", type: "debug", z: "cli-tab", name: "out", active: true, complete: "payload", targetType: "msg", x: 420, y: 80, wires: [] };

test.describe("flowplane CLI", () => {
  let key: string;

  test.beforeAll(async ({ request }) => {
    const email = uniqueEmail("cli");
    await registerViaApi(request, email);
    const token = await accessToken(request, email);
    const res = await request.post("/api/v1/api-keys", { headers: { authorization: `Bearer ${token}` }, data: { name: "ci pipeline", kind: "user" } });
    expect(res.status(), await res.text()).toBe(201);
    key = ((await res.json()) as { secret: string }).secret;
    expect(key).toMatch(/^service_/);
  });

  test.beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "flowplane-cli-"));
    env = { PATH: process.env.PATH, HOME: dir, FLOWPLANE_CONFIG: path.join(dir, "config.json") };
  });
  test.afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test("a pipeline: login, push (create), pull, edit, push (update) and deploy, inject, read debug", async ({ baseURL }) => {
    // Ten command runs, each a Node process.
    test.setTimeout(120_000);
    const login = await cli(["login", "--url", baseURL!, "--key", key]);
    expect(login, login.stderr).toMatchObject({ code: 0 });
    expect(login.stdout).toContain(`Logged in to ${baseURL}`);
    // The saved login holds a key: the user's eyes only.
    expect(statSync(path.join(dir, "config.json")).mode & 0o777).toBe(0o600);

    const file = path.join(dir, "flow.json");
    writeFileSync(file, JSON.stringify([tab, inject, debug]));
    const created = await cli(["flows", "push", file]);
    expect(created, created.stderr).toMatchObject({ code: 0 });
    const flowId = /created (flw_[\w-]+)/.exec(created.stdout)?.[1];
    expect(flowId, created.stdout).toBeTruthy();

    const list = await cli(["flows", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${flowId}\\s+not_deployed\\s+1\\s+2\\s+From the repo`));

    const pulled = await cli(["flows", "pull", flowId!, "--out", file]);
    expect(pulled, pulled.stderr).toMatchObject({ code: 0 });
    const nodes = JSON.parse(readFileSync(file, "utf8")) as Array<Record<string, unknown>>;
    expect(nodes[0]).toMatchObject({ id: flowId, type: "tab", label: "From the repo" });

    // The edit a reviewer would approve: a change node between inject and debug.
    const injectNode = nodes.find((n) => n.type === "inject")!;
    const debugNode = nodes.find((n) => n.type === "debug")!;
    injectNode.wires = [["cli-change"]];
    nodes.push({ id: "cli-change", type: "change", z: flowId, name: "stamp", rules: [{ t: "set", p: "payload", pt: "msg", to: "from the pipeline", tot: "str" }], x: 270, y: 80, wires: [[debugNode.id]] });
    writeFileSync(file, JSON.stringify(nodes, null, 2));

    const pushed = await cli(["flows", "push", file, "--deploy"]);
    expect(pushed, pushed.stderr).toMatchObject({ code: 0 });
    expect(pushed.stdout).toContain(`updated ${flowId} "From the repo" to revision 2`);
    expect(pushed.stdout).toMatch(new RegExp(`deployed ${flowId} revision 2: running`));

    // The debug stream, then an inject: the edited flow answers.
    const stream = spawn(process.execPath, [BIN, "debug", "--flow", flowId!, "--count", "1"], { env: env as NodeJS.ProcessEnv });
    const exited = new Promise<number | null>((resolve) => stream.on("exit", resolve));
    let out = "";
    let err = "";
    stream.stdout.on("data", (d: Buffer) => (out += d.toString()));
    stream.stderr.on("data", (d: Buffer) => (err += d.toString()));
    await expect.poll(() => err, { timeout: 15_000 }).toContain("listening for debug messages");
    const injected = await cli(["inject", String(injectNode.id)]);
    expect(injected, injected.stderr).toMatchObject({ code: 0 });
    expect(injected.stdout).toMatch(/^injected \S+ from cli-inject/);
    const code = await exited;
    expect(code, err).toBe(0);
    const event = JSON.parse(out.trim().split("\n")[0]!) as { flow_id: string; node_id: string; msg: unknown };
    expect(event).toMatchObject({ flow_id: flowId, node_id: debugNode.id, msg: "from the pipeline" });

    // A stale file is refused with the API's message, and nothing is written.
    const stale = await cli(["flows", "push", file, "--revision", "1"]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("REVISION_CONFLICT");
  });

  test("errors: the API's message and exit 1; bad usage exit 2; --help for every command", async ({ baseURL }) => {
    test.setTimeout(120_000);
    const wrongKey = await cli(["flows", "list"], { FLOWPLANE_URL: baseURL, FLOWPLANE_API_KEY: `service_${"A".repeat(43)}` });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/flowplane flows list: .+\((TOKEN_INVALID|UNAUTHENTICATED|API_KEY_INVALID)\)/);

    const missing = await cli(["flows", "deploy", "flw_doesnotexist00"], { FLOWPLANE_URL: baseURL, FLOWPLANE_API_KEY: key });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("NOT_FOUND");

    expect((await cli([])).code).toBe(2);
    expect((await cli(["flows", "fly"])).code).toBe(2);
    expect((await cli(["flows", "pull"])).code).toBe(2);
    expect((await cli(["flows", "list", "--colour"])).code).toBe(2);
    const notJson = path.join(dir, "bad.json");
    writeFileSync(notJson, "{ nope");
    const bad = await cli(["flows", "push", notJson], { FLOWPLANE_URL: baseURL, FLOWPLANE_API_KEY: key });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("is not JSON");
    for (const command of [["login"], ["flows", "list"], ["flows", "pull"], ["flows", "push"], ["flows", "deploy"], ["inject"], ["debug"]]) {
      const help = await cli([...command, "--help"]);
      expect(help.code, command.join(" ")).toBe(0);
      expect(help.stdout).toContain(`flowplane ${command.join(" ")}`);
    }
  });
});
