"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";
import type { Profile } from "../types";
import { DeleteAccountSection } from "./delete-account-section";
import { MfaSection } from "./mfa-section";
import { PasswordSection } from "./password-section";
import { ProfileSection } from "./profile-section";
import { SessionsSection } from "./sessions-section";

/** The account page's sections, fed by one profile query that the server rendered first. */
export function AccountSecurity({ initialProfile, timeZones }: { initialProfile: Profile; timeZones: readonly string[] }) {
  const trpc = useTRPC();
  const { data } = useQuery({ ...trpc.auth.profile.queryOptions(), initialData: initialProfile });
  const profile = data ?? initialProfile;
  return (
    <>
      <ProfileSection profile={profile} timeZones={timeZones} />
      <PasswordSection />
      <MfaSection profile={profile} />
      <SessionsSection profile={profile} />
      <DeleteAccountSection />
    </>
  );
}
