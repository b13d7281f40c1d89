"use client";

import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { Alert } from "@/components/alert";
import { Field } from "@/components/field";
import { errorInfo, useTRPC } from "@/trpc/react";
import { commonErrorMessage, fieldMessage } from "../messages";

export function DeleteAccountSection() {
  const trpc = useTRPC();
  const remove = useMutation(
    trpc.auth.deleteAccount.mutationOptions({
      // Every session ends on the server; signOut clears this browser's cookie too.
      onSuccess: () => signOut({ callbackUrl: "/" }),
    }),
  );
  const [password, setPassword] = useState("");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!window.confirm("Delete your account? You will be logged out everywhere, and this cannot be undone.")) return;
    remove.mutate({ password });
  }

  const info = remove.error ? errorInfo(remove.error) : null;
  const wrongPassword = info?.code === "INVALID_CREDENTIALS";
  const alert =
    info?.code === "LAST_OWNER"
      ? "You are the last owner of an organization that has other members. Make someone else an owner first."
      : remove.error && !wrongPassword
        ? commonErrorMessage(remove.error)
        : null;
  return (
    <section className="card danger-zone" aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete account</h2>
      <p>
        Your account is removed and you are logged out everywhere. Organizations where you are the only member are
        deleted with it.
      </p>
      <form onSubmit={onSubmit}>
        {alert ? <Alert kind="error">{alert}</Alert> : null}
        <Field
          id="delete-password"
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={wrongPassword ? "Password is not correct." : fieldMessage("Password", info?.fields.password)}
        />
        <div className="actions">
          <button type="submit" className="danger" disabled={remove.isPending || remove.isSuccess}>
            {remove.isPending || remove.isSuccess ? "Deleting…" : "Delete my account"}
          </button>
        </div>
      </form>
    </section>
  );
}
