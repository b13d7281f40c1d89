import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

type AuthOutputs = inferRouterOutputs<AppRouter>["auth"];

export type Profile = AuthOutputs["profile"];
export type SessionInfo = AuthOutputs["sessions"]["sessions"][number];
