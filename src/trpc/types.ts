import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

/**
 * The router's types for client code: features/ and components/ import them from here, never from
 * src/server (ESLint enforces it), so the only thing of the server the browser knows is its tRPC
 * contract.
 */
export type { AppRouter };
export type RouterOutputs = inferRouterOutputs<AppRouter>;
export type RouterInputs = inferRouterInputs<AppRouter>;
