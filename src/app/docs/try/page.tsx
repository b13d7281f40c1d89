import type { Metadata } from "next";
import Link from "next/link";
import { SiteHeader } from "@/components/site-header";
import { ApiExplorer } from "@/features/docs/api-explorer";

export const metadata: Metadata = { title: "Try the API" };

/** The REST API's explorer: every endpoint of /api/v1/openapi.json, callable from the page. */
export default function TryApiPage() {
  return (
    <>
      <SiteHeader />
      <main className="api-explorer">
        <h1>Try the API</h1>
        <p>
          Open an endpoint, choose <strong>Try it out</strong>, then <strong>Execute</strong>: the request goes from this
          page to this server. Signed in, it carries your session; or choose <strong>Authorize</strong> and paste an API key
          (<code>service_…</code>) or an access token, which then wins. Nothing you paste is stored. The reference without
          scripts is at <Link href="/docs">API documentation</Link>; the document itself at{" "}
          <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.
        </p>
        <ApiExplorer specUrl="/api/v1/openapi.json" />
      </main>
    </>
  );
}
