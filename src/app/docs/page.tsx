import type { Metadata } from "next";
import Link from "next/link";
import { openApiDocument } from "@/trpc/server";
import { SiteHeader } from "@/components/site-header";

export const metadata: Metadata = { title: "API documentation" };
export const dynamic = "force-dynamic";

type Json = Record<string, unknown>;
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

function Schema({ label, schema }: { label: string; schema: unknown }) {
  if (!schema) return null;
  return (
    <details>
      <summary>{label}</summary>
      <pre>{JSON.stringify(schema, null, 2)}</pre>
    </details>
  );
}

/** Inline `code` and **bold** of the OpenAPI descriptions, as React elements (no HTML injection). */
function Inline({ text }: { text: string }) {
  return (
    <>
      {text.split(/(`[^`]+`|\*\*[^*]+\*\*)/).map((part, i) => {
        if (part.startsWith("`") && part.endsWith("`")) return <code key={i}>{part.slice(1, -1)}</code>;
        if (part.startsWith("**") && part.endsWith("**")) return <strong key={i}>{part.slice(2, -2)}</strong>;
        return part;
      })}
    </>
  );
}

function Paragraphs({ text }: { text: string }) {
  return (
    <>
      {text.split(/\n\n+/).map((p, i) => (
        <p key={i}>
          <Inline text={p} />
        </p>
      ))}
    </>
  );
}

/** Renders the OpenAPI document served at /api/v1/openapi.json, on the server, without scripts. */
export default async function DocsPage() {
  const doc = (await openApiDocument()) as {
    info: { title: string; version: string; description?: string };
    paths: Record<string, Record<string, Json>>;
  };
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ path, method: m, op: item[m] as Json })),
  );
  const tags = [...new Set(operations.map((o) => ((o.op.tags as string[] | undefined) ?? ["other"])[0]!))];
  return (
    <>
      <SiteHeader />
      <main>
        <h1>
          {doc.info.title} <span className="tag">v{doc.info.version}</span>
        </h1>
        {doc.info.description ? <Paragraphs text={doc.info.description} /> : null}
        <p>
          <Link href="/docs/try">Try the API in the browser</Link> (every endpoint, with your session or an API key).
          Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1). Real-time events:
          the <Link href="/docs/websocket">WebSocket protocol</Link>. Back to <Link href="/">the home page</Link>.
        </p>
        {tags.map((tag) => (
          <section key={tag} className="card" aria-labelledby={`tag-${tag}`}>
            <h2 id={`tag-${tag}`}>{tag}</h2>
            <table>
              <tbody>
                {operations
                  .filter((o) => ((o.op.tags as string[] | undefined) ?? ["other"])[0] === tag)
                  .map(({ path, method, op }) => {
                    const responses = (op.responses ?? {}) as Record<string, Json>;
                    const success = Object.entries(responses).find(([code]) => code.startsWith("2"));
                    const requestBody = (op.requestBody as Json | undefined)?.content as Json | undefined;
                    const params = op.parameters as unknown[] | undefined;
                    return (
                      <tr key={`${method} ${path}`} id={String(op.operationId)}>
                        <td>
                          <span className="method">{method.toUpperCase()}</span> <code>{path}</code>
                          {Array.isArray(op.security) && op.security.length > 0 ? (
                            <span className="tag"> auth</span>
                          ) : (
                            <span className="tag"> public</span>
                          )}
                          <div>{String(op.summary ?? "")}</div>
                          {op.description ? (
                            <div className="hint">
                              <Inline text={String(op.description)} />
                            </div>
                          ) : null}
                          {params && params.length > 0 ? <Schema label="Parameters" schema={params} /> : null}
                          <Schema label="Request body" schema={(requestBody?.["application/json"] as Json | undefined)?.schema} />
                          {success ? (
                            <Schema
                              label={`Response ${success[0]}`}
                              schema={((success[1].content as Json | undefined)?.["application/json"] as Json | undefined)?.schema}
                            />
                          ) : null}
                        </td>
                      </tr>
                    );
                  })}
              </tbody>
            </table>
          </section>
        ))}
      </main>
    </>
  );
}
