"use client";

import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { PendingButton } from "./buttons";
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
        // React passes a dialog's cancel up its component tree: Escape in a dialog opened from
        // another (a configuration node's, from a node's) must close that one only.
        e.stopPropagation();
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

/**
 * "Are you sure?" with a named confirming button, in place of window.confirm: the cancel button has
 * focus first, Escape cancels, and closing gives focus back to what opened it (the browser's
 * <dialog> does that).
 */
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

/**
 * A button for a destructive action that asks first: it opens a ConfirmDialog and runs onConfirm
 * only when the confirming button is pressed.
 */
export function ConfirmButton({
  title,
  message,
  confirmLabel,
  onConfirm,
  pending,
  pendingLabel,
  disabled,
  className,
  "aria-label": ariaLabel,
  children,
}: {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  pending: boolean;
  pendingLabel: string;
  disabled?: boolean;
  className?: string;
  "aria-label"?: string;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <PendingButton
        className={className}
        aria-label={ariaLabel}
        aria-haspopup="dialog"
        pending={pending}
        pendingLabel={pendingLabel}
        disabled={disabled}
        onClick={() => setOpen(true)}
      >
        {children}
      </PendingButton>
      <ConfirmDialog
        title={title}
        open={open}
        confirmLabel={confirmLabel}
        danger
        onClose={() => setOpen(false)}
        onConfirm={() => {
          setOpen(false);
          onConfirm();
        }}
      >
        {message}
      </ConfirmDialog>
    </>
  );
}
