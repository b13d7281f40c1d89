/** The html node as Node-RED 4.1's (test/nodes/core/parsers/70-HTML_spec.js, on its test page). */
import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { htmlNode } from "./definition";
import { MAX_MULTI_COPY_CHARS } from "./behaviour";
import { TEST_PAGE } from "./cases";

const flow = closingTestFlows();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function htmlFlow(config: Record<string, unknown> = {}) {
  return flow(
    [
      { id: "h", type: "html", config },
      { id: "s", type: "sink" },
      { id: "c", type: "catch" },
      { id: "caught", type: "sink" },
    ],
    [
      { source: "h", target: "s" },
      { source: "c", target: "caught" },
    ],
  );
}
const at = (h: Awaited<ReturnType<typeof htmlFlow>>, sink: string) => h.arrivals.filter((a) => a.sink === sink).map((a) => a.msg);

describe("html node", () => {
  it("selects with msg.select when no selector is configured, parsing a whole document", async () => {
    const h = await htmlFlow({ return: "text" });
    h.send("h", { payload: TEST_PAGE, topic: "bar", select: "body h1" });
    const [m] = await h.waitFor(1);
    expect(m).toMatchObject({ topic: "bar", payload: ["This is a test page for node 70-HTML"] });
  });

  it("the configured selector wins over msg.select; other input and output properties", async () => {
    const h = await htmlFlow({ property: "foo", out_property: "bar", selector: "h1", return: "text" });
    h.send("h", { foo: TEST_PAGE, topic: "bar", select: "p" });
    const [m] = await h.waitFor(1);
    expect(m!.bar).toEqual(["This is a test page for node 70-HTML"]);
    expect(m!.foo).toBe(TEST_PAGE);
  });

  it("html of each element (XML-serialized: an unclosed img is closed), text, attributes, and both", async () => {
    const page = '<ol id="c"><li>Blue</li><li>Red &eacute;</li></ol><span id="s" class="k">\n<img src="foo.png">\n</span>';
    const html = await htmlFlow({ selector: "ol, span" });
    const text = await htmlFlow({ selector: "ol", return: "text" });
    const attr = await htmlFlow({ selector: "span img, span", return: "attr" });
    const compl = await htmlFlow({ selector: "span", return: "compl", content_key: "content" });
    for (const h of [html, text, attr, compl]) h.send("h", { payload: page });
    expect((await html.waitFor(1))[0]!.payload).toEqual(["<li>Blue</li><li>Red &#xE9;</li>", '<img src="foo.png"/>']);
    expect((await text.waitFor(1))[0]!.payload).toEqual(["BlueRed é"]);
    expect((await attr.waitFor(1))[0]!.payload).toEqual([{ id: "s", class: "k" }, { src: "foo.png" }]);
    expect((await compl.waitFor(1))[0]!.payload).toEqual([{ content: '<img src="foo.png">', id: "s", class: "k" }]);
  });

  it("no match (or no selector at all) gives an empty array", async () => {
    const h = await htmlFlow();
    h.send("h", { payload: TEST_PAGE, topic: "bar", select: "h4" });
    h.send("h", { payload: TEST_PAGE });
    const got = await h.waitFor(2);
    expect(got.map((m) => m.payload)).toEqual([[], []]);
  });

  it("multi: one message per element with parts, each its own copy; empty elements send nothing", async () => {
    const h = await htmlFlow({ selector: "ul", return: "text", output_as: "multi" });
    h.send("h", { _msgid: "orig", payload: TEST_PAGE + "<ul></ul>", topic: "bar" });
    const got = await h.waitFor(2);
    await sleep(30);
    expect(at(h, "s")).toHaveLength(2);
    expect(got.map((m) => m.parts)).toEqual([
      { id: "orig", index: 0, count: 3, type: "string", ch: "" },
      { id: "orig", index: 1, count: 3, type: "string", ch: "" },
    ]);
    expect(got[0]!.payload).toMatch(/Apple[\s\S]*Pear/);
    expect(got[1]!.payload).toMatch(/Potato[\s\S]*Parsnip/);
    expect(got.every((m) => m.topic === "bar")).toBe(true);
    expect(got[0]).not.toBe(got[1]);
  });

  it("passes a message without the property through; a non-string and a bad selector are caught errors", async () => {
    const h = await htmlFlow({ selector: "p" });
    h.send("h", { topic: "bar" });
    h.send("h", { payload: null, topic: "null" });
    h.send("h", { payload: "<p>x</p>", select: "ignored" });
    const bad = await htmlFlow();
    bad.send("h", { payload: "<p>x</p>", select: "p[[" });
    await h.waitFor(2);
    await sleep(50);
    expect(at(h, "s").map((m) => m.payload)).toEqual([undefined, ["x"]]);
    expect((at(h, "caught")[0]!.error as { message: string }).message).toBe("cheerio.load() expects a string");
    expect(at(bad, "caught")).toHaveLength(1);
    expect(at(bad, "s")).toHaveLength(0);
  });

  it("multi with another output property: the copies of the input are bounded", async () => {
    const h = await htmlFlow({ selector: "li", return: "text", output_as: "multi", out_property: "item" });
    const items = "<li>x</li>".repeat(2000);
    const page = `<ul>${items}</ul>` + " ".repeat(Math.ceil(MAX_MULTI_COPY_CHARS / 2000));
    h.send("h", { payload: page });
    await sleep(200);
    expect(at(h, "s")).toHaveLength(0);
    expect((at(h, "caught")[0]!.error as { message: string }).message).toMatch(/^2000 messages would each copy/);
    // Written back to the input property, the HTML is not copied and everything is sent.
    const same = await htmlFlow({ selector: "li", return: "text", output_as: "multi" });
    same.send("h", { payload: page, topic: "t" });
    const got = await same.waitFor(2000, 10_000);
    expect(got[1999]).toMatchObject({ payload: "x", topic: "t", parts: { index: 1999, count: 2000 } });
  }, 20_000);

  it("parses bytes as UTF-8", async () => {
    const h = await htmlFlow({ selector: "b", return: "text" });
    h.send("h", { payload: Buffer.from("<b>é</b>") });
    expect((await h.waitFor(1))[0]!.payload).toEqual(["é"]);
  });

  it("maps to and from Node-RED (outproperty defaults to property)", () => {
    expect(htmlNode.nodeRed!.fromNodeRed({ property: "foo", tag: "h1", ret: "attr", as: "multi" })).toEqual({
      property: "foo",
      out_property: "foo",
      selector: "h1",
      return: "attr",
      output_as: "multi",
      content_key: "_",
    });
    expect(htmlNode.nodeRed!.toNodeRed(htmlNode.configSchema.parse({}))).toEqual({ property: "payload", outproperty: "payload", tag: "", ret: "html", as: "single", chr: "_" });
  });
});
