import type { Metadata } from "next";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { marked } from "marked";
import { SiteHeader } from "@/components/site-header";

export const metadata: Metadata = { title: "WebSocket protocol" };

/** docs/WEBSOCKET.md, rendered on the server: one text for the repository and the site. */
export default async function WebSocketDocsPage() {
  const source = await readFile(path.join(/*turbopackIgnore: true*/ process.cwd(), "docs", "WEBSOCKET.md"), "utf8");
  const html = await marked.parse(source);
  return (
    <>
      <SiteHeader />
      <main className="prose" dangerouslySetInnerHTML={{ __html: html }} />
    </>
  );
}
