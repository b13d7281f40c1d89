import type { Metadata } from "next";
import { NarrowPage } from "@/components/page-shell";
import { firstParam, type SearchParams } from "@/features/accounts/search-params";
import { VerifyEmail } from "@/features/accounts/verify-email";

export const metadata: Metadata = { title: "Verify your email" };

export default async function VerifyEmailPage({ searchParams }: { searchParams: SearchParams }) {
  const token = firstParam(await searchParams, "token");
  return (
    <NarrowPage title="Verify your email">
      <VerifyEmail token={token} />
    </NarrowPage>
  );
}
