import { getAppServices } from "@/server/services-slot";
import { handleWebhook } from "@/server/api/rest/webhook-handler";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ slug: string; path?: string[] }> };

async function handler(req: Request, ctx: Ctx) {
  const { slug, path } = await ctx.params;
  return handleWebhook(await getAppServices(), req, slug, path ?? []);
}

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE };
