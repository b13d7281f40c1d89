"use client";

import Link from "next/link";
import { useState, type FormEvent, type ReactNode } from "react";
import { useMutation } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { FormFooter, SubmitButton } from "@/components/buttons";
import { Checkbox, Field } from "@/components/field";
import { errorInfo, useTRPC } from "@/trpc/react";
import { commonErrorMessage, fieldMessage } from "./messages";
import { signInWithPassword } from "./sign-in";
import { EmailField, NewPasswordField } from "./auth-fields";

const AFTER_REGISTER = "/account/security?welcome=1";

/** `termsUrl`: the operator's terms of service (`TERMS_URL`), linked beside the box that accepts them. */
export function RegisterForm({ termsUrl }: { termsUrl?: string | null }) {
  const trpc = useTRPC();
  const register = useMutation(trpc.auth.register.mutationOptions());
  const [signInFailed, setSignInFailed] = useState(false);
  const [termsMissing, setTermsMissing] = useState(false);
  const [form, setForm] = useState({
    email: "",
    password: "",
    first_name: "",
    last_name: "",
    organization_name: "",
    organization_slug: "",
    accept_terms: false,
    subscribe_newsletter: false,
  });
  // A field's error stays until the field is edited, not until the next submit.
  const [edited, setEdited] = useState<ReadonlySet<string>>(new Set());
  const set = (name: keyof typeof form) => (e: { target: { value: string; checked: boolean; type: string } }) => {
    setForm((f) => ({ ...f, [name]: e.target.type === "checkbox" ? e.target.checked : e.target.value }));
    setEdited((s) => new Set(s).add(name));
  };

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSignInFailed(false);
    setEdited(new Set());
    // The server refuses it too; saying so here saves a round trip.
    setTermsMissing(!form.accept_terms);
    if (!form.accept_terms) {
      register.reset();
      return;
    }
    try {
      await register.mutateAsync({
        email: form.email,
        password: form.password,
        first_name: form.first_name || undefined,
        last_name: form.last_name || undefined,
        organization_name: form.organization_name,
        organization_slug: form.organization_slug.trim() || undefined,
        accept_terms: form.accept_terms,
        subscribe_newsletter: form.subscribe_newsletter,
      });
    } catch {
      return; // shown from register.error
    }
    const signedIn = await signInWithPassword({ email: form.email, password: form.password });
    if (signedIn.ok) window.location.assign(AFTER_REGISTER);
    else setSignInFailed(true);
  }

  const info = register.error ? errorInfo(register.error) : null;
  const fields = Object.fromEntries(Object.entries(info?.fields ?? {}).filter(([path]) => !edited.has(path)));
  const slugError = info?.code === "SLUG_TAKEN" && !edited.has("organization_slug") ? "This URL name is taken. Choose another." : fieldMessage("Organization URL name", fields.organization_slug);
  const termsError =
    !edited.has("accept_terms") && (termsMissing || info?.code === "TERMS_NOT_ACCEPTED" || fields.accept_terms) ? "You must accept the terms of service." : undefined;
  let alert: ReactNode = null;
  if (info?.code === "EMAIL_TAKEN") {
    alert = (
      <>
        An account with this email exists already. <Link href="/login">Log in instead?</Link>
      </>
    );
  } else if (register.error && info?.code !== "SLUG_TAKEN" && info?.code !== "TERMS_NOT_ACCEPTED") {
    alert = commonErrorMessage(register.error);
  }

  if (register.isSuccess && signInFailed) {
    return (
      <div className="card">
        <Alert kind="ok">
          Your account is ready. We sent a verification link to {form.email}. <Link href="/login">Log in</Link> to continue.
        </Alert>
      </div>
    );
  }

  const pending = register.isPending || register.isSuccess;
  return (
    <form method="post" onSubmit={onSubmit} className="card">
      {alert ? <Alert kind="error">{alert}</Alert> : null}
      <fieldset>
        <legend>You</legend>
        <EmailField value={form.email} onChange={set("email")} error={fieldMessage("Email", fields.email)} />
        <NewPasswordField id="password" label="Password" value={form.password} onChange={set("password")} error={fieldMessage("Password", fields.password)} />
        <div className="field-row">
          <Field id="first_name" label="First name" autoComplete="given-name" value={form.first_name} onChange={set("first_name")} error={fieldMessage("First name", fields.first_name)} />
          <Field id="last_name" label="Last name" autoComplete="family-name" value={form.last_name} onChange={set("last_name")} error={fieldMessage("Last name", fields.last_name)} />
        </div>
      </fieldset>
      <fieldset>
        <legend>Your organization</legend>
        <Field
          id="organization_name"
          label="Organization name"
          autoComplete="organization"
          required
          value={form.organization_name}
          onChange={set("organization_name")}
          error={fieldMessage("Organization name", fields.organization_name)}
        />
        <Field
          id="organization_slug"
          label="Organization URL name"
          hint="Optional. 3–48 lowercase letters, digits or dashes; derived from the name when empty."
          autoCapitalize="none"
          spellCheck={false}
          value={form.organization_slug}
          onChange={set("organization_slug")}
          error={slugError}
        />
      </fieldset>
      <Checkbox
        id="accept_terms"
        label="I accept the terms of service"
        hint={
          termsUrl ? (
            <a href={termsUrl} target="_blank" rel="noopener noreferrer">
              Read the terms of service
            </a>
          ) : undefined
        }
        checked={form.accept_terms}
        onChange={set("accept_terms")}
        error={termsError}
      />
      <Checkbox id="subscribe_newsletter" label="Send me the product newsletter" checked={form.subscribe_newsletter} onChange={set("subscribe_newsletter")} />
      <FormFooter>
        <SubmitButton pending={pending} pendingLabel="Creating your account…">
          Create account
        </SubmitButton>
      </FormFooter>
      <p className="form-footer">
        Have an account already? <Link href="/login">Log in</Link>
      </p>
    </form>
  );
}
