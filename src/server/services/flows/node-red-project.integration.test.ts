/**
 * Issue 22's done-when, without the browser, through the doors a user uses: the Node-RED project
 * (src/test/fixtures/node-red-subflows-project.json: nested groups, a junction, a subflow used
 * twice with an env override, a nested subflow, a status node watching both instances) is POSTed to the import endpoint and imports with
 * no warning; its flow is deployed, its inject node triggered over REST, and the debug events read
 * on the WebSocket are what Node-RED 4.1's debug nodes received for the same injects (recorded by
 * `npm run diff:record -- project` into src/server/runtime/cases/project/cases.recorded.json); the
 * export is the file again.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { connect, setUpTestHub } from "@/test/ws";
import type { RecordedCases } from "@/test/node-red-diff/types";
import { cases, DEBUG_COLLECTOR_PREFIX, PROJECT_CASE, PROJECT_FIXTURE } from "@/server/runtime/cases/project/cases";

const testApp = setUpTestApp();
const request = testApp.request;
const hub = setUpTestHub(testApp);

type NrItem = Record<string, unknown>;
const fixture = (): NrItem[] => JSON.parse(readFileSync(PROJECT_FIXTURE, "utf8"));
const recorded = JSON.parse(readFileSync(path.join(path.dirname(PROJECT_FIXTURE), "../../server/runtime/cases/project/cases.recorded.json"), "utf8")) as RecordedCases;

/** Positions and sizes are the editor's (Node-RED's are measured from fonts); keys in one order; items by id. */
function normalise(items: NrItem[], tabId: string): unknown[] {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (!value || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      if (["x", "y", "w", "h"].includes(key)) continue;
      out[key] = strip((value as Record<string, unknown>)[key]);
    }
    return out;
  };
  return items
    .map((item) => ({ ...item, ...(item.type === "tab" ? { id: "TAB" } : {}), ...(item.z === tabId ? { z: "TAB" } : {}) }))
    .sort((a, b) => String(a.id).localeCompare(String(b.id)))
    .map(strip);
}

describe("a Node-RED project with subflows, groups and a junction, side by side with Node-RED 4.1", () => {
  it("imports with no warning, runs with Node-RED's debug output, and exports back unchanged", async () => {
    const owner = await signUp(request);
    const original = fixture();
    const imported = await request("POST", "/flows/import", { token: owner.accessToken, body: { flows: original } });
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.warnings).toEqual([]);
    expect(imported.body.flows).toHaveLength(1);
    const flow = imported.body.flows[0];

    const deployed = await request("POST", `/flows/${flow.id}/deploy`, { token: owner.accessToken });
    expect(deployed.body.deployment?.state, deployed.text).toBe("running");

    const socket = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
    await socket.next((f) => f.type === "ready");
    socket.send({ type: "subscribe", topics: ["debug"] });
    await socket.next((f) => f.type === "subscribed");
    const debugFrames = () => socket.frames.filter((f) => f.type === "event" && f.topic === "debug" && f.flow_id === flow.id).map((f) => f.data);

    // The same messages the differential case sends into the inject node, one after the other.
    const c = cases.find((x) => x.name === PROJECT_CASE)!;
    const theirs = recorded.cases[PROJECT_CASE]!.arrivals;
    expect(theirs).toHaveLength(c.expect!);
    for (const [i, { msg }] of c.send.entries()) {
      const res = await request("POST", `/nodes/${c.input}/inject`, { token: owner.accessToken, body: msg });
      expect(res.status, res.text).toBe(200);
      // Each message brings as many debug events as in Node-RED (the same number each time).
      await expect.poll(() => debugFrames().length, { timeout: 5000 }).toBe(((i + 1) * theirs.length) / c.send.length);
    }
    await new Promise((r) => setTimeout(r, 200));
    // What each debug node shows (its `complete` property of the message), in order, per debug node.
    const shownBy = new Map(original.filter((n) => n.type === "debug").map((n) => [String(n.id), String(n.complete)]));
    const perNode = (events: Array<{ node: string; topic: unknown; shown: unknown }>) => Object.fromEntries([...shownBy.keys()].map((id) => [id, events.filter((e) => e.node === id).map(({ topic, shown }) => ({ topic, shown }))]));
    const ours = perNode(debugFrames().map((d) => ({ node: String(d.node_id), topic: d.topic, shown: d.msg })));
    const nodeRed = perNode(
      theirs.map((a) => {
        const node = a.collector.slice(DEBUG_COLLECTOR_PREFIX.length);
        return { node, topic: a.msg.topic, shown: a.msg[shownBy.get(node)!] };
      }),
    );
    expect(ours).toEqual(nodeRed);
    // Both instances ran (one with its env override), each through the nested subflow, and set their statuses.
    expect(Object.values(ours).flat().map((e) => e.shown)).toEqual(expect.arrayContaining([23.4, 4.7, expect.objectContaining({ text: "x10" }), expect.objectContaining({ text: "x2" })]));
    socket.ws.close();

    const exported = await request("GET", `/flows/${flow.id}/export`, { token: owner.accessToken });
    expect(exported.status).toBe(200);
    expect(normalise(exported.body as NrItem[], flow.id)).toEqual(normalise(original, "0a1b2c3d4e5f6071"));
  });
});
