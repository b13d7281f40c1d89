import NextAuth from "next-auth";
import { getApp } from "@/server/app-context";
import { buildAuthOptions } from "@/server/auth/next-auth";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ nextauth: string[] }> };

async function handler(req: Request, ctx: Ctx) {
  const app = await getApp();
  return NextAuth(req as never, { params: await ctx.params } as never, buildAuthOptions(app)) as Promise<Response>;
}

export { handler as GET, handler as POST };
