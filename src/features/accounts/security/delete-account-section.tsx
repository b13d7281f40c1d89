"use client";

import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { Alert } from "@/components/alert";
import { FormFooter, SubmitButton } from "@/components/buttons";
import { ConfirmDialog } from "@/components/dialog";
import { errorInfo, useTRPC } from "@/trpc/react";
import { commonErrorMessage } from "../messages";
import { CurrentPasswordField, isWrongPassword } from "./current-password-field";

export function DeleteAccountSection() {
  const trpc = useTRPC();
  const remove = useMutation(
    trpc.auth.deleteAccount.mutationOptions({
      // Every session ends on the server; signOut clears this browser's cookie too.
      onSuccess: () => signOut({ callbackUrl: "/" }),
    }),
  );
  const [password, setPassword] = useState("");
  const [confirming, setConfirming] = useState(false);

  // The form checks the password is there; the dialog asks before anything is sent.
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setConfirming(true);
  }

  const info = remove.error ? errorInfo(remove.error) : null;
  const alert =
    info?.code === "LAST_OWNER"
      ? "You are the last owner of an organization that has other members. Make someone else an owner first."
      : remove.error && !isWrongPassword(remove.error)
        ? commonErrorMessage(remove.error)
        : null;
  return (
    <section className="card danger-zone" aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete account</h2>
      <p>
        Your account is removed and you are logged out everywhere. Organizations where you are the only member are
        deleted with it.
      </p>
      <form method="post" onSubmit={onSubmit}>
        {alert ? <Alert kind="error">{alert}</Alert> : null}
        <CurrentPasswordField id="delete-password" value={password} onChange={setPassword} error={remove.error} />
        <FormFooter>
          <SubmitButton className="danger" pending={remove.isPending || remove.isSuccess} pendingLabel="Deleting…" aria-haspopup="dialog">
            Delete my account
          </SubmitButton>
        </FormFooter>
      </form>
      <ConfirmDialog
        title="Delete your account?"
        open={confirming}
        confirmLabel="Delete my account"
        danger
        onClose={() => setConfirming(false)}
        onConfirm={() => {
          setConfirming(false);
          remove.mutate({ password });
        }}
      >
        <p>You will be logged out everywhere, and this cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
