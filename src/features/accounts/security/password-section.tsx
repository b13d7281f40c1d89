"use client";

import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { FormFooter, SubmitButton } from "@/components/buttons";
import { errorInfo, useTRPC } from "@/trpc/react";
import { commonErrorMessage, fieldMessage } from "../messages";
import { PASSWORD_HINT } from "../password-hint";
import { NewPasswordField } from "../auth-fields";
import { CurrentPasswordField, isWrongPassword } from "./current-password-field";
import { useInvalidateAccount } from "./use-account-queries";

export function PasswordSection() {
  const trpc = useTRPC();
  const invalidate = useInvalidateAccount();
  const change = useMutation(
    trpc.auth.changePassword.mutationOptions({
      onSuccess: () => {
        setCurrent("");
        setNext("");
        void invalidate.sessions();
      },
    }),
  );
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    change.mutate({ old_password: current, new_password: next });
  }

  const info = change.error ? errorInfo(change.error) : null;
  const alert = change.error && !isWrongPassword(change.error) ? commonErrorMessage(change.error) : null;
  return (
    <section className="card" aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form method="post" onSubmit={onSubmit}>
        {alert ? <Alert kind="error">{alert}</Alert> : null}
        {change.isSuccess ? <Alert kind="ok">Your password was changed. Your other sessions were logged out.</Alert> : null}
        <CurrentPasswordField id="current-password" label="Current password" field="old_password" value={current} onChange={setCurrent} error={change.error} />
        <NewPasswordField
          id="new-password"
          label="New password"
          value={next}
          onChange={(e) => setNext(e.target.value)}
          hint={`${PASSWORD_HINT} Changing it logs out your other sessions.`}
          error={fieldMessage("New password", info?.fields.new_password)}
        />
        <FormFooter>
          <SubmitButton pending={change.isPending} pendingLabel="Changing…">
            Change password
          </SubmitButton>
        </FormFooter>
      </form>
    </section>
  );
}
