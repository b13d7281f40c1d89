import type { Metadata } from "next";
import { NarrowPage } from "@/components/page-shell";
import { firstParam, type SearchParams } from "@/features/accounts/search-params";
import { VerifyEmail } from "@/features/accounts/verify-email";
import { serverCaller } from "@/trpc/server";

export const metadata: Metadata = { title: "Verify your email" };

export default async function VerifyEmailPage({ searchParams }: { searchParams: SearchParams }) {
  const token = firstParam(await searchParams, "token");
  // The link comes from an email: opened where the account is signed in or not.
  const { signedIn } = await serverCaller();
  return (
    <NarrowPage title="Verify your email" signedIn={signedIn}>
      <VerifyEmail token={token} />
    </NarrowPage>
  );
}
