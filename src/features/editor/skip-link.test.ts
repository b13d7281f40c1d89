import { describe, expect, it } from "vitest";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { CANVAS_ID, SkipToCanvas, focusCanvas } from "./skip-link";

/** Just enough of a document: the canvas region, its first node (or none), and who got focus. */
function page({ canvas = true, node = true } = {}) {
  const focused: string[] = [];
  const nodeEl = { focus: () => focused.push("node") };
  const canvasEl = { focus: () => focused.push("canvas"), querySelector: (sel: string) => (node && sel.includes(".react-flow__node") ? nodeEl : null) };
  return { focused, doc: { getElementById: (id: string) => (canvas && id === CANVAS_ID ? canvasEl : null) } as unknown as Document };
}

describe("the editor's skip link", () => {
  it("is a link to the canvas region, named for what it does", () => {
    const html = renderToStaticMarkup(createElement(SkipToCanvas));
    expect(html).toBe(`<a class="skip-link" href="#${CANVAS_ID}">Skip to canvas</a>`);
  });

  it("moves focus to the canvas's first node", () => {
    const { doc, focused } = page();
    expect(focusCanvas(doc)).toBe(true);
    expect(focused).toEqual(["node"]);
  });

  it("moves focus to the canvas itself when the flow is empty", () => {
    const { doc, focused } = page({ node: false });
    expect(focusCanvas(doc)).toBe(true);
    expect(focused).toEqual(["canvas"]);
  });

  it("leaves the link's own #hash navigation alone when there is no canvas", () => {
    const { doc, focused } = page({ canvas: false });
    expect(focusCanvas(doc)).toBe(false);
    expect(focused).toEqual([]);
  });
});
