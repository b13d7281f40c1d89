/** Differential cases for the html node, from Node-RED's test/nodes/core/parsers/70-HTML_spec.js and its test page. */
import type { DiffCase } from "@/test/node-red-diff/types";

/** Node-RED's test/resources/70-HTML-test-file.html. */
export const TEST_PAGE = "<!DOCTYPE html>\n<html>\n<body>\n\n<h1>This is a test page for node 70-HTML</h1>\n\n<p>There's nothing to read here.</p>\n\n<ol id=\"colours\">\n    <li>Blue</li>\n    <li>Red</li>\n</ol>\n\n<ul id=\"fruits\">\n    <li>Apple</li>\n    <li>Pear</li>\n</ul>\n\n<ul id=\"vegetables\">\n    <li>Potato</li>\n    <li>Parsnip</li>\n</ul>\n\n<span>\n    <img src=\"foo.png\">\n</span>\n\n</body>\n</html>\n";

const html = (props: Record<string, unknown> = {}) => ({ id: "h", type: "html", wires: [["out"]], ...props });
/** A catch node for the node's errors; a change node copies msg.error.message to msg.errmsg for the "errors" collector. */
const caught = [
  { id: "c", type: "catch", scope: ["h"], uncaught: false, wires: [["m"]] },
  { id: "m", type: "change", rules: [{ t: "set", p: "errmsg", pt: "msg", to: "error.message", tot: "msg" }], wires: [["errors"]] },
];

export const cases: DiffCase[] = [
  { name: "msg.select, document mode (body h1)", nodes: [html()], send: [{ msg: { payload: TEST_PAGE, topic: "bar", select: "body h1" } }], expect: 1 },
  { name: "msg.select in another property", nodes: [html({ property: "foo" })], send: [{ msg: { foo: TEST_PAGE, topic: "bar", select: "h1" } }], expect: 1 },
  { name: "configured selector, other in and out properties", nodes: [html({ property: "foo", outproperty: "bar", tag: "h1" })], send: [{ msg: { foo: TEST_PAGE, topic: "bar" } }], expect: 1 },
  { name: "no matching elements: an empty array", nodes: [html()], send: [{ msg: { payload: TEST_PAGE, topic: "bar", select: "h4" } }], expect: 1 },
  { name: "paragraph text", nodes: [html({ ret: "text", tag: "p" })], send: [{ msg: { payload: TEST_PAGE, topic: "bar" } }], expect: 1 },
  { name: "list contents as html", nodes: [html({ tag: "ol" })], send: [{ msg: { payload: TEST_PAGE, topic: "bar" } }], expect: 1 },
  { name: "list contents as text", nodes: [html({ tag: "ol", ret: "text" })], send: [{ msg: { payload: TEST_PAGE, topic: "bar" } }], expect: 1 },
  { name: "an unclosed tag is fixed up", nodes: [html({ tag: "span" })], send: [{ msg: { payload: TEST_PAGE, topic: "bar" } }], expect: 1 },
  { name: "an attribute of a tag", nodes: [html({ ret: "attr", tag: "span img" })], send: [{ msg: { payload: TEST_PAGE, topic: "bar" } }], expect: 1 },
  { name: "attributes and contents (compl) with a content property name", nodes: [html({ ret: "compl", tag: "ol, span", chr: "content" })], send: [{ msg: { payload: TEST_PAGE } }], expect: 1 },
  { name: "character references in html output", nodes: [html({ tag: "p" })], send: [{ msg: { payload: "<p>caf&eacute; &amp; &lt;b&gt; <br></p>" } }], expect: 1 },
  { name: "an error on a null payload", nodes: [html({ tag: "p" }), ...caught], send: [{ msg: { payload: null, topic: "bar" } }], expect: 1, compare: ["topic", "errmsg"] },
  { name: "passes through without payload", nodes: [html()], send: [{ msg: { topic: "bar" } }], expect: 1 },
  { name: "multi: list html with parts", nodes: [html({ tag: "ul", as: "multi" })], send: [{ msg: { payload: TEST_PAGE, topic: "bar" } }], expect: 2 },
  { name: "multi: list html with parts, another property", nodes: [html({ property: "foo", tag: "ul", as: "multi" })], send: [{ msg: { foo: TEST_PAGE, topic: "bar" } }], expect: 2 },
  { name: "multi: list text with parts", nodes: [html({ tag: "ul", ret: "text", as: "multi" })], send: [{ msg: { payload: TEST_PAGE, topic: "bar" } }], expect: 2 },
  { name: "multi: an attribute with parts", nodes: [html({ ret: "attr", tag: "span img", as: "multi" })], send: [{ msg: { payload: TEST_PAGE, topic: "bar" } }], expect: 1 },
  { name: "multi: an empty element sends nothing but counts", nodes: [html({ tag: "li", ret: "text", as: "multi" })], send: [{ msg: { payload: "<ul><li>a</li><li></li><li>c</li></ul>" } }], expect: 2 },
  {
    name: "differs: a number payload fails with our message",
    nodes: [html({ tag: "p" }), ...caught],
    send: [{ msg: { payload: 5 } }],
    expect: 1,
    compare: ["errmsg"],
    differs: 'every value that is neither a string nor bytes fails with "cheerio.load() expects a string"; Node-RED hands it to cheerio, which fails with its own message (html.test.ts asserts ours)',
  },
];
