"use client";

import { useState, type ReactNode } from "react";
import { QueryClientProvider, useQueryClient, type QueryClient, type QueryKey } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import type { AppRouter } from "@/server/api/root";
import { makeQueryClient } from "./query-client";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

let browserQueryClient: QueryClient | undefined;

function getQueryClient() {
  if (typeof window === "undefined") return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}

/** The client side of tRPC: the UI reaches the server only through these procedures. */
export function TRPCReactProvider({ children }: { children: ReactNode }) {
  const queryClient = getQueryClient();
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/api/trpc" })] }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

/** Refetches the queries under a key (a procedure's queryKey() or pathKey()) after a change to what they show. */
export function useInvalidate(): (queryKey: QueryKey) => Promise<void> {
  const queryClient = useQueryClient();
  return (queryKey) => queryClient.invalidateQueries({ queryKey });
}

/** The message and field errors of a failed call, in the user's words. */
export function errorInfo(error: unknown): { code: string; message: string; fields: Record<string, string> } {
  const e = error as { message?: string; data?: { appCode?: string; details?: { path: string; message: string }[] | null } } | null;
  const fields: Record<string, string> = {};
  for (const d of e?.data?.details ?? []) if (d.path && !fields[d.path]) fields[d.path] = d.message;
  return { code: e?.data?.appCode ?? "INTERNAL", message: e?.message ?? "Something went wrong. Please try again.", fields };
}
