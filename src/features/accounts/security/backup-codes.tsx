"use client";

import { SecretPanel } from "@/components/secret-panel";

function download(codes: string[], email: string) {
  const text = `Flowplane backup codes for ${email}\nGenerated ${new Date().toISOString()}\n\nEach code works once.\n\n${codes.join("\n")}\n`;
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = "flowplane-backup-codes.txt";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Freshly issued backup codes: shown once, with ways to keep them. */
export function BackupCodes({ codes, email, onDone }: { codes: string[]; email: string; onDone: () => void }) {
  return (
    <SecretPanel
      className="backup-codes"
      title="Your backup codes"
      notice={
        <>
          <strong>Store these codes somewhere safe now.</strong> They are shown only once. Each code lets you log in
          once if you lose your authenticator app.
        </>
      }
      copyText={codes.join("\n")}
      copyLabel="Copy codes"
      copyWhat="the codes"
      extraActions={
        <button type="button" className="secondary" onClick={() => download(codes, email)}>
          Download codes
        </button>
      }
      doneLabel="I have stored my codes"
      onDone={onDone}
    >
      <ol className="codes" aria-label="Backup codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
    </SecretPanel>
  );
}
