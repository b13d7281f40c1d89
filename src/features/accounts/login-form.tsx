"use client";

import Link from "next/link";
import { useState, type ComponentProps, type FormEvent } from "react";
import { Alert } from "@/components/alert";
import { FormFooter, SubmitButton } from "@/components/buttons";
import { Field } from "@/components/field";
import { EmailField } from "./auth-fields";
import { signInWithPassword } from "./sign-in";

type Method = "totp" | "backup";
type Step = { kind: "password" } | { kind: "second-factor"; method: Method };

/** The second step's field for each kind of code. */
const SECOND_FACTOR_FIELDS = {
  totp: {
    id: "mfa_code",
    label: "Authentication code",
    hint: "The 6-digit code from your authenticator app.",
    inputMode: "numeric",
    autoComplete: "one-time-code",
    pattern: "[0-9 ]*",
    maxLength: 7,
  },
  backup: {
    id: "backup_code",
    label: "Backup code",
    hint: "One of the codes you saved when you set up two-factor authentication, like ABCD-1234. Each works once.",
    autoComplete: "off",
    autoCapitalize: "characters",
    spellCheck: false,
    maxLength: 9,
  },
} as const satisfies Record<Method, ComponentProps<typeof Field>>;

/**
 * Email and password, then (when the account has MFA on) a second step on the same page that
 * repeats the credentials with a TOTP or backup code.
 */
export function LoginForm({ next }: { next: string }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [step, setStep] = useState<Step>({ kind: "password" });
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(null);
    const secondFactor =
      step.kind === "second-factor" ? (step.method === "totp" ? { mfaCode: code.trim() } : { backupCode: code.trim() }) : {};
    const result = await signInWithPassword({ email, password, ...secondFactor });
    if (result.ok) {
      // A full navigation, so no data cached for an earlier user survives in the page.
      window.location.assign(next);
      return;
    }
    setPending(false);
    if (result.code === "MFA_REQUIRED") {
      setStep({ kind: "second-factor", method: "totp" });
      setCode("");
      return;
    }
    setError(result.message);
  }

  function switchMethod(method: Method) {
    setStep({ kind: "second-factor", method });
    setCode("");
    setError(null);
  }

  function startOver() {
    setStep({ kind: "password" });
    setCode("");
    setPassword("");
    setError(null);
  }

  if (step.kind === "second-factor") {
    const totp = step.method === "totp";
    return (
      <form method="post" onSubmit={onSubmit} className="card" aria-labelledby="mfa-heading">
        <h2 id="mfa-heading">Two-factor authentication</h2>
        {error ? <Alert kind="error">{error}</Alert> : null}
        <Field key={step.method} {...SECOND_FACTOR_FIELDS[step.method]} required autoFocus value={code} onChange={(e) => setCode(e.target.value)} />
        <FormFooter>
          <SubmitButton pending={pending} pendingLabel="Verifying…">
            Verify
          </SubmitButton>
          <button type="button" className="secondary" onClick={() => switchMethod(totp ? "backup" : "totp")}>
            {totp ? "Use a backup code instead" : "Use your authenticator app instead"}
          </button>
        </FormFooter>
        <p className="hint form-footer">
          Signing in as <strong>{email}</strong>.{" "}
          <button type="button" className="link" onClick={startOver}>
            Use another account
          </button>
        </p>
      </form>
    );
  }

  return (
    <form method="post" onSubmit={onSubmit} className="card">
      {error ? <Alert kind="error">{error}</Alert> : null}
      <EmailField value={email} onChange={(e) => setEmail(e.target.value)} />
      <Field
        id="password"
        label="Password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <FormFooter className="spread">
        <SubmitButton pending={pending} pendingLabel="Logging in…">
          Log in
        </SubmitButton>
        <Link href="/forgot-password">Forgot your password?</Link>
      </FormFooter>
      <p className="form-footer">
        New here? <Link href="/register">Create an account</Link>
      </p>
    </form>
  );
}
