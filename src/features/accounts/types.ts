import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/trpc/types";

type AuthOutputs = inferRouterOutputs<AppRouter>["auth"];

export type Profile = AuthOutputs["profile"];
export type SessionInfo = AuthOutputs["sessions"]["sessions"][number];
