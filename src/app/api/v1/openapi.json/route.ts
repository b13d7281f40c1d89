import { getOpenApiDocument } from "@/server/api/rest";
import { getApp } from "@/server/app-context";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const app = await getApp();
  return Response.json(getOpenApiDocument(app.config.publicUrl, app.config.version), {
    headers: { "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" },
  });
}
