"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";
import "./dialog.css";

/**
 * A modal dialog on the native <dialog> element (focus trap, Escape and the top layer come from
 * the browser), named by its heading. Escape or the close button call onClose.
 */
export function Dialog({
  title,
  open,
  onClose,
  children,
  className,
  wide,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ReactNode;
  className?: string;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={headingId}
      className={`modal${wide ? " wide" : ""}${className ? ` ${className}` : ""}`}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {open ? (
        <>
          <h2 id={headingId}>{title}</h2>
          {children}
        </>
      ) : null}
    </dialog>
  );
}

/** "Are you sure?" with a named confirming button; the cancel button has focus first. */
export function ConfirmDialog({
  title,
  open,
  confirmLabel,
  danger,
  busy,
  onConfirm,
  onClose,
  children,
}: {
  title: string;
  open: boolean;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Dialog title={title} open={open} onClose={onClose}>
      {children}
      <div className="actions">
        <button type="button" className="secondary" onClick={onClose} autoFocus>
          Cancel
        </button>
        <button type="button" className={danger ? "danger" : undefined} onClick={onConfirm} disabled={busy}>
          {confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
