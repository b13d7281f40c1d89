import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { connect, startUpgrades } from "@/test/ws";
import { signUp } from "@/test/accounts";

/**
 * tcp in connecting out (SPEC §23) through the doors a user uses: a Node-RED flow reading lines from
 * a serial-to-TCP bridge, imported (dry run and import), deployed, its lines on the hub as debug
 * messages; exported back as Node-RED's `tcp in`; and the import's word on a bridge at a private
 * address when this server does not connect to one.
 */

const testApp = setUpTestApp({ OUTBOUND_ALLOW_PRIVATE: "true" });
const request = testApp.request;
let upgrades: Awaited<ReturnType<typeof startUpgrades>>;
let bridge: net.Server;
let bridgePort = 0;

beforeAll(async () => {
  upgrades = await startUpgrades(testApp.app);
  // A bridge that sends two readings, a line each, to whoever connects.
  bridge = net.createServer((socket) => {
    socket.on("error", () => undefined);
    setTimeout(() => socket.writable && socket.write("21.5\n22."), 100);
    setTimeout(() => socket.writable && socket.write("0\n"), 150);
  });
  await new Promise<void>((resolve) => bridge.listen(0, "127.0.0.1", resolve));
  bridgePort = (bridge.address() as AddressInfo).port;
});
afterAll(async () => {
  await upgrades.close();
  bridge.close();
});

type NrNode = Record<string, unknown> & { id: string; type: string };
const flowOf = (host: string): NrNode[] => [
  { id: "tab1", type: "tab", label: "readings" },
  { id: "tcpin1", type: "tcp in", z: "tab1", name: "bridge", server: "client", host, port: String(bridgePort), datamode: "stream", datatype: "utf8", newline: "\\n", topic: "temperature", trim: false, base64: false, tls: "", x: 120, y: 80, wires: [["debug1"]] },
  { id: "debug1", type: "debug", z: "tab1", name: "", active: true, tosidebar: true, console: false, complete: "false", x: 320, y: 80, wires: [] },
];

describe("tcp in (client), imported and run", () => {
  it("reads a bridge's lines: supported in the dry run, each line a debug message with the topic, and exports as Node-RED's tcp in", async () => {
    const user = await signUp(request);
    const token = user.accessToken;
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: flowOf("127.0.0.1") } });
    expect(dry.status).toBe(200);
    expect(dry.body.report.find((r: { node_id: string }) => r.node_id === "tcpin1")).toMatchObject({ type: "tcp in", support: "supported" });
    const imported = await request("POST", "/flows/import", { token, body: { flows: flowOf("127.0.0.1") } });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const flow = imported.body.flows[0] as { id: string; nodes: Array<{ id: string; type: string; disabled: boolean }> };
    expect(flow.nodes.find((n) => n.type === "tcp-in")).toMatchObject({ disabled: false });

    const hub = connect(upgrades.url, { authorization: `Bearer ${token}` });
    await hub.next((f) => f.type === "ready");
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token })).status).toBe(200);
    await hub.next((f) => f.topic === "debug" && f.data.msg === "22.0");
    const lines = hub.frames.filter((f) => f.topic === "debug");
    expect(lines.map((f) => f.data.msg)).toEqual(["21.5", "22.0"]);
    expect(lines[0]!.data.topic).toBe("temperature");
    const tcpIn = flow.nodes.find((n) => n.type === "tcp-in")!;
    expect((await testApp.app.flowRuntime.nodeStatuses(flow.id)).get(tcpIn.id)?.text).toBe("connected");
    hub.ws.close();

    const exported = (await request("GET", `/flows/${flow.id}/export`, { token })).body as NrNode[];
    expect(exported.find((n) => n.type === "tcp in")).toMatchObject({ server: "client", host: "127.0.0.1", port: String(bridgePort), datamode: "stream", datatype: "utf8", newline: "\\n", topic: "temperature" });
  });
});
