import { createTrpcHandler } from "@/server/api/trpc-handler";
import { getApp } from "@/server/app-context";

export const dynamic = "force-dynamic";

const handler = createTrpcHandler(getApp);

export { handler as GET, handler as POST };
