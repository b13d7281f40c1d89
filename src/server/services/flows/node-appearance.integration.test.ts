/**
 * A node's appearance (Node-RED's Appearance tab: `l`, `icon`, `inputLabels`, `outputLabels`)
 * through the doors a user uses: imported from a Node-RED file and reported as carried over, read
 * back, edited over REST (PUT /flows), refused when it is no icon reference, trimmed to the ports
 * the node has, and exported as Node-RED's properties again.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";

const testApp = setUpTestApp();
const request = testApp.request;
let token: string;

beforeAll(async () => {
  token = (await signUp(request)).accessToken;
});

type Node = { id: string; type: string; name: string; config: Record<string, unknown>; appearance?: Record<string, unknown> };
type NrNode = Record<string, unknown> & { id: string; type: string };

describe("node appearance", () => {
  it("a Node-RED file's labels, icons and port labels are kept and exported again; an icon that is no reference is said", async () => {
    const z = "tab-looks";
    const flows = [
      { id: z, type: "tab", label: "Looks" },
      { id: "tick", type: "inject", z, name: "tick", props: [{ p: "payload" }], repeat: "", crontab: "", once: false, onceDelay: 0.1, topic: "", payload: "", payloadType: "date", icon: "font-awesome/fa-clock-o", l: false, outputLabels: ["the time"], x: 100, y: 40, wires: [["route"]] },
      { id: "route", type: "function", z, name: "route", func: "return [msg, null];", outputs: 2, inputLabels: ["a reading"], outputLabels: ["valid", "", "a third label, for an output the node no longer has"], x: 250, y: 40, wires: [["out"], []] },
      // A link out hides its label by default: l: true shows it; a debug's l: true is its default and says nothing.
      { id: "lo", type: "link out", z, name: "to the log", mode: "link", links: [], l: true, x: 400, y: 100, wires: [] },
      { id: "out", type: "debug", z, name: "", active: true, tosidebar: true, console: false, tostatus: false, complete: "false", targetType: "msg", l: true, icon: "node-red/alert.svg", x: 400, y: 40, wires: [] },
      // Markup is no icon reference: left out.
      { id: "bad", type: "debug", z, name: "bad icon", active: true, tosidebar: true, console: false, tostatus: false, complete: "false", targetType: "msg", icon: "<img src=x onerror=alert(1)>", x: 400, y: 160, wires: [] },
      // A type not available here keeps its appearance as any node does.
      { id: "gpio", type: "rpi-gpio in", z, name: "", pin: "7", icon: "font-awesome/fa-bolt", outputLabels: ["pressed"], x: 100, y: 160, wires: [[]] },
      // An unknown type's default is not known here: its l: true is kept; an icon that is no reference stays among its properties.
      { id: "hue", type: "hue-light", z, name: "lamp", l: true, icon: 'a"b', x: 100, y: 220, wires: [[]] },
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows } });
    expect(dry.status, dry.text).toBe(200);
    const support = Object.fromEntries(dry.body.report.map((r: { node_id: string; support: string }) => [r.node_id, r.support]));
    expect(support).toMatchObject({ tick: "supported", route: "supported", lo: "supported", out: "supported", bad: "partial" });
    // What could not be kept is said.
    expect(dry.body.report.find((r: { node_id: string }) => r.node_id === "bad").reason).toContain("icon");

    const imported = await request("POST", "/flows/import", { token, body: { flows } });
    expect(imported.status, imported.text).toBe(201);
    const flowId = imported.body.flows[0].id as string;
    const flow = (await request("GET", `/flows/${flowId}`, { token })).body.flow as { nodes: Node[] };
    const byName = (name: string) => flow.nodes.find((n) => n.name === name)!;
    expect(byName("tick").appearance).toEqual({ show_label: false, icon: "font-awesome/fa-clock-o", output_labels: ["the time"] });
    // Labels for the ports the node has, an empty one between them kept as "".
    expect(byName("route").appearance).toEqual({ input_labels: ["a reading"], output_labels: ["valid"] });
    expect(byName("to the log").appearance).toEqual({ show_label: true });
    expect(flow.nodes.find((n) => n.type === "debug" && n.name === "")!.appearance).toEqual({ icon: "node-red/alert.svg" });
    expect(byName("bad icon")).not.toHaveProperty("appearance");
    const unknown = flow.nodes.find((n) => n.type === "unknown")!;
    expect(unknown.appearance).toEqual({ icon: "font-awesome/fa-bolt", output_labels: ["pressed"] });
    expect((unknown.config as { properties: Record<string, unknown> }).properties).not.toHaveProperty("icon");
    const lamp = byName("lamp");
    expect(lamp.appearance).toEqual({ show_label: true });
    expect((lamp.config as { properties: Record<string, unknown> }).properties.icon).toBe('a"b');

    const exported = (await request("GET", `/flows/${flowId}/export`, { token })).body as NrNode[];
    const nr = (name: string) => exported.find((n) => n.name === name)!;
    expect(nr("tick")).toMatchObject({ l: false, icon: "font-awesome/fa-clock-o", outputLabels: ["the time"] });
    expect(nr("route")).toMatchObject({ inputLabels: ["a reading"], outputLabels: ["valid"] });
    expect(nr("to the log").l).toBe(true);
    expect(exported.find((n) => n.type === "debug" && n.name === "")).not.toHaveProperty("l");
    expect(nr("bad icon")).not.toHaveProperty("icon");
    expect(exported.find((n) => n.type === "rpi-gpio in")).toMatchObject({ pin: "7", icon: "font-awesome/fa-bolt", outputLabels: ["pressed"] });
    expect(exported.find((n) => n.type === "hue-light")).toMatchObject({ l: true, icon: 'a"b' });
  });

  it("an unknown node saved with its info and appearance among its properties (as before they were its own) has them lifted at its next save", async () => {
    const created = await request("POST", "/flows", {
      token,
      body: {
        name: "Stored before",
        nodes: [{ id: "legacy-unknown", type: "unknown", name: "", config: { original_type: "rpi-gpio in", properties: { pin: "7", info: "The door bell.", l: false, outputLabels: ["rang"] }, outputs: 1 } }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const node = created.body.flow.nodes[0] as Node & { description?: string };
    expect(node.description).toBe("The door bell.");
    expect(node.appearance).toEqual({ show_label: false, output_labels: ["rang"] });
    expect((node.config as { properties: Record<string, unknown> }).properties).toEqual({ pin: "7" });
  });

  it("a dashboard widget's own icon stays its configuration, not its appearance", async () => {
    const flows = [
      { id: "tab-widget", type: "tab", label: "Widget" },
      { id: "base1", type: "ui-base", name: "UI", path: "/dashboard" },
      { id: "page1", type: "ui-page", name: "Home", ui: "base1", path: "/home", icon: "home", layout: "grid", theme: "", order: 1 },
      { id: "group1", type: "ui-group", name: "Main", page: "page1", width: 6, height: 1, order: 1 },
      { id: "btn", type: "ui-button", z: "tab-widget", group: "group1", name: "Go", label: "Go", icon: "rocket", order: 1, x: 100, y: 40, wires: [[]] },
    ];
    const imported = await request("POST", "/flows/import", { token, body: { flows } });
    expect(imported.status, imported.text).toBe(201);
    const flow = (await request("GET", `/flows/${imported.body.flows[0].id}`, { token })).body.flow as { nodes: Node[] };
    const button = flow.nodes.find((n) => n.type === "ui-button")!;
    expect(button.config.icon).toBe("rocket");
    expect(button).not.toHaveProperty("appearance");
  });

  it("PUT /flows sets and clears an appearance; an icon that is markup is a 400 naming the field, and nothing changes", async () => {
    const created = await request("POST", "/flows", {
      token,
      body: { name: "Looks edited", nodes: [{ id: "looks-fn", type: "function", name: "", config: { outputs: 2 }, appearance: { show_label: false, output_labels: ["yes", "no", "maybe"] } }] },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.flow.id as string;
    const node = created.body.flow.nodes[0] as Node & { position: unknown; disabled: boolean };
    // Two outputs: two labels.
    expect(node.appearance).toEqual({ show_label: false, output_labels: ["yes", "no"] });
    const revision = created.body.flow.revision as number;

    const bad = await request("PUT", `/flows/${id}`, { token, body: { nodes: [{ ...node, appearance: { icon: '"><script>alert(1)</script>' } }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_FAILED");
    expect(JSON.stringify(bad.body.error.details)).toContain('"path":"nodes[0].appearance.icon"');
    const after = (await request("GET", `/flows/${id}`, { token })).body.flow;
    expect(after.revision).toBe(revision);
    expect(after.nodes[0].appearance).toEqual({ show_label: false, output_labels: ["yes", "no"] });

    // Showing the label of a function is its default: nothing left to keep.
    const cleared = await request("PUT", `/flows/${id}`, { token, body: { nodes: [{ ...node, appearance: { show_label: true, output_labels: ["", ""] } }] } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.flow.nodes[0]).not.toHaveProperty("appearance");
  });
});
