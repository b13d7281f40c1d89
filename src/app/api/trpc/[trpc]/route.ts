import { getApp } from "@/server/app-context";
import { handleTrpc } from "@/server/api/trpc-handler";

export const dynamic = "force-dynamic";

// The web UI's door to the same procedures the REST API exposes (see src/server/api/trpc-handler.ts).
async function handler(req: Request) {
  return handleTrpc(await getApp(), req);
}

export { handler as GET, handler as POST };
