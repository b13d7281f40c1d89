"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { FormFooter, SubmitButton } from "@/components/buttons";
import { errorInfo, useTRPC } from "@/trpc/react";
import { commonErrorMessage, fieldMessage } from "./messages";
import { NewPasswordField } from "./auth-fields";

function InvalidLink({ expired }: { expired: boolean }) {
  return (
    <div className="card">
      <Alert kind="error">
        {expired ? "This reset link has expired." : "This reset link is not valid or has been used already."}
      </Alert>
      <p>
        Reset links work once and for one hour. <Link href="/forgot-password">Request a new link</Link>.
      </p>
    </div>
  );
}

export function ResetPasswordForm({ token }: { token: string | null }) {
  const trpc = useTRPC();
  const confirm = useMutation(trpc.auth.confirmPasswordReset.mutationOptions());
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [mismatch, setMismatch] = useState(false);

  if (!token) return <InvalidLink expired={false} />;

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (password !== repeat) {
      setMismatch(true);
      return;
    }
    setMismatch(false);
    confirm.mutate({ token, new_password: password });
  };

  if (confirm.isSuccess) {
    return (
      <div className="card">
        <Alert kind="ok">Your password has been changed. For your safety, every session of your account was logged out.</Alert>
        <p>
          <Link href="/login" className="button">
            Log in with your new password
          </Link>
        </p>
      </div>
    );
  }

  const info = confirm.error ? errorInfo(confirm.error) : null;
  if (info?.code === "TOKEN_INVALID" || info?.code === "TOKEN_EXPIRED" || info?.fields.token) {
    return <InvalidLink expired={info.code === "TOKEN_EXPIRED"} />;
  }
  const alert = confirm.error ? commonErrorMessage(confirm.error) : null;
  return (
    <form method="post" onSubmit={onSubmit} className="card">
      {alert ? <Alert kind="error">{alert}</Alert> : null}
      <NewPasswordField
        id="new_password"
        label="New password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={fieldMessage("New password", info?.fields.new_password)}
      />
      <NewPasswordField
        id="confirm_password"
        label="Confirm password"
        hint={null}
        value={repeat}
        onChange={(e) => setRepeat(e.target.value)}
        error={mismatch ? "The passwords do not match." : undefined}
      />
      <FormFooter>
        <SubmitButton pending={confirm.isPending} pendingLabel="Saving…">
          Set new password
        </SubmitButton>
      </FormFooter>
    </form>
  );
}
