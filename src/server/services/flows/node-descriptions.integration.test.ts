/**
 * A node's description (Node-RED's `info`, its Description tab) through the doors a user uses:
 * imported from a Node-RED file (a comment's text, any other node's description, a subflow
 * instance's), read back, edited over REST (PUT /flows), refused past its limit, and exported as
 * Node-RED's `info` again.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { NODE_DESCRIPTION_MAX_CHARS } from "@/shared/flow-graph";

const testApp = setUpTestApp();
const request = testApp.request;
let token: string;

beforeAll(async () => {
  token = (await signUp(request)).accessToken;
});

type Node = { id: string; type: string; name: string; config: Record<string, unknown>; description?: string };
type NrNode = Record<string, unknown> & { id: string; type: string };

describe("node descriptions", () => {
  it("a Node-RED file's comments keep their text and other nodes their description; the export writes both as info", async () => {
    const z = "tab-described";
    const flows = [
      { id: z, type: "tab", label: "Described", info: "The flow's own notes" },
      { id: "sf-round", type: "subflow", name: "Round", info: "", category: "", in: [{ x: 50, y: 30, wires: [{ id: "sf-fn" }] }], out: [{ x: 250, y: 30, wires: [{ id: "sf-fn", port: 0 }] }], env: [] },
      { id: "sf-fn", type: "function", z: "sf-round", name: "", func: "msg.payload = Math.round(msg.payload);\nreturn msg;", outputs: 1, info: "Rounds half up.", x: 150, y: 30, wires: [[]] },
      { id: "note", type: "comment", z, name: "Read me", info: "## How it works\n\nEvery minute, the **price** is read.", x: 100, y: 20, wires: [] },
      { id: "tick", type: "inject", z, name: "every minute", props: [{ p: "payload" }], repeat: "60", crontab: "", once: false, onceDelay: 0.1, topic: "", payload: "", payloadType: "date", info: "Starts the read.\n\nSee [the API](https://example.com/api).", x: 100, y: 80, wires: [["round"]] },
      { id: "round", type: "subflow:sf-round", z, name: "", env: [], info: "One decimal is enough here.", x: 250, y: 80, wires: [["out"]] },
      { id: "out", type: "debug", z, name: "", active: true, tosidebar: true, console: false, tostatus: false, complete: "false", targetType: "msg", info: "", x: 400, y: 80, wires: [] },
      { id: "gpio", type: "rpi-gpio in", z, name: "", pin: "7", info: "The button on the door.", x: 100, y: 140, wires: [[]] },
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows } });
    expect(dry.status, dry.text).toBe(200);
    const support = Object.fromEntries(dry.body.report.map((r: { node_id: string; support: string }) => [r.node_id, r.support]));
    // A description is carried over: it never makes a node "partial".
    expect(support).toMatchObject({ note: "supported", tick: "supported", round: "supported", out: "supported", "sf-fn": "supported" });

    const imported = await request("POST", "/flows/import", { token, body: { flows } });
    expect(imported.status, imported.text).toBe(201);
    const flowId = imported.body.flows[0].id as string;
    const flow = (await request("GET", `/flows/${flowId}`, { token })).body.flow as { description: string; nodes: Node[] };
    expect(flow.description).toBe("The flow's own notes");
    const byName = (type: string) => flow.nodes.find((n) => n.type === type || n.type.startsWith(`${type}:`))!;
    // A comment's text is its configuration (what its form edits), not a description besides.
    expect(byName("comment")).toMatchObject({ name: "Read me", config: { info: "## How it works\n\nEvery minute, the **price** is read." } });
    expect(byName("comment").description).toBeUndefined();
    expect(byName("inject").description).toBe("Starts the read.\n\nSee [the API](https://example.com/api).");
    expect(byName("subflow").description).toBe("One decimal is enough here.");
    // An empty one is none.
    expect(byName("debug")).not.toHaveProperty("description");
    // A type not available here has its description as any node has (the Node tab shows it, the dialog edits it).
    expect(byName("unknown").description).toBe("The button on the door.");
    expect((byName("unknown").config as { properties: Record<string, unknown> }).properties).not.toHaveProperty("info");
    const subflows = (await request("GET", "/subflows", { token })).body.subflows as Array<{ id: string }>;
    const definition = (await request("GET", `/subflows/${subflows[0]!.id}`, { token })).body.subflow as { nodes: Node[] };
    expect(definition.nodes.find((n) => n.type === "function")!.description).toBe("Rounds half up.");

    const exported = (await request("GET", `/flows/${flowId}/export`, { token })).body as NrNode[];
    const nr = (type: string) => exported.find((n) => (type === "subflow" ? n.type.startsWith("subflow:") : n.type === type))!;
    expect(nr("comment").info).toBe("## How it works\n\nEvery minute, the **price** is read.");
    expect(nr("inject").info).toBe("Starts the read.\n\nSee [the API](https://example.com/api).");
    expect(nr("subflow").info).toBe("One decimal is enough here.");
    expect(nr("debug")).not.toHaveProperty("info");
    expect(nr("rpi-gpio in").info).toBe("The button on the door.");

    // An edit of the unknown node's description is what the next export writes.
    const current = (await request("GET", `/flows/${flowId}`, { token })).body.flow as { nodes: Array<Node & Record<string, unknown>>; connections: unknown[]; groups: unknown[] };
    const nodes = current.nodes.map((n) => (n.type === "unknown" ? { ...n, description: "The bell, since the door moved." } : n));
    const saved = await request("PUT", `/flows/${flowId}`, { token, body: { nodes, connections: current.connections, groups: current.groups } });
    expect(saved.status, saved.text).toBe(200);
    const again = (await request("GET", `/flows/${flowId}/export`, { token })).body as NrNode[];
    expect(again.find((n) => n.type === "rpi-gpio in")!.info).toBe("The bell, since the door moved.");
  });

  it("a group's description and a configuration node's are said: the group keeps it, the configuration node's report names it", async () => {
    const z = "tab-groups-described";
    const flows = [
      { id: z, type: "tab", label: "Grouped" },
      { id: "grp", type: "group", z, name: "Inputs", style: { label: true }, nodes: ["in1"], info: "Everything that reads the sensors.", x: 10, y: 10, w: 200, h: 80 },
      { id: "in1", type: "inject", z, g: "grp", name: "", props: [{ p: "payload" }], repeat: "", crontab: "", once: false, onceDelay: 0.1, topic: "", payload: "", payloadType: "date", x: 100, y: 40, wires: [] },
      { id: "broker1", type: "mqtt-broker", name: "Local", broker: "localhost", port: "1883", clientid: "", autoConnect: true, usetls: false, protocolVersion: "4", keepalive: "60", cleansession: true, info: "The house's broker." },
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows } });
    expect(dry.status, dry.text).toBe(200);
    const broker = dry.body.report.find((r: { node_id: string }) => r.node_id === "broker1");
    expect(broker).toMatchObject({ support: "partial" });
    expect(broker.reason).toContain("info (its description)");
    const imported = await request("POST", "/flows/import", { token, body: { flows } });
    expect(imported.status, imported.text).toBe(201);
    const flowId = imported.body.flows[0].id as string;
    const exported = (await request("GET", `/flows/${flowId}/export`, { token })).body as NrNode[];
    expect(exported.find((n) => n.type === "group")!.info).toBe("Everything that reads the sensors.");
  });

  it("a blank description is none, and a comment, whose text is its configuration, takes none besides", async () => {
    const created = await request("POST", "/flows", {
      token,
      body: {
        name: "Blank notes",
        nodes: [
          { id: "blank-fn", type: "function", name: "", config: {}, description: "  \n " },
          { id: "note-c", type: "comment", name: "", config: { info: "The text" }, description: "Not shown anywhere" },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const nodes = created.body.flow.nodes as Node[];
    expect(nodes.find((n) => n.id === "blank-fn")).not.toHaveProperty("description");
    expect(nodes.find((n) => n.id === "note-c")).not.toHaveProperty("description");
    expect(nodes.find((n) => n.id === "note-c")!.config.info).toBe("The text");
  });

  it("an info past the limit is cut at a character, not inside one, and the import says so", async () => {
    // The cut falls between the two halves of an emoji: the whole emoji goes.
    const info = "x".repeat(NODE_DESCRIPTION_MAX_CHARS - 1) + "😀 and more";
    const flows = [
      { id: "tab-long", type: "tab", label: "Long" },
      { id: "long-fn", type: "function", z: "tab-long", name: "", func: "return msg;", outputs: 1, info, x: 100, y: 40, wires: [[]] },
    ];
    const imported = await request("POST", "/flows/import", { token, body: { flows } });
    expect(imported.status, imported.text).toBe(201);
    expect((imported.body.warnings as string[]).some((w) => w.includes("description (info)"))).toBe(true);
    const flow = (await request("GET", `/flows/${imported.body.flows[0].id}`, { token })).body.flow as { nodes: Node[] };
    expect(flow.nodes[0]!.description).toBe("x".repeat(NODE_DESCRIPTION_MAX_CHARS - 1));
  });

  it("PUT /flows sets, changes and clears a node's description; one past the limit is a 400 naming the node's field, and nothing changes", async () => {
    const created = await request("POST", "/flows", {
      token,
      body: { name: "Edited notes", nodes: [{ id: "described-fn", type: "function", name: "", config: {}, description: "First notes" }] },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.flow.id as string;
    expect(created.body.flow.nodes[0].description).toBe("First notes");
    const node = created.body.flow.nodes[0] as Node & { position: unknown; disabled: boolean };

    const changed = await request("PUT", `/flows/${id}`, { token, body: { nodes: [{ ...node, description: "Second notes" }] } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.flow.nodes[0].description).toBe("Second notes");
    const revision = changed.body.flow.revision as number;

    const tooLong = await request("PUT", `/flows/${id}`, { token, body: { nodes: [{ ...node, description: "x".repeat(NODE_DESCRIPTION_MAX_CHARS + 1) }] } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe("VALIDATION_FAILED");
    expect(JSON.stringify(tooLong.body.error.details)).toContain('"path":"nodes[0].description"');
    const after = (await request("GET", `/flows/${id}`, { token })).body.flow;
    expect(after.revision).toBe(revision);
    expect(after.nodes[0].description).toBe("Second notes");

    const cleared = await request("PUT", `/flows/${id}`, { token, body: { nodes: [{ ...node, description: "" }] } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.flow.nodes[0]).not.toHaveProperty("description");
  });
});
