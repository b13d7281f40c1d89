"use client";

import { useState, type FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { FormFooter, PendingButton, SubmitButton } from "@/components/buttons";
import { Field, SelectField } from "@/components/field";
import { errorInfo, useTRPC } from "@/trpc/react";
import { commonErrorMessage, fieldMessage } from "../messages";
import type { Profile } from "../types";

function EmailStatus({ profile }: { profile: Profile }) {
  const trpc = useTRPC();
  const resend = useMutation(trpc.auth.resendVerification.mutationOptions());
  const { email, email_verified: verified } = profile.user;
  return (
    <div className="email-status">
      <p>
        <span className="muted">Email</span> <strong>{email}</strong>{" "}
        <span className={`badge ${verified ? "ok" : "warn"}`}>{verified ? "Verified" : "Not verified"}</span>
      </p>
      {verified ? null : (
        <>
          <p className="hint">Open the link we emailed you to confirm this address. Links work for 48 hours.</p>
          {resend.isSuccess ? (
            <Alert kind="ok">A new verification link is on its way to {email}.</Alert>
          ) : (
            <>
              {resend.error ? <Alert kind="error">{commonErrorMessage(resend.error)}</Alert> : null}
              <PendingButton className="secondary" pending={resend.isPending} pendingLabel="Sending…" onClick={() => resend.mutate()}>
                Resend verification email
              </PendingButton>
            </>
          )}
        </>
      )}
    </div>
  );
}

export function ProfileSection({ profile, timeZones }: { profile: Profile; timeZones: readonly string[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const update = useMutation(
    trpc.auth.updateProfile.mutationOptions({
      onSuccess: (data) => queryClient.setQueryData(trpc.auth.profile.queryKey(), (old) => (old ? { ...old, user: data.user } : old)),
    }),
  );
  const { user } = profile;
  const [form, setForm] = useState({
    first_name: user.first_name,
    last_name: user.last_name,
    locale: user.locale,
    timezone: user.timezone,
    avatar_url: user.avatar_url ?? "",
  });
  const set = (name: keyof typeof form) => (e: { target: { value: string } }) => {
    update.reset();
    setForm((f) => ({ ...f, [name]: e.target.value }));
  };

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    update.mutate({
      first_name: form.first_name,
      last_name: form.last_name,
      locale: form.locale.trim(),
      timezone: form.timezone,
      avatar_url: form.avatar_url.trim() || null,
    });
  }

  const zones = timeZones.includes(form.timezone) ? timeZones : [form.timezone, ...timeZones];
  const fields = update.error ? errorInfo(update.error).fields : {};
  const alert = update.error ? commonErrorMessage(update.error) : null;
  return (
    <section className="card" aria-labelledby="profile-heading">
      <h2 id="profile-heading">Profile</h2>
      <EmailStatus profile={profile} />
      <form method="post" onSubmit={onSubmit}>
        {alert ? <Alert kind="error">{alert}</Alert> : null}
        <div className="field-row">
          <Field id="profile-first-name" label="First name" autoComplete="given-name" value={form.first_name} onChange={set("first_name")} error={fieldMessage("First name", fields.first_name)} />
          <Field id="profile-last-name" label="Last name" autoComplete="family-name" value={form.last_name} onChange={set("last_name")} error={fieldMessage("Last name", fields.last_name)} />
        </div>
        <div className="field-row">
          <Field
            id="profile-locale"
            label="Locale"
            hint="A language tag such as en, en-GB or pt-BR."
            autoCapitalize="none"
            spellCheck={false}
            value={form.locale}
            onChange={set("locale")}
            error={fieldMessage("Locale", fields.locale)}
          />
          <SelectField id="profile-timezone" label="Time zone" options={zones} value={form.timezone} onChange={set("timezone")} error={fieldMessage("Time zone", fields.timezone)} />
        </div>
        <Field
          id="profile-avatar-url"
          label="Avatar URL"
          type="url"
          hint="An https link to a square image. Leave empty for none."
          placeholder="https://"
          value={form.avatar_url}
          onChange={set("avatar_url")}
          error={fieldMessage("Avatar URL", fields.avatar_url)}
        />
        <FormFooter status={update.isSuccess ? "Saved." : ""}>
          <SubmitButton pending={update.isPending} pendingLabel="Saving…">
            Save profile
          </SubmitButton>
        </FormFooter>
      </form>
    </section>
  );
}
