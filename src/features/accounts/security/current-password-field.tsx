import { Field } from "@/components/field";
import { errorInfo } from "@/trpc/react";
import { fieldMessage } from "../messages";

/** Whether a failed call was refused for the password: that error belongs under the field, not above the form. */
export function isWrongPassword(error: unknown): boolean {
  return error != null && errorInfo(error).code === "INVALID_CREDENTIALS";
}

/**
 * "Confirm it's you": the account's current password, before a sensitive change. `error` is the
 * failed call's error; a wrong password and the password's own validation message show here.
 */
export function CurrentPasswordField({
  id,
  label = "Password",
  hint,
  field = "password",
  value,
  onChange,
  error,
}: {
  id: string;
  label?: string;
  hint?: string;
  /** The request's name for the password, for its validation message. */
  field?: string;
  value: string;
  onChange: (value: string) => void;
  error: unknown;
}) {
  const info = error ? errorInfo(error) : null;
  return (
    <Field
      id={id}
      label={label}
      hint={hint}
      type="password"
      autoComplete="current-password"
      required
      value={value}
      onChange={(e) => onChange(e.target.value)}
      error={isWrongPassword(error) ? `${label} is not correct.` : fieldMessage(label, info?.fields[field])}
    />
  );
}
