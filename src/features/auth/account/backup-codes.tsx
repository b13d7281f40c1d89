"use client";

import { useClipboard } from "@/components/use-clipboard";
import { Alert } from "@/components/alert";

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
  const clipboard = useClipboard();
  return (
    <div className="backup-codes" aria-labelledby="backup-codes-heading" role="group">
      <h3 id="backup-codes-heading">Your backup codes</h3>
      <Alert kind="info">
        <strong>Store these codes somewhere safe now.</strong> They are shown only once. Each code lets you log in
        once if you lose your authenticator app.
      </Alert>
      <ol className="codes" aria-label="Backup codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() => clipboard.copy(codes.join("\n"))}
        >
          Copy codes
        </button>
        <button type="button" className="secondary" onClick={() => download(codes, email)}>
          Download codes
        </button>
        <button type="button" onClick={onDone}>
          I have stored my codes
        </button>
        <span role="status" className="saved">
          {clipboard.message("the codes")}
        </span>
      </div>
    </div>
  );
}
