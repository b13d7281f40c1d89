import type { Metadata } from "next";
import { NarrowPage } from "@/components/page-shell";
import { RegisterForm } from "@/features/accounts/register-form";
import { serverCaller } from "@/trpc/server";

export const metadata: Metadata = { title: "Create an account" };

export default async function RegisterPage() {
  // The operator's terms of service (TERMS_URL), linked beside the box that accepts them.
  const { terms_url } = await (await serverCaller()).caller.system.settings();
  return (
    <NarrowPage title="Create an account" intro="Your account comes with its own organization; invite your team later.">
      <RegisterForm termsUrl={terms_url} />
    </NarrowPage>
  );
}
