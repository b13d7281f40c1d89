import { afterEach, describe, expect, it } from "vitest";
import { deleteProperty, getProperty, isPropertyPath, setProperty } from "./properties";
import { changeBehaviour } from "../nodes/change/behaviour";
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

describe("property paths never reach a prototype", () => {
  it("the grammar refuses __proto__, constructor and prototype in any segment", () => {
    for (const p of ["__proto__", "__proto__.x", "payload.__proto__", "payload.constructor.prototype", "a[0].prototype", "constructor"]) expect(isPropertyPath(p), p).toBe(false);
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
    // The node reads its config through its schema when it starts, so such a config never runs;
    // had it started, its input would fail the message.
    try {
      const behaviour = await changeBehaviour(ctx);
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
