/** The xml node as Node-RED 4.1's (test/nodes/core/parsers/70-XML_spec.js), with msg.options and entities. */
import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { xmlNode } from "./definition";

const flow = closingTestFlows();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function xmlFlow(config: Record<string, unknown> = {}) {
  return flow(
    [
      { id: "x", type: "xml", config },
      { id: "s", type: "sink" },
      { id: "c", type: "catch" },
      { id: "caught", type: "sink" },
    ],
    [
      { source: "x", target: "s" },
      { source: "c", target: "caught" },
    ],
  );
}
const at = (h: Awaited<ReturnType<typeof xmlFlow>>, sink: string) => h.arrivals.filter((a) => a.sink === sink).map((a) => a.msg);
const employees = "  <employees><firstName>John</firstName><lastName>Smith</lastName></employees>\r\n  ";

describe("xml node", () => {
  it("parses XML into xml2js's objects (arrays of children, $ attributes, _ text)", async () => {
    const h = await xmlFlow();
    h.send("x", { payload: employees, topic: "bar" });
    h.send("x", { payload: '<p class="tag">Hello World</p>' });
    const got = await h.waitFor(2);
    expect(got[0]).toMatchObject({ topic: "bar", payload: { employees: { firstName: ["John"], lastName: ["Smith"] } } });
    expect(got[1]!.payload).toEqual({ p: { $: { class: "tag" }, _: "Hello World" } });
  });

  it("uses the configured attribute and text keys over msg.options, and writes the options it used on msg.options", async () => {
    const h = await xmlFlow({ attribute_key: "attrs", text_key: "text" });
    h.send("x", { payload: '<p class="tag">Hi</p>', options: { attrkey: "ignored", explicitArray: false } });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toEqual({ p: { attrs: { class: "tag" }, text: "Hi" } });
    expect(m!.options).toEqual({ attrkey: "attrs", charkey: "text", explicitArray: false, async: true });
  });

  it("msg.options reaches xml2js when parsing (trim, explicitArray) and building (headless)", async () => {
    const h = await xmlFlow({ property: "foo" });
    h.send("x", { foo: "<a> <b> x </b></a>", options: { trim: true, explicitArray: false } });
    h.send("x", { foo: { employees: { firstName: ["John"], lastName: ["Smith"] } }, options: { headless: true } });
    // Parsing is asynchronous in xml2js (as Node-RED runs it), so the built one may arrive first.
    const got = [...(await h.waitFor(2))].sort((a) => (typeof a.foo === "string" ? 1 : -1));
    expect(got[0]!.foo).toEqual({ a: { b: "x" } });
    expect(got[1]!.foo).toBe("<employees>\n  <firstName>John</firstName>\n  <lastName>Smith</lastName>\n</employees>");
    expect(got[1]!.options).toEqual({ headless: true, async: false });
  });

  it("builds XML without indentation and without touching msg.options when there are none", async () => {
    const h = await xmlFlow();
    h.send("x", { payload: { employees: { firstName: ["John"], lastName: ["Smith"] } }, topic: "bar" });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toBe('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><employees><firstName>John</firstName><lastName>Smith</lastName></employees>');
    expect(m).not.toHaveProperty("options");
  });

  it("invalid XML is an error catch nodes get; numbers are warned and dropped; no property passes through", async () => {
    const h = await xmlFlow();
    h.send("x", { payload: "<not valid>", topic: "bar" });
    h.send("x", { payload: 1 });
    h.send("x", { topic: "through" });
    await h.waitFor(2);
    await sleep(30);
    expect(at(h, "s").map((m) => m.topic)).toEqual(["through"]);
    expect((at(h, "caught")[0]!.error as { message: string }).message).toMatch(/^Error: Attribute without value/);
    expect(h.errors.map((e) => e.error)).toContain("This node only handles xml strings or js objects.");
  });

  it("never expands DOCTYPE entities, internal or external", async () => {
    const h = await xmlFlow();
    h.send("x", { payload: '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>' });
    h.send("x", { payload: '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]><x>&b;</x>' });
    h.send("x", { payload: '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>', options: { strict: false } });
    await h.waitFor(3);
    const errors = at(h, "caught").map((m) => (m.error as { message: string }).message);
    expect(errors).toHaveLength(2);
    for (const e of errors) expect(e).toMatch(/^Error: Invalid character entity/);
    expect(at(h, "s")[0]!.payload).toEqual({ X: "&e;" });
  });

  it("refuses msg.options naming __proto__ as the attribute or text key", async () => {
    const h = await xmlFlow();
    h.send("x", { payload: '<p a="1">t</p>', options: { attrkey: "__proto__" } });
    await sleep(50);
    expect(at(h, "s")).toEqual([]);
    expect((at(h, "caught")[0]!.error as { message: string }).message).toBe("msg.options must not name __proto__ as the attribute or text key");
  });

  it("parses bytes as UTF-8 XML", async () => {
    const h = await xmlFlow();
    h.send("x", { payload: Buffer.from("<a>é</a>") });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toEqual({ a: "é" });
  });

  it("maps to and from Node-RED's attr and chr", () => {
    expect(xmlNode.nodeRed!.fromNodeRed({ property: "payload", attr: "", chr: "t" })).toEqual({ property: "payload", attribute_key: "", text_key: "t" });
    expect(xmlNode.nodeRed!.toNodeRed(xmlNode.configSchema.parse({ attribute_key: "a" }))).toEqual({ property: "payload", attr: "a", chr: "" });
    expect(xmlNode.configSchema.safeParse({ attribute_key: "__proto__" }).success).toBe(false);
  });
});
