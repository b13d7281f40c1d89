/**
 * The json node as Node-RED 4.1's (test/nodes/core/parsers/70-JSON_spec.js): both directions, the
 * forced actions, any property, msg.schema validation with errors to catch nodes, and our bounds.
 */
import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { MAX_PARSER_INPUT_CHARS } from "../parsers/input";
import { jsonNode } from "./definition";

const flow = closingTestFlows();

/** json node `j` → sink `s`; a catch node `c` → sink `caught`. */
async function json(config: Record<string, unknown> = {}) {
  return flow(
    [
      { id: "j", type: "json", config },
      { id: "s", type: "sink" },
      { id: "c", type: "catch" },
      { id: "caught", type: "sink" },
    ],
    [
      { source: "j", target: "s" },
      { source: "c", target: "caught" },
    ],
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const schema = { title: "testSchema", type: "object", properties: { number: { type: "number" }, string: { type: "string" } } };

describe("json node", () => {
  it("parses a JSON string (with surrounding whitespace) and keeps the other properties", async () => {
    const h = await json();
    h.send("j", { payload: ' {"employees":[{"firstName":"John", "lastName":"Smith"}]}\r\n ', topic: "bar" });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toEqual({ employees: [{ firstName: "John", lastName: "Smith" }] });
    expect(m!.topic).toBe("bar");
  });

  it("parses bytes holding JSON (a Buffer, or the Uint8Array a cloned Buffer becomes)", async () => {
    const h = await json({ action: "obj" });
    h.send("j", { payload: new Uint8Array(Buffer.from('{"a":[1,2]}')) });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toEqual({ a: [1, 2] });
  });

  it("stringifies objects, arrays, booleans and numbers; parses strings to booleans and numbers", async () => {
    const h = await json();
    for (const payload of [{ a: 1 }, [1, 2, 3], true, 2019, "true", "1962"]) h.send("j", { payload });
    const got = await h.waitFor(6);
    expect(got.map((m) => m.payload)).toEqual(['{"a":1}', "[1,2,3]", "true", "2019", true, 1962]);
  });

  it("formats with 4 spaces when pretty, as Node-RED", async () => {
    const h = await json({ pretty: true });
    h.send("j", { payload: { a: [1] } });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toBe('{\n    "a": [\n        1\n    ]\n}');
  });

  it("action str leaves a string untouched, action obj leaves an object untouched", async () => {
    const str = await json({ action: "str" });
    str.send("j", { payload: { x: 1 } });
    str.send("j", { payload: "not json at all" });
    expect((await str.waitFor(2)).map((m) => m.payload)).toEqual(['{"x":1}', "not json at all"]);
    const obj = await json({ action: "obj" });
    obj.send("j", { payload: { x: 1 } });
    obj.send("j", { payload: '{"x":1}' });
    expect((await obj.waitFor(2)).map((m) => m.payload)).toEqual([{ x: 1 }, { x: 1 }]);
  });

  it("converts any property, and passes a message without it straight through", async () => {
    const h = await json({ property: "one.two" });
    h.send("j", { payload: "", one: { two: '{"k":"v"}' } });
    h.send("j", { topic: "no property" });
    const got = await h.waitFor(2);
    expect(got[0]!.one).toEqual({ two: { k: "v" } });
    expect(got[0]!.payload).toBe("");
    expect(got[1]!.topic).toBe("no property");
    expect("one" in got[1]!).toBe(false);
  });

  it("an invalid JSON string is an error a catch node receives, with JSON.parse's message; nothing is sent", async () => {
    const h = await json();
    h.send("j", { payload: "foo", topic: "bar" });
    await sleep(80);
    const caught = h.arrivals.filter((a) => a.sink === "caught");
    expect(h.arrivals.filter((a) => a.sink === "s")).toEqual([]);
    expect(caught).toHaveLength(1);
    expect((caught[0]!.msg.error as { message: string }).message).toMatch(/^Unexpected token 'o'/);
    expect(caught[0]!.msg.payload).toBe("foo");
    expect(h.errors[0]!.error).toMatch(/^Unexpected token/);
  });

  it("validates against msg.schema and deletes it before sending (string and object input, every action)", async () => {
    for (const action of ["auto", "obj", "str"]) {
      const h = await json({ action });
      h.send("j", { payload: '{"number":3,"string":"allo"}', schema });
      h.send("j", { payload: { number: 3, string: "allo" }, schema });
      const got = await h.waitFor(2);
      for (const m of got) expect("schema" in m).toBe(false);
      const expected = { auto: [{ number: 3, string: "allo" }, '{"number":3,"string":"allo"}'], obj: [{ number: 3, string: "allo" }, { number: 3, string: "allo" }], str: ['{"number":3,"string":"allo"}', '{"number":3,"string":"allo"}'] }[action];
      expect(got.map((m) => m.payload)).toEqual(expected);
    }
  });

  it("a value failing the schema is not sent: catch gets 'JSON Schema error: …' and msg.schemaError", async () => {
    const h = await json();
    h.send("j", { payload: { number: "foo", string: 3 }, schema });
    await sleep(80);
    expect(h.arrivals.filter((a) => a.sink === "s")).toEqual([]);
    const [caught] = h.arrivals.filter((a) => a.sink === "caught");
    expect((caught!.msg.error as { message: string }).message).toBe("JSON Schema error: data/number must be number, data/string must be string");
    expect(caught!.msg.schemaError).toEqual([
      expect.objectContaining({ instancePath: "/number", keyword: "type", message: "must be number" }),
      expect.objectContaining({ instancePath: "/string", keyword: "type", message: "must be string" }),
    ]);
  });

  it("a schema that does not compile is reported as such; a later good schema works", async () => {
    const h = await json();
    h.send("j", { payload: { a: 1 }, schema: "garbage" });
    h.send("j", { payload: { a: 1 }, schema: { type: "object" } });
    await h.waitFor(1);
    await sleep(30);
    const [caught] = h.arrivals.filter((a) => a.sink === "caught");
    expect((caught!.msg.error as { message: string }).message).toBe("JSON Schema error: failed to compile schema");
    expect(h.arrivals.filter((a) => a.sink === "s").map((a) => a.msg.payload)).toEqual([`{"a":1}`]);
  });

  it("schema patterns run on RE2: a catastrophic pattern validates in linear time; a backreference fails to compile", async () => {
    const h = await json();
    const evil = { type: "string", pattern: "^(a+)+$" };
    const started = Date.now();
    h.send("j", { payload: JSON.stringify("a".repeat(50_000) + "!"), schema: evil });
    await sleep(80);
    h.send("j", { payload: '"aa"', schema: { type: "string", pattern: "^(a)\\1$" } });
    await sleep(80);
    expect(Date.now() - started).toBeLessThan(3000);
    const messages = h.arrivals.filter((a) => a.sink === "caught").map((a) => (a.msg.error as { message: string }).message);
    expect(messages).toEqual(['JSON Schema error: data must match pattern "^(a+)+$"', "JSON Schema error: failed to compile schema"]);
  });

  it("with a nested property, msg.schema validates that property's value (a deliberate difference: Node-RED looks up msg['one.two'])", async () => {
    const h = await json({ property: "one.two" });
    h.send("j", { one: { two: '{"number":3,"string":"allo"}' }, schema });
    h.send("j", { one: { two: '{"number":"x"}' }, schema });
    await h.waitFor(2);
    await sleep(30);
    expect(h.arrivals.filter((a) => a.sink === "s").map((a) => a.msg.one)).toEqual([{ two: { number: 3, string: "allo" } }]);
    expect((h.arrivals.filter((a) => a.sink === "caught")[0]!.msg.error as { message: string }).message).toBe("JSON Schema error: data/number must be number");
  });

  it("refuses text over the size bound with an error, and warns on unsupported types", async () => {
    const h = await json();
    h.send("j", { payload: " ".repeat(MAX_PARSER_INPUT_CHARS + 1) });
    await sleep(100);
    // Counts only: a failing comparison would print megabytes.
    expect(h.errors.map((e) => e.error.slice(0, 200))).toEqual([expect.stringMatching(/over the limit/)]);
    expect(h.arrivals.filter((a) => a.sink === "s").length).toBe(0);
    expect(h.arrivals.filter((a) => a.sink === "caught").length).toBe(1);
    h.send("j", { payload: Symbol.for("x") as unknown as string });
    await sleep(50);
    expect(h.errors.map((e) => e.error.slice(0, 200)).at(-1)).toBe("Ignored unsupported payload type");
    expect(h.arrivals.length).toBe(1);
  });

  it("maps to and from Node-RED's json node", () => {
    expect(jsonNode.nodeRed!.fromNodeRed({ action: "", property: "", pretty: true })).toEqual({ action: "auto", property: "payload", pretty: true });
    const config = jsonNode.configSchema.parse({ action: "str", property: "a.b" });
    expect(jsonNode.nodeRed!.toNodeRed(config)).toEqual({ action: "str", property: "a.b", pretty: false });
    expect(jsonNode.configSchema.safeParse({ action: "xml" }).success).toBe(false);
  });
});
