import { getOpenApiDocument } from "@/server/api/rest";
import { getAppServices } from "@/server/services-slot";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const services = await getAppServices();
  return Response.json(getOpenApiDocument(services.config.publicUrl, services.config.version), {
    headers: { "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" },
  });
}
