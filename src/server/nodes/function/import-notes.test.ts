/** What an imported function node's dry run reports of its code (functionImportNotes). */
import { describe, expect, it } from "vitest";
import { functionImportNotes } from "./definition";

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
});

