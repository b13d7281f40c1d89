import NextAuth from "next-auth";
import { getAppServices } from "@/server/services-slot";
import { buildAuthOptions } from "@/server/api/next-auth-options";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ nextauth: string[] }> };

async function handler(req: Request, ctx: Ctx) {
  const services = await getAppServices();
  return NextAuth(req as never, { params: await ctx.params } as never, buildAuthOptions(services)) as Promise<Response>;
}

export { handler as GET, handler as POST };
