"use client";

import { useInvalidate, useTRPC } from "@/trpc/react";

/** Refetches what a security change may have altered: the profile (MFA, verification) and the session list. */
export function useInvalidateAccount() {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const profile = () => invalidate(trpc.auth.profile.queryKey());
  const sessions = () => invalidate(trpc.auth.sessions.queryKey());
  return {
    profile,
    sessions,
    /** After an MFA change: the profile says whether MFA is on, and the other sessions were ended. */
    profileAndSessions: () => void Promise.all([profile(), sessions()]),
  };
}
