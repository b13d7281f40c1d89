/**
 * node-red-contrib-hourglass as FlowFuse's Performance Operator Terminal blueprint uses it: imported
 * through POST /flows/import (supported), driven by injects, its time read over HTTP, its state one
 * of the organization's files (GET /files) that a redeploy takes up again, still running.
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { handleWebhookUrl } from "@/server/api/rest/webhook-handler";

const testApp = setUpTestApp();
const request = testApp.request;

describe("hourglass, imported and deployed", () => {
  it("starts and stops by inject, answers its time over HTTP, and keeps its state as hourglass/<id> across a redeploy", async () => {
    const user = await signUp(request);
    const token = user.accessToken;
    const slug = (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: user.organizationId } })).slug;
    const z = "tab-hg";
    const cmd = (id: string, command: string) => ({ id, type: "inject", z, name: command, props: [{ p: "command", v: command, vt: "str" }], repeat: "", crontab: "", once: false, onceDelay: 0.1, topic: "", wires: [["hg-break"]] });
    const flows = [
      { id: z, type: "tab", label: "Interruptions" },
      cmd("hg-start", "start"),
      cmd("hg-stop", "stop"),
      { id: "hg-break", type: "hourglass", z, name: "break", persistId: "", humanizeLocale: "", wires: [["hg-body"]] },
      { id: "hg-body", type: "change", z, name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: '{"started": started, "elapsed": elapsed}', tot: "jsonata" }], wires: [["hg-res"]] },
      { id: "hg-in", type: "http in", z, name: "", url: "/break", method: "get", upload: false, swaggerDoc: "", wires: [["hg-status"]] },
      { id: "hg-status", type: "change", z, name: "", rules: [{ t: "set", p: "command", pt: "msg", to: "status", tot: "str" }], wires: [["hg-break"]] },
      { id: "hg-res", type: "http response", z, name: "", statusCode: "", headers: {}, wires: [] },
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows } });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.report.find((r: { type: string }) => r.type === "hourglass")).toEqual({ node_id: "hg-break", type: "hourglass", support: "supported" });
    const imported = await request("POST", "/flows/import", { token, body: { flows } });
    expect(imported.status, imported.text).toBe(201);
    const flow = imported.body.flows[0] as { id: string; nodes: Array<{ id: string; type: string; name: string }> };
    const node = (name: string) => flow.nodes.find((n) => n.name === name)!.id;
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token })).status).toBe(200);

    const read = async () => {
      const res = await handleWebhookUrl(testApp.app, new Request(`http://app.test/hooks/${slug}/break`));
      expect(res.status).toBe(200);
      return (await res.json()) as { started: boolean; elapsed: { millis: number; human: string } };
    };
    expect(await read()).toMatchObject({ started: false, elapsed: { millis: 0, human: "a few seconds" } });
    expect((await request("POST", `/nodes/${node("start")}/inject`, { token, body: {} })).status).toBe(200);
    const breakId = node("break");
    await expect.poll(async () => (await request("GET", "/files", { token })).body.files.map((f: { path: string }) => f.path)).toContain(`hourglass/${breakId}`);
    await new Promise((r) => setTimeout(r, 200));
    const running = await read();
    expect(running.started).toBe(true);
    expect(running.elapsed.millis).toBeGreaterThanOrEqual(190);

    // A redeploy (the flow restarts, as on another instance): it counts on.
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token })).status).toBe(200);
    const after = await read();
    expect(after.started).toBe(true);
    expect(after.elapsed.millis).toBeGreaterThanOrEqual(running.elapsed.millis);
    expect((await request("POST", `/nodes/${node("stop")}/inject`, { token, body: {} })).status).toBe(200);
    await expect.poll(async () => (await read()).started).toBe(false);
    const stored = await request("GET", `/files/hourglass/${breakId}`, { token });
    expect(JSON.parse(Buffer.from(stored.text).toString())).toMatchObject({ started: false, startedAt: 0 });
  });
});
