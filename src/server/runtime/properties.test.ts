import { afterEach, describe, expect, it } from "vitest";
import { deleteProperty, getProperty, isPropertyPath, parsePath, resolvedPath, setMessageProperty, setProperty } from "./properties";
import { createNodeRegistry } from "../nodes/registry";
import { changeConfig } from "../nodes/change/definition";
import { switchConfig } from "../nodes/switch/definition";
import { jsonConfig } from "../nodes/json/definition";
import { templateConfig } from "../nodes/template/definition";
import { debugConfig } from "../nodes/debug/definition";
import type { Message, NodeContext } from "./types";

const original = Object.prototype.hasOwnProperty;
afterEach(() => {
  // If a test polluted the prototype, repair it so the rest of the run is not poisoned.
  if (Object.prototype.hasOwnProperty !== original) Object.defineProperty(Object.prototype, "hasOwnProperty", { value: original, writable: true, configurable: true });
  delete (Object.prototype as Record<string, unknown>).polluted;
});

describe("property paths: Node-RED's grammar (RED.util.normalisePropertyExpression)", () => {
  it("splits dots, brackets with numbers, quoted keys, and a number after a dot", () => {
    expect(parsePath("payload.a[0].b")).toEqual(["payload", "a", 0, "b"]);
    expect(parsePath('payload["a b"]')).toEqual(["payload", "a b"]);
    expect(parsePath("payload['x'].y")).toEqual(["payload", "x", "y"]);
    expect(parsePath("payload[0]")).toEqual(["payload", 0]);
    expect(parsePath('payload["it\'s"]')).toEqual(["payload", "it's"]);
    expect(parsePath("payload.0.x")).toEqual(["payload", 0, "x"]);
    expect(parsePath("a-b.c")).toEqual(["a-b", "c"]);
    expect(parsePath('"a b".c')).toEqual(["a b", "c"]);
  });

  it("reads nested msg references from the message, also nested in each other", () => {
    const msg = { _msgid: "m", key: "k", codes: ["a", "b"], i: 1 };
    expect(parsePath("payload[msg.key]", msg)).toEqual(["payload", "k"]);
    expect(parsePath("lookup[msg.codes[msg.i]].name", msg)).toEqual(["lookup", "b", "name"]);
    expect(parsePath("list[msg.i]", msg)).toEqual(["list", 1]);
    expect(resolvedPath("lookup[msg.codes[msg.i]]", msg)).toBe('lookup["b"]');
    expect(() => parsePath("payload[msg.missing]", msg)).toThrow(/Invalid expression started at position 8/);
    // Checked, not read, when there is no message (a schema validating a config).
    expect(isPropertyPath("payload[msg.a[msg.b]]")).toBe(true);
    expect(isPropertyPath("payload[msg.a[msg.b]")).toBe(false);
  });

  it("refuses what Node-RED refuses, with its reason", () => {
    const reasons: Array<[string, RegExp]> = [
      ["", /zero-length/],
      ["a..b", /unexpected \. at position 2/],
      ["a.", /unterminated expression/],
      ["[0]", /unexpected \[ at position 0/],
      ["a[b]", /unexpected b at position 2/],
      ["a b", /unexpected ' ' at position 1/],
      ["a['']", /zero-length string at position 3/],
      ["a['x'", /unexpected array expression/],
      ["a[1x]", /unexpected array expression at position 2/],
      ['a"x"', /unexpected " at position 1/],
    ];
    for (const [path, why] of reasons) {
      expect(isPropertyPath(path), path).toBe(false);
      expect(() => parsePath(path), path).toThrow(why);
    }
  });

  it("gets, sets and deletes through brackets, and a nested reference picks the key", () => {
    const msg: Message = { _msgid: "m", payload: {}, key: "chosen" };
    setMessageProperty(msg, 'payload["a b"].c', 1);
    setMessageProperty(msg, "payload[msg.key]", 2);
    setMessageProperty(msg, "list[1]", "x");
    expect(msg.payload).toEqual({ "a b": { c: 1 }, chosen: 2 });
    expect(msg.list).toEqual([undefined, "x"]);
    expect(getProperty(msg, "payload['a b']['c']")).toBe(1);
    expect(getProperty(msg, "payload[msg.nothing]")).toBeUndefined();
    deleteProperty(msg, 'payload["a b"]');
    expect(msg.payload).toEqual({ chosen: 2 });
  });
});

describe("property paths never reach a prototype", () => {
  it("the grammar refuses __proto__, constructor and prototype in any segment", () => {
    for (const p of ["__proto__", "__proto__.x", "payload.__proto__", "payload.constructor.prototype", "a[0].prototype", "constructor", 'payload["__proto__"]', "a['constructor'].x"]) expect(isPropertyPath(p), p).toBe(false);
    for (const p of ["payload", "payload.a[0].b", "$x._y", "proto", "constructors"]) expect(isPropertyPath(p), p).toBe(true);
  });

  it("every node schema that names a property refuses them at save time", () => {
    expect(changeConfig.safeParse({ rules: [{ t: "delete", p: "__proto__.hasOwnProperty" }] }).success).toBe(false);
    expect(changeConfig.safeParse({ rules: [{ t: "set", p: "payload", to: "__proto__", to_type: "msg" }] }).success).toBe(false);
    expect(changeConfig.safeParse({ rules: [{ t: "move", p: "payload", to: "constructor.prototype.x" }] }).success).toBe(false);
    expect(switchConfig.safeParse({ property: "__proto__" }).success).toBe(false);
    expect(switchConfig.safeParse({ rules: [{ t: "eq", v: "constructor", v_type: "msg" }] }).success).toBe(false);
    expect(jsonConfig.safeParse({ property: "payload.__proto__" }).success).toBe(false);
    expect(templateConfig.safeParse({ field: "prototype" }).success).toBe(false);
    expect(debugConfig.safeParse({ property: "__proto__" }).success).toBe(false);
    expect(debugConfig.safeParse({ property: "msg" }).success).toBe(true);
  });

  it("delete, set and get refuse them at run time too (a config that skipped the schema)", () => {
    const msg: Message = { _msgid: "m", payload: {} };
    expect(() => deleteProperty(msg, "__proto__.hasOwnProperty")).toThrow(/not an allowed property path/);
    expect(() => setProperty(msg, "payload.__proto__.polluted", 1)).toThrow(/not an allowed property path/);
    expect(() => setProperty(msg, "constructor.prototype.polluted", 1)).toThrow();
    // Nor through a nested reference whose value is a forbidden key.
    expect(() => setMessageProperty({ ...msg, k: "__proto__" }, "payload[msg.k].polluted", 1)).toThrow(/not an allowed property path/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(getProperty(msg, "constructor")).toBeUndefined();
    // Inherited members are not message data: no walking into Object.prototype by name.
    expect(getProperty(msg, "toString")).toBeUndefined();
    deleteProperty(msg, "hasOwnProperty");
    expect(typeof Object.prototype.hasOwnProperty).toBe("function");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("a change node `delete __proto__.hasOwnProperty` is refused (at start or on its message) and leaves Object.prototype alone", async () => {
    const errors: unknown[] = [];
    const sent: unknown[] = [];
    const ctx = { node: { id: "c", type: "change", name: "", config: { rules: [{ t: "delete", p: "__proto__.hasOwnProperty" }] } } } as unknown as NodeContext;
    // The engine parses the node's config with its type's schema when the node starts, so such a
    // config never runs; had it started, its input would fail the message.
    const change = createNodeRegistry().runtimeTypes().get("change")!;
    try {
      const behaviour = await change.behaviour(ctx, change.parse!(ctx.node.config));
      behaviour.input!({ _msgid: "m", payload: 1 }, (m) => sent.push(m), (e) => errors.push(e));
    } catch (err) {
      errors.push(err);
    }
    expect(errors).toHaveLength(1);
    expect(sent).toHaveLength(0);
    expect(Object.prototype.hasOwnProperty).toBe(original);
    expect(Object.prototype.hasOwnProperty.call({ a: 1 }, "a")).toBe(true);
  });
});
