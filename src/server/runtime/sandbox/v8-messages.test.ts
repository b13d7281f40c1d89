import { describe, expect, it } from "vitest";
import { v8Error } from "./v8-messages";

/** QuickJS's error for a call of `code` that failed at the "(" found by `at` (its nth occurrence, 0-based). */
function notAFunction(code: string, at: string, nth = 0, frame = "anonymous") {
  let offset = -1;
  for (let i = 0; i <= nth; i++) offset = code.indexOf(at, offset + 1);
  const paren = offset + at.length - 1;
  const before = code.slice(0, paren);
  const line = before.split("\n").length;
  const column = paren - before.lastIndexOf("\n");
  return { name: "TypeError", message: "not a function", stack: `    at ${frame} (<input>:${line + 2}:${column})\n    at dispatch (sandbox-driver.js:457:49)\n` };
}

describe("V8's wording of QuickJS's errors", () => {
  it.each([
    ["let o = {};\no.f();", "o.f(", "o.f is not a function"],
    ["const f = 3; f();", "f(", "f is not a function"],
    ["node.sendd(msg);", "sendd(", "node.sendd is not a function"],
    ["msg.payload = msg.payload.trim().toUpper();", "toUpper(", "msg.payload.trim(...).toUpper is not a function"],
    ["return msg.list[0].go();", "go(", "msg.list[0].go is not a function"],
    ["return msg['x']();", "](", "msg.x is not a function"],
    ["return msg[key](1);", "](", "msg[key] is not a function"],
    ["return (msg.a)();", ")(", "msg.a is not a function"],
    ["return msg.payload?.foo();", "foo(", "msg.payload?.foo is not a function"],
    ["return msg.payload?.[0]();", "](", "msg.payload?.[0] is not a function"],
    ["await msg.payload.x();", "x(", "msg.payload.x is not a function"],
    ["msg.x\n  .y\n  .z();", "z(", "msg.x.y.z is not a function"],
    ["const a = get(1)(2)();", ")(", "get(...)(...) is not a function", 1],
    ["this.helper(msg);", "helper(", "this.helper is not a function"],
    ["msg.payload = new msg.Thing();", "Thing(", "msg.Thing is not a constructor"],
    ["msg.s = 'é'; msg.q();", "q(", "msg.q is not a function"],
    ["return f `x`;", "f `", "f is not a function"],
    ["if (a) { return b.c(msg); }", "c(", "b.c is not a function"],
  ])("%j", (code, at, expected, nth = 0) => {
    expect(v8Error(notAFunction(code, at, nth), [code])).toEqual({ name: "TypeError", message: expected });
  });

  it("in a function of the code's own, and in the first of the sources whose text has a call there (the On Start code, a timer's callback)", () => {
    const body = "function g() { msg.x(); }\ng();";
    expect(v8Error(notAFunction(body, "x(", 0, "g"), [body]).message).toBe("msg.x is not a function");
    const initialize = "global.set('f', 1);\nnode.boom();";
    const error = notAFunction(initialize, "boom(");
    expect(v8Error(error, ["return msg;", initialize]).message).toBe("node.boom is not a function");
  });

  it("keeps QuickJS's text where the callee cannot be said exactly: inside a builtin, an expression that is not a chain, no call at that place", () => {
    const inMap = { name: "TypeError", message: "not a function", stack: "    at map (native)\n    at anonymous (<input>:3:8)\n" };
    expect(v8Error(inMap, ["[1].map(3);"]).message).toBe("not a function");
    for (const [code, at] of [
      ["a = (1, msg.zz)();", ")("],
      ["return (a || b)();", ")("],
      ["return [f][0]();", "]("],
      ["return msg[a + b]();", "]("],
      ["return msg[`k`]();", "]("],
      ["return (x) /* c */ ();", ") /* c */ ("],
      // new X() then a call: V8 says "(intermediate value).toISOStrin".
      ["msg.payload = new Date().toISOStrin();", "toISOStrin("],
      // A line comment between the parts of a chain.
      ["msg.payload\n  .filter(f) // keep valid\n  .mapp(g);", "mapp("],
      // A name with letters beyond ASCII; a regular expression's flags.
      ["berechneGröße(msg);", "ße("],
      ["return /^\\d+$/i.tset(x);", "tset("],
    ] as const) {
      expect(v8Error(notAFunction(code, at), [code]).message, code).toBe("not a function");
    }
    expect(v8Error(notAFunction("o.f();", "o.f("), ["something else entirely"]).message).toBe("not a function");
    // Every source is "<input>": a call at that place in both the body and On Start is not said.
    const body = "const m = msg;\n    return fmt(msg);";
    const onStart = "context.set('fmt', function (m) {\n    return m.payload.toUpperCase();\n});";
    const atReturn = { name: "TypeError", message: "not a function", stack: "    at <anonymous> (<input>:4:5)\n" };
    expect(v8Error(atReturn, [body, onStart]).message).toBe("not a function");
    // QuickJS counts columns in code points.
    const astral = 'var s = "🔥🔥"; msg.foo();';
    expect(v8Error({ name: "TypeError", message: "not a function", stack: "    at anonymous (<input>:3:22)\n" }, [astral]).message).toBe("msg.foo is not a function");
    expect(v8Error(notAFunction("o.f();", "o.f("), []).message).toBe("not a function");
  });

  it.each([
    [{ name: "TypeError", message: "cannot read property 'b' of undefined" }, { name: "TypeError", message: "Cannot read properties of undefined (reading 'b')" }],
    [{ name: "TypeError", message: "cannot set property 'x' of null" }, { name: "TypeError", message: "Cannot set properties of null (setting 'x')" }],
    [{ name: "ReferenceError", message: "'foo' is not defined" }, { name: "ReferenceError", message: "foo is not defined" }],
    [{ name: "InternalError", message: "stack overflow" }, { name: "RangeError", message: "Maximum call stack size exceeded" }],
    [{ name: "RangeError", message: "invalid array length" }, { name: "RangeError", message: "Invalid array length" }],
    [{ name: "TypeError", message: "empty array" }, { name: "TypeError", message: "Reduce of empty array with no initial value" }],
    [{ name: "TypeError", message: "cannot convert symbol to string" }, { name: "TypeError", message: "Cannot convert a Symbol value to a string" }],
    [{ name: "URIError", message: "expecting hex digit" }, { name: "URIError", message: "URI malformed" }],
    [{ name: "URIError", message: "bad link" }, { name: "URIError", message: "bad link" }],
    // Several of V8's texts for one of QuickJS's: kept as it is.
    [{ name: "TypeError", message: "cannot convert bigint to number" }, { name: "TypeError", message: "cannot convert bigint to number" }],
    [{ name: "Error", message: "boom" }, { name: "Error", message: "boom" }],
  ])("%j", (error, expected) => {
    expect(v8Error({ ...error, stack: "" })).toEqual(expected);
  });
});

describe("a failed tail call, which QuickJS places at its return", () => {
  const atReturn = (code: string) => {
    const offset = code.indexOf("return");
    const before = code.slice(0, offset);
    return { name: "TypeError", message: "not a function", stack: `    at anonymous (<input>:${before.split("\n").length + 2}:${offset - before.lastIndexOf("\n")})\n` };
  };
  it.each([
    ["return msg.payload.toUpperCase();", "msg.payload.toUpperCase is not a function"],
    ["const a = 1;\n  return msg.list[a].go(msg)", "msg.list[a].go is not a function"],
    ["return helper(msg.a(), 2);", "helper is not a function"],
  ])("%j", (code, expected) => {
    expect(v8Error(atReturn(code), [code]).message).toBe(expected);
  });
  it("keeps QuickJS's text where the expression after return is not one call", () => {
    for (const code of ["return a() + b();", "return a() || 1;", "return msg;", "return 'x'.f();"]) expect(v8Error(atReturn(code), [code]).message, code).toBe("not a function");
  });
});

describe("a constant assigned", () => {
  const at = (code: string, index: number) => ({ name: "TypeError", message: "'c' is read-only", stack: `    at anonymous (<input>:3:${index + 1})\n` });
  it("is V8's text where the code assigns the name there; a frozen object's property keeps QuickJS's", () => {
    const code = "const c = 1; c = 2; return msg;";
    expect(v8Error(at(code, code.indexOf("c = 2")), [code]).message).toBe("Assignment to constant variable.");
    const inc = "const c = 1; c++;";
    expect(v8Error(at(inc, inc.indexOf("c++")), [inc]).message).toBe("Assignment to constant variable.");
    const frozen = "Object.assign(Object.freeze({ c: 1 }), { c: 2 });";
    expect(v8Error(at(frozen, 0), [frozen]).message).toBe("'c' is read-only");
    const compare = "const c = 1; if (c == 2) {}";
    expect(v8Error(at(compare, compare.indexOf("c == 2")), [compare]).message).toBe("'c' is read-only");
  });
});
