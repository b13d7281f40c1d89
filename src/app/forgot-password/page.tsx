import type { Metadata } from "next";
import { NarrowPage } from "@/components/page-shell";
import { ForgotPasswordForm } from "@/features/accounts/forgot-password-form";

export const metadata: Metadata = { title: "Forgot your password" };

export default function ForgotPasswordPage() {
  return (
    <NarrowPage title="Forgot your password?">
      <ForgotPasswordForm />
    </NarrowPage>
  );
}
