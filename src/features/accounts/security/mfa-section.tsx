"use client";

import { useState, type ComponentProps, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { FormFooter, SubmitButton } from "@/components/buttons";
import { Field } from "@/components/field";
import { SecretValue } from "@/components/secret-panel";
import { errorInfo, useTRPC } from "@/trpc/react";
import { commonErrorMessage, fieldMessage } from "../messages";
import type { Profile } from "../types";
import { BackupCodes } from "./backup-codes";
import { CurrentPasswordField, isWrongPassword } from "./current-password-field";
import { useInvalidateAccount } from "./use-account-queries";

/** MFA_INVALID reads the same everywhere; other failures use the shared wording. None without an error. */
function codeError(error: unknown): { alert: string | null; field: string | undefined } {
  if (!error) return { alert: null, field: undefined };
  const info = errorInfo(error);
  if (info.code === "MFA_INVALID") return { alert: null, field: "That code is not valid. Try again." };
  return { alert: commonErrorMessage(error), field: fieldMessage("Code", info.fields.code) };
}

/** A code from the authenticator app (or, where accepted, a backup code). */
function CodeField({
  label = "Authentication code",
  maxLength = 12,
  onChange,
  ...field
}: Omit<ComponentProps<typeof Field>, "label" | "onChange"> & { label?: string; onChange: (code: string) => void }) {
  return <Field label={label} autoComplete="one-time-code" maxLength={maxLength} required onChange={(e) => onChange(e.target.value)} {...field} />;
}

function Enrol({ onEnabled }: { onEnabled: (codes: string[]) => void }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateAccount();
  const setup = useMutation(trpc.auth.mfaSetup.mutationOptions());
  const enable = useMutation(
    trpc.auth.mfaEnable.mutationOptions({
      onSuccess: (data) => {
        onEnabled(data.backup_codes);
        invalidate.profileAndSessions();
      },
    }),
  );
  const [code, setCode] = useState("");
  const [password, setPassword] = useState("");

  if (!setup.data) {
    const onStart = (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault();
      setup.mutate({ password });
    };
    return (
      <form method="post" onSubmit={onStart}>
        <p>
          Two-factor authentication is <strong>off</strong>. Turn it on to ask for a code from an authenticator app
          (such as 1Password, Google Authenticator or Aegis) each time you log in.
        </p>
        {setup.error && !isWrongPassword(setup.error) ? <Alert kind="error">{commonErrorMessage(setup.error)}</Alert> : null}
        <CurrentPasswordField
          id="mfa-setup-password"
          hint="Confirm it's you before adding an authenticator."
          value={password}
          onChange={setPassword}
          error={setup.error}
        />
        <FormFooter>
          <SubmitButton pending={setup.isPending} pendingLabel="Preparing…">
            Set up two-factor authentication
          </SubmitButton>
        </FormFooter>
      </form>
    );
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    enable.mutate({ code: code.trim() });
  }

  const errors = codeError(enable.error);
  return (
    <div className="mfa-setup">
      <ol className="steps">
        <li>
          <p>Scan this QR code with your authenticator app.</p>
          <img src={setup.data.qr_code} alt="QR code for your authenticator app" width={200} height={200} className="qr" />
        </li>
        <li>
          <p>If you cannot scan it, type this key into the app instead.</p>
          <SecretValue label="Secret key" value={setup.data.secret} />
        </li>
        <li>
          <form method="post" onSubmit={onSubmit}>
            {errors.alert ? <Alert kind="error">{errors.alert}</Alert> : null}
            <CodeField
              id="mfa-enable-code"
              hint="Enter the 6-digit code the app shows to confirm."
              inputMode="numeric"
              maxLength={7}
              value={code}
              onChange={setCode}
              error={errors.field}
            />
            <FormFooter>
              <SubmitButton pending={enable.isPending} pendingLabel="Confirming…">
                Confirm
              </SubmitButton>
              <button
                type="button"
                className="secondary"
                onClick={() => {
                  setup.reset();
                  setPassword("");
                  enable.reset();
                  setCode("");
                }}
              >
                Cancel
              </button>
            </FormFooter>
          </form>
        </li>
      </ol>
    </div>
  );
}

function RegenerateCodes({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const trpc = useTRPC();
  const regenerate = useMutation(trpc.auth.mfaBackupCodes.mutationOptions({ onSuccess: (data) => onCodes(data.backup_codes) }));
  const [code, setCode] = useState("");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    regenerate.mutate({ code: code.trim() });
  }

  const errors = codeError(regenerate.error);
  return (
    <form method="post" onSubmit={onSubmit} className="subsection" aria-labelledby="regenerate-heading">
      <h3 id="regenerate-heading">Backup codes</h3>
      <p className="hint">New codes replace the old ones, which stop working at once.</p>
      {errors.alert ? <Alert kind="error">{errors.alert}</Alert> : null}
      <CodeField id="mfa-regenerate-code" hint="From your authenticator app, or one of your backup codes." value={code} onChange={setCode} error={errors.field} />
      <FormFooter>
        <SubmitButton className="secondary" pending={regenerate.isPending} pendingLabel="Generating…">
          Generate new backup codes
        </SubmitButton>
      </FormFooter>
    </form>
  );
}

function Disable({ onDisabled }: { onDisabled: () => void }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateAccount();
  const disable = useMutation(
    trpc.auth.mfaDisable.mutationOptions({
      onSuccess: () => {
        onDisabled();
        invalidate.profileAndSessions();
      },
    }),
  );
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    disable.mutate({ password, code: code.trim() });
  }

  const errors = codeError(isWrongPassword(disable.error) ? null : disable.error);
  return (
    <form method="post" onSubmit={onSubmit} className="subsection" aria-labelledby="disable-mfa-heading">
      <h3 id="disable-mfa-heading">Turn off</h3>
      <p className="hint">Your account will be protected by your password alone. Your other sessions will be logged out.</p>
      {errors.alert ? <Alert kind="error">{errors.alert}</Alert> : null}
      <CurrentPasswordField id="mfa-disable-password" value={password} onChange={setPassword} error={disable.error} />
      <CodeField id="mfa-disable-code" label="Authentication or backup code" value={code} onChange={setCode} error={errors.field} />
      <FormFooter>
        <SubmitButton className="danger" pending={disable.isPending} pendingLabel="Turning off…">
          Disable two-factor authentication
        </SubmitButton>
      </FormFooter>
    </form>
  );
}

export function MfaSection({ profile }: { profile: Profile }) {
  // Codes are kept only in this component's state: they are shown once and never fetched again.
  const [issued, setIssued] = useState<{ codes: string[]; reason: "enabled" | "regenerated" } | null>(null);
  const [turnedOff, setTurnedOff] = useState(false);
  const enabled = profile.user.mfa_enabled;
  return (
    <section className="card" aria-labelledby="mfa-heading">
      <h2 id="mfa-heading">Two-factor authentication</h2>
      {issued ? (
        <>
          <Alert kind="ok">
            {issued.reason === "enabled"
              ? "Two-factor authentication is on. Your other sessions were logged out."
              : "New backup codes are ready. The old ones no longer work."}
          </Alert>
          <BackupCodes codes={issued.codes} email={profile.user.email} onDone={() => setIssued(null)} />
        </>
      ) : enabled ? (
        <>
          <p>
            Two-factor authentication is <strong>on</strong>: logging in asks for a code from your authenticator app.
          </p>
          <div className="subsections">
            <RegenerateCodes onCodes={(codes) => setIssued({ codes, reason: "regenerated" })} />
            <Disable onDisabled={() => setTurnedOff(true)} />
          </div>
        </>
      ) : (
        <>
          {turnedOff ? <Alert kind="ok">Two-factor authentication is off. Your other sessions were logged out.</Alert> : null}
          <Enrol
            onEnabled={(codes) => {
              setTurnedOff(false);
              setIssued({ codes, reason: "enabled" });
            }}
          />
        </>
      )}
    </section>
  );
}
