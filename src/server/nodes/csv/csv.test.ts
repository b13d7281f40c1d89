/**
 * The csv node's own assertions: what the differential cases (cases.ts, from Node-RED's spec) do not
 * cover: the defaults of a new node, the import mapping (legacy for flows without `spec`), RFC mode's
 * errors and status, header-once with msg.reset, escapes, and the bounds of a shared runtime.
 */
import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { MAX_PARSER_INPUT_CHARS } from "../parsers/input";
import { csvNode } from "./definition";
import { parseCsv, quoteCell } from "./rfc4180";

const flow = closingTestFlows();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function csv(config: Record<string, unknown> = {}) {
  return flow(
    [
      { id: "n", type: "csv", config },
      { id: "s", type: "sink" },
      { id: "c", type: "catch" },
      { id: "caught", type: "sink" },
    ],
    [
      { source: "n", target: "s" },
      { source: "c", target: "caught" },
    ],
  );
}
type H = Awaited<ReturnType<typeof csv>>;
const at = (h: H, sink: string) => h.arrivals.filter((a) => a.sink === sink).map((a) => a.msg);

describe("csv node", () => {
  it("a new node is RFC 4180 with CRLF line ends, numbers parsed, one message per row with parts", async () => {
    const config = csvNode.configSchema.parse({});
    expect(config).toMatchObject({ spec: "rfc", newline: "\\r\\n", separator: ",", output: "one", parse_numbers: true, header_out: "none" });
    const h = await csv({ header_out: "all" });
    h.send("n", { payload: [{ a: 1, b: 'say "hi"' }, { a: 2, b: "x,y" }] });
    // A second node: writing objects sets the node's template (Object.keys of the first row), as in Node-RED.
    const p = await csv();
    p.send("n", { _msgid: "in", payload: 'a,b\r\n1,"x\r\ny"\r\n' });
    const got = [...(await h.waitFor(1)), ...(await p.waitFor(2))];
    await sleep(30);
    expect(got[0]).toMatchObject({ payload: 'a,b\r\n1,"say ""hi"""\r\n2,"x,y"\r\n', columns: "a,b" });
    // Without a template the header row is data (col1, col2); a trailing line break ends the last record.
    expect(got.slice(1).map((m) => [m.payload, m.parts, m.columns])).toEqual([
      [{ col1: "a", col2: "b" }, { id: "in", index: 0, count: 2 }, "col1,col2"],
      [{ col1: 1, col2: "x\r\ny" }, { id: "in", index: 1, count: 2 }, "col1,col2"],
    ]);
    expect(got).toHaveLength(3);
  });

  it("empty cells: null and empty strings are left out unless asked for (RFC: unquoted empty is null, quoted is \"\")", async () => {
    const without = await csv({ columns: "a,b,c,d" });
    const withBoth = await csv({ columns: "a,b,c,d", include_empty_strings: true, include_null_values: true });
    for (const h of [without, withBoth]) h.send("n", { payload: '1,,"",4' });
    expect((await without.waitFor(1))[0]!.payload).toEqual({ a: 1, d: 4 });
    expect((await withBoth.waitFor(1))[0]!.payload).toEqual({ a: 1, b: null, c: "", d: 4 });
  });

  it("RFC mode: a payload neither string nor object is an error catch nodes get, with a red status cleared by the next message", async () => {
    const h = await csv();
    h.send("n", { payload: 1 });
    await sleep(40);
    // As Node-RED reports the Error it hands to done(): its toString().
    expect((at(h, "caught")[0]!.error as { message: string }).message).toBe("Error: This node only handles CSV strings or js objects.");
    // The node's own status, as Node-RED's; the runtime then marks the failed node too (red ring).
    expect(h.statuses.filter((s) => s.nodeId === "n").map((s) => s.status)).toContainEqual({ fill: "red", shape: "dot", text: "This node only handles CSV strings or js objects." });
    h.send("n", { payload: "1,2" });
    await h.waitFor(2);
    expect(h.statuses.filter((s) => s.nodeId === "n").at(-1)!.status).toBeNull();
  });

  it("legacy mode: the same payload is only a warning; unbalanced quotes warn that the output is probably corrupt", async () => {
    const h = await csv({ spec: "legacy" });
    h.send("n", { payload: true });
    h.send("n", { payload: '"a,b' });
    await h.waitFor(1);
    await sleep(30);
    expect(at(h, "caught")).toEqual([]);
    expect(h.errors.map((e) => e.error)).toEqual(["This node only handles CSV strings or js objects.", "Malformed CSV data - output probably corrupt."]);
  });

  it("RFC mode: a malformed header row is a caught error with the status 'Malformed columns template.'", async () => {
    const h = await csv({ header_in: true });
    h.send("n", { payload: 'a,b"c\n1,2' });
    await sleep(40);
    expect((at(h, "caught")[0]!.error as { message: string }).message).toBe("UnquotedQuoteError: Quote found in the middle of an unquoted field");
    expect(h.statuses.filter((s) => s.nodeId === "n").map((s) => s.status)).toContainEqual({ fill: "red", shape: "dot", text: "Malformed columns template." });
    expect(at(h, "s")).toEqual([]);
  });

  it("a malformed column template is refused when the flow is saved (RFC mode), accepted in legacy mode as Node-RED does", () => {
    const bad = csvNode.configSchema.safeParse({ columns: '"a",  "b" , " c "' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]).toMatchObject({ path: ["columns"], message: expect.stringMatching(/^Malformed columns template/) });
    expect(csvNode.configSchema.safeParse({ spec: "legacy", columns: '"a",  "b" , " c "' }).success).toBe(true);
  });

  it("header row once, again after a msg.reset (which, without payload, sends nothing itself)", async () => {
    const h = await csv({ columns: "kind,price", header_out: "once", newline: "\\n" });
    h.send("n", { payload: { kind: "Apple", price: 100 } });
    h.send("n", { payload: { kind: "Pear", price: 90 } });
    h.send("n", { reset: true });
    h.send("n", { payload: { kind: "Fig", price: 5 } });
    h.send("n", { payload: { kind: "Kiwi", price: 7 }, reset: true });
    const got = await h.waitFor(4);
    await sleep(30);
    expect(got.map((m) => m.payload)).toEqual(["kind,price\nApple,100\n", "Pear,90\n", "kind,price\nFig,5\n", "kind,price\nKiwi,7\n"]);
  });

  it("separators as Node-RED writes them: \\t is a tab", async () => {
    const h = await csv({ separator: "\\t", columns: "a,b", output: "mult" });
    h.send("n", { payload: "1\t2\n3\t4" });
    expect((await h.waitFor(1))[0]!.payload).toEqual([
      { a: 1, b: 2 },
      { a: 3, b: 4 },
    ]);
  });

  it("refuses CSV text over the size bound", async () => {
    const h = await csv();
    h.send("n", { payload: "a".repeat(MAX_PARSER_INPUT_CHARS + 1) });
    await sleep(100);
    expect(h.errors.map((e) => e.error.slice(0, 80))).toEqual([expect.stringMatching(/over the limit/)]);
    expect(at(h, "s").length).toBe(0);
  });

  it("imports a Node-RED csv node without spec as legacy, with Node-RED's defaults, and exports it back", () => {
    const imported = csvNode.configSchema.parse(csvNode.nodeRed!.fromNodeRed({ sep: ",", hdrin: "", hdrout: "", multi: "yes", temp: "a,b", skip: "2", strings: true, include_empty_strings: "", include_null_values: "" }));
    expect(imported).toEqual({
      spec: "legacy",
      columns: "a,b",
      separator: ",",
      skip_lines: 2,
      header_in: false,
      parse_numbers: true,
      include_empty_strings: false,
      include_null_values: false,
      output: "mult",
      header_out: "none",
      newline: "\\n",
    });
    expect(csvNode.configSchema.parse(csvNode.nodeRed!.fromNodeRed({ spec: "rfc", hdrout: true }))).toMatchObject({ spec: "rfc", newline: "\\r\\n", header_out: "all" });
    expect(csvNode.nodeRed!.toNodeRed(imported as never)).toEqual({
      spec: "",
      sep: ",",
      hdrin: false,
      hdrout: "none",
      multi: "mult",
      ret: "\\n",
      temp: "a,b",
      skip: "2",
      strings: true,
      include_empty_strings: false,
      include_null_values: false,
    });
  });

  it("the RFC parser: strict mode refuses stray quotes, relaxed mode keeps them as Node-RED's does; quoteCell doubles quotes", () => {
    expect(() => parseCsv('a,"b"c', { strict: true })).toThrow("Data found after closing quote");
    expect(() => parseCsv('"a', { strict: true })).toThrow("Missing quote, unclosed cell");
    expect(parseCsv('x,y\n1,a"b', { outputStyle: "object" }).data).toEqual([{ x: "1", y: 'a"b' }]);
    expect(parseCsv("x\n0012\n+5\n1e3", { parseNumeric: true }).data).toEqual([{ x: "0012" }, { x: "+5" }, { x: 1000 }]);
    expect(quoteCell('say "hi"')).toBe('"say ""hi"""');
    expect(quoteCell("plain")).toBe("plain");
  });
});
