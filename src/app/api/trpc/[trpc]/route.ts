import { createTrpcHandler } from "@/server/api/trpc-handler";
import { getAppServices } from "@/server/services-slot";

export const dynamic = "force-dynamic";

const handler = createTrpcHandler(getAppServices);

export { handler as GET, handler as POST };
