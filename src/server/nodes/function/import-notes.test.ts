/** What an imported function node's dry run reports of its code (functionImportNotes). */
import { describe, expect, it } from "vitest";
import { functionConfig, functionImportNotes, functionNode } from "./definition";

describe("function import notes (the dry run's report)", () => {
  const notes = (func: string) => functionImportNotes({ func, initialize: "", finalize: "" });
  it("names what Node's util lacks in the sandbox, and nothing for what it has", () => {
    expect(notes("node.warn(util.inspect(msg)); msg.p = util.format('%s', 1); return msg;")).toEqual([]);
    expect(notes("const { values } = util.parseArgs({ args: [] }); return util.MIMEType;")).toEqual([
      "its code uses util.parseArgs, util.MIMEType of Node's util module, which the sandbox's util does not have",
    ]);
  });
  it("takes util as the code's own when it declares or destructures it, not when it sets a property named util", () => {
    expect(notes("const util = RED.util; util.getMessageProperty(msg, 'a');")).toEqual([]);
    expect(notes("const { util } = RED; util.getMessageProperty(msg, 'a');")).toEqual([]);
    expect(notes("msg.util = 1; util.parseArgs({ args: [] });")).toEqual([
      "its code uses util.parseArgs of Node's util module, which the sandbox's util does not have",
    ]);
  });

  it("keeps the modules of Setup the sandbox loads (crypto, util, lodash, moment, moment-timezone) and names the others, and what the code uses that its crypto lacks", () => {
    const libs = [
      { var: "crypto", module: "crypto" },
      { var: "fs", module: "fs" },
      { var: "u", module: "node:util" },
      { var: "moment", module: "moment" },
      { var: "Buffer", module: "buffer" },
      { var: "c2", module: "crypto" },
      { var: "c2", module: "node:crypto" },
      { var: "_", module: "lodash" },
      { var: "tz", module: "moment-timezone" },
      { var: "dayjs", module: "dayjs" },
      { var: "tz2", module: "node:moment-timezone" },
    ];
    const func = "const h = crypto.createHash('sha256').update(msg.payload).digest('hex'); const s = crypto.createSign('SHA256'); return crypto.sign;";
    expect(functionNode.nodeRed!.fromNodeRed({ func, libs }).libs).toEqual([
      { var: "crypto", module: "crypto" },
      { var: "u", module: "node:util" },
      { var: "moment", module: "moment" },
      { var: "c2", module: "crypto" },
      { var: "_", module: "lodash" },
      { var: "tz", module: "moment-timezone" },
    ]);
    expect(functionImportNotes({ func, libs })).toEqual([
      "its Setup loads fs, buffer, dayjs, node:moment-timezone, which the sandbox cannot (it loads Node's crypto and util, and the npm packages lodash, moment and moment-timezone): code that uses them throws",
      "its Setup's variable c2 is reserved, not a name or given twice (Node-RED refuses it too): left out",
      "its code uses crypto.createSign, crypto.sign of Node's crypto module, which the sandbox's crypto does not have",
    ]);
    expect(functionImportNotes({ func: "return crypto.randomUUID();", libs: [{ var: "crypto", module: "crypto" }] })).toEqual([]);
  });
  it("refuses a module the sandbox lacks, a variable the code already has or that is not a name, and a variable given twice", () => {
    const parse = (libs: unknown) => functionConfig.safeParse({ code: "return msg;", libs });
    expect(parse([{ var: "crypto", module: "node:crypto" }, { var: "nu", module: "util" }]).success).toBe(true);
    const message = (libs: unknown) => {
      const result = parse(libs);
      return result.success ? "accepted" : `${result.error.issues[0]!.path.join(".")}: ${result.error.issues[0]!.message}`;
    };
    expect(message([{ var: "fs", module: "fs" }])).toBe(
      "libs.0.module: must be one of crypto, node:crypto, util, node:util, lodash, moment, moment-timezone: the sandbox loads Node's crypto and util, and the npm packages lodash, moment and moment-timezone, not others",
    );
    expect(message([{ var: "util", module: "util" }])).toMatch(/^libs\.0\.var: is a name the code already has/);
    expect(message([{ var: "node", module: "crypto" }])).toMatch(/^libs\.0\.var: is a name the code already has/);
    expect(message([{ var: "my crypto", module: "crypto" }])).toMatch(/^libs\.0\.var: must be a JavaScript name/);
    expect(message([{ var: "c", module: "crypto" }, { var: "c", module: "util" }])).toBe("libs: each variable may be given once");
    for (const name of ["globalThis", "JSON", "undefined", "WeakMap"]) {
      expect(message([{ var: name, module: "crypto" }])).toBe("libs.0.var: is one of JavaScript's own globals, which the code already has");
    }
    expect(message(Array.from({ length: 21 }, (_, i) => ({ var: `m${i}`, module: "crypto" })))).toMatch(/^libs: /);
  });
  it("exports a function saved before it had libs (no libs in its config) with an empty list, as Node-RED writes one", () => {
    const props = functionNode.nodeRed!.toNodeRed({ code: "return msg;", outputs: 1, timeout_ms: 1000, initialize: "", finalize: "" } as never);
    expect(props.libs).toEqual([]);
  });
});
