import type { Metadata } from "next";
import { NarrowPage } from "@/components/page-shell";
import { ResetPasswordForm } from "@/features/accounts/reset-password-form";
import { firstParam, type SearchParams } from "@/features/accounts/search-params";

export const metadata: Metadata = { title: "Choose a new password" };

export default async function ResetPasswordPage({ searchParams }: { searchParams: SearchParams }) {
  const token = firstParam(await searchParams, "token");
  return (
    <NarrowPage title="Choose a new password">
      <ResetPasswordForm token={token} />
    </NarrowPage>
  );
}
