import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { NarrowPage } from "@/components/page-shell";
import { safeCallbackPath } from "@/features/accounts/callback-path";
import { currentProfile } from "@/features/accounts/current-user";
import { LoginForm } from "@/features/accounts/login-form";
import { firstParam, type SearchParams } from "@/features/accounts/search-params";

export const metadata: Metadata = { title: "Log in" };

export default async function LoginPage({ searchParams }: { searchParams: SearchParams }) {
  const next = safeCallbackPath(firstParam(await searchParams, "callbackUrl"));
  if (await currentProfile()) redirect(next);
  return (
    <NarrowPage title="Log in">
      <LoginForm next={next} />
    </NarrowPage>
  );
}
