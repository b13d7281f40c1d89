import { describe, expect, it } from "vitest";
import { helpToHtml } from "./help-markdown";

describe("help Markdown", () => {
  it("renders paragraphs, headings one level down, lists and code", () => {
    const html = helpToHtml("Does a thing.\n\n### Inputs\n\n- `payload` (string): the *body*.\n");
    expect(html).toContain("<p>Does a thing.</p>");
    expect(html).toContain("<h4>Inputs</h4>");
    expect(html).toContain("<li><code>payload</code> (string): the <em>body</em>.</li>");
  });

  it("shows raw HTML as text and drops script links and images", () => {
    const html = helpToHtml('Hi <script>alert(1)</script> <img src=x onerror="alert(2)">\n\n[click](javascript:alert(3)) ![pic](https://x/y.png)\n\n<div onclick="x()">block</div>');
    expect(html).not.toMatch(/<script|<img|<div|href="javascript/i);
    expect(html).toContain("&lt;script&gt;");
    expect(html).toContain("click");
    expect(html).toContain("pic");
  });

  it("keeps http(s) links, opening them elsewhere", () => {
    expect(helpToHtml("[docs](https://nodered.org/docs)")).toContain('<a href="https://nodered.org/docs" target="_blank" rel="noopener noreferrer">docs</a>');
  });
});
