"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";

/** Refetches what a security change may have altered: the profile (MFA, verification) and the session list. */
export function useInvalidateAccount() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return {
    profile: () => queryClient.invalidateQueries({ queryKey: trpc.auth.profile.queryKey() }),
    sessions: () => queryClient.invalidateQueries({ queryKey: trpc.auth.sessions.queryKey() }),
  };
}
