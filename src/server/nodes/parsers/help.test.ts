/** The parser nodes' help texts (SPEC §12): what each does, then Inputs, Outputs, Details and our differences. */
import { describe, expect, it } from "vitest";
import { csvNode } from "../csv/definition";
import { htmlNode } from "../html/definition";
import { jsonNode } from "../json/definition";
import { xmlNode } from "../xml/definition";
import { yamlNode } from "../yaml/definition";

describe.each([csvNode, htmlNode, jsonNode, xmlNode, yamlNode].map((d) => [d.type, d] as const))("%s help", (_type, definition) => {
  it("opens with what the node does and has the sections in order, saying how it differs from Node-RED", () => {
    const help = definition.help!;
    expect(help.split("\n")[0]).toMatch(/^(Converts|Extracts) /);
    const sections = [...help.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    expect(sections).toEqual(["Inputs", "Outputs", "Details", "Differences from Node-RED"]);
    expect(help).toMatch(/MiB is refused/);
  });
});
