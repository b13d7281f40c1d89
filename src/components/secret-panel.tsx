"use client";

import { useId, type ReactNode } from "react";
import { Alert } from "./alert";
import { FormFooter } from "./buttons";
import { useClipboard } from "./use-clipboard";

/** A secret on its own line, selectable at one click, named by its label. */
export function SecretValue({ label, value }: { label: string; value: string }) {
  const labelId = useId();
  return (
    <dl className="secret">
      <dt id={labelId}>{label}</dt>
      <dd aria-labelledby={labelId}>
        <code>{value}</code>
      </dd>
    </dl>
  );
}

/**
 * Something shown once and never again (a new API key, backup codes): a warning to store it now,
 * the secret itself, a Copy button with its outcome announced, and a button that says it was stored.
 */
export function SecretPanel({
  title,
  notice,
  copyText,
  copyLabel = "Copy",
  copyWhat,
  doneLabel,
  onDone,
  extraActions,
  className,
  children,
}: {
  title: ReactNode;
  /** Why it must be stored now, inside an info alert. */
  notice: ReactNode;
  /** What Copy puts on the clipboard. */
  copyText: string;
  copyLabel?: string;
  /** Names the secret in "select … and copy it by hand", e.g. "the secret". */
  copyWhat: string;
  doneLabel: string;
  onDone: () => void;
  /** More buttons between Copy and done, e.g. Download. */
  extraActions?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  const headingId = useId();
  const clipboard = useClipboard();
  return (
    <div className={className ? `secret-panel ${className}` : "secret-panel"} role="group" aria-labelledby={headingId}>
      <h3 id={headingId}>{title}</h3>
      <Alert kind="info">{notice}</Alert>
      {children}
      <FormFooter status={clipboard.message(copyWhat)}>
        <button type="button" className="secondary" onClick={() => clipboard.copy(copyText)}>
          {copyLabel}
        </button>
        {extraActions}
        <button type="button" onClick={onDone}>
          {doneLabel}
        </button>
      </FormFooter>
    </div>
  );
}
