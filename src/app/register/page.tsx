import type { Metadata } from "next";
import { NarrowPage } from "@/components/page-shell";
import { RegisterForm } from "@/features/accounts/register-form";

export const metadata: Metadata = { title: "Create an account" };

export default function RegisterPage() {
  return (
    <NarrowPage title="Create an account" intro="Your account comes with its own organization; invite your team later.">
      <RegisterForm />
    </NarrowPage>
  );
}
