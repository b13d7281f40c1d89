import type { ChangeEvent, ReactNode } from "react";
import { Field } from "@/components/field";
import { PASSWORD_HINT } from "./password-hint";

interface TextFieldProps {
  value: string;
  onChange: (event: ChangeEvent<HTMLInputElement>) => void;
  error?: string;
}

/** The account's email, as the login, registration and forgotten-password forms ask for it. */
export function EmailField(props: TextFieldProps) {
  return <Field id="email" label="Email" type="email" autoComplete="email" required {...props} />;
}

/** A password being chosen (registration, reset, change): the policy is its hint unless told otherwise. */
export function NewPasswordField({ id, label, hint = PASSWORD_HINT, ...props }: TextFieldProps & { id: string; label: string; hint?: ReactNode }) {
  return <Field id={id} label={label} type="password" autoComplete="new-password" required hint={hint} {...props} />;
}
