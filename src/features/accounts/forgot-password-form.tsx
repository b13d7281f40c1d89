"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { FormFooter, SubmitButton } from "@/components/buttons";
import { errorInfo, useTRPC } from "@/trpc/react";
import { commonErrorMessage, fieldMessage } from "./messages";
import { EmailField } from "./auth-fields";

export function ForgotPasswordForm() {
  const trpc = useTRPC();
  const request = useMutation(trpc.auth.requestPasswordReset.mutationOptions());
  const [email, setEmail] = useState("");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    request.mutate({ email });
  }

  if (request.isSuccess) {
    return (
      <div className="card">
        <Alert kind="ok">If an account exists for this email, a reset link is on its way.</Alert>
        <p>The link works for one hour. Check your spam folder if nothing arrives within a few minutes.</p>
        <p>
          <Link href="/login">Back to log in</Link>
        </p>
      </div>
    );
  }

  const fields = request.error ? errorInfo(request.error).fields : {};
  const alert = request.error ? commonErrorMessage(request.error) : null;
  return (
    <form method="post" onSubmit={onSubmit} className="card">
      {alert ? <Alert kind="error">{alert}</Alert> : null}
      <p className="hint">Enter the email of your account and we will send you a link to choose a new password.</p>
      <EmailField value={email} onChange={(e) => setEmail(e.target.value)} error={fieldMessage("Email", fields.email)} />
      <FormFooter>
        <SubmitButton pending={request.isPending} pendingLabel="Sending…">
          Send reset link
        </SubmitButton>
      </FormFooter>
      <p className="form-footer">
        Remembered it? <Link href="/login">Log in</Link>
      </p>
    </form>
  );
}
