"use client";

import { SecretPanel, SecretValue } from "@/components/secret-panel";

/** A key just created: its secret, shown this once. */
export function NewSecret({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  return (
    <SecretPanel
      className="new-secret"
      title={<>Key “{name}” created</>}
      notice={
        <>
          <strong>Copy this secret now.</strong> It is shown only once: we keep only a hash of it. If you lose it, revoke
          the key and create a new one.
        </>
      }
      copyText={secret}
      copyWhat="the secret"
      doneLabel="I have stored the secret"
      onDone={onDone}
    >
      <SecretValue label="Secret" value={secret} />
    </SecretPanel>
  );
}
