"use client";

import Link from "next/link";
import { useEffect, useRef } from "react";
import { useMutation } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { errorInfo, useTRPC } from "@/trpc/react";
import { commonErrorMessage } from "./messages";

const RESEND_HINT = (
  <p>
    To get a new link, <Link href="/account/security">open your account page</Link> (log in if asked) and choose{" "}
    <strong>Resend verification email</strong>.
  </p>
);

/** Confirms the mailed token once, on arrival. */
export function VerifyEmail({ token }: { token: string | null }) {
  const trpc = useTRPC();
  const verify = useMutation(trpc.auth.verifyEmail.mutationOptions());
  const { mutate } = verify;
  // Tokens are single use: a second call (React re-running effects) would report "used already".
  const started = useRef(false);
  useEffect(() => {
    if (!token || started.current) return;
    started.current = true;
    mutate({ token });
  }, [token, mutate]);

  if (!token) {
    return (
      <div className="card">
        <Alert kind="error">This verification link is incomplete. Open the link from the email again.</Alert>
        {RESEND_HINT}
      </div>
    );
  }
  if (verify.isSuccess) {
    return (
      <div className="card">
        <Alert kind="ok">Your email is verified.</Alert>
        <p>
          Thank you for confirming {verify.data.user.email}. <Link href="/account/security">Go to your account</Link>
        </p>
      </div>
    );
  }
  if (verify.isError) {
    const code = errorInfo(verify.error).code;
    const message =
      code === "TOKEN_EXPIRED"
        ? "This verification link has expired."
        : code === "TOKEN_INVALID" || code === "VALIDATION_FAILED"
          ? "This verification link is not valid or has been used already."
          : commonErrorMessage(verify.error);
    return (
      <div className="card">
        <Alert kind="error">{message}</Alert>
        {RESEND_HINT}
      </div>
    );
  }
  return (
    <div className="card">
      <p role="status">Verifying your email…</p>
    </div>
  );
}
