import type { ButtonHTMLAttributes, MouseEvent, ReactNode } from "react";

type PendingButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, "children"> & {
  /** The request it started is under way: the button is disabled and says so. */
  pending: boolean;
  /** What it says meanwhile, e.g. "Saving…". */
  pendingLabel: string;
  children: ReactNode;
};

/** A button that starts a request, disabled and relabelled while the request runs. */
export function PendingButton({ pending, pendingLabel, disabled, type = "button", children, ...button }: PendingButtonProps) {
  return (
    <button type={type} disabled={pending || disabled} {...button}>
      {pending ? pendingLabel : children}
    </button>
  );
}

/** The submit button of a form, see PendingButton. */
export function SubmitButton(props: Omit<PendingButtonProps, "type">) {
  return <PendingButton type="submit" {...props} />;
}

/**
 * The row of buttons under a form or panel. `status`, when given, is a polite live region beside
 * them ("Saved.", "Copied."); leave it out where the form announces through an Alert instead.
 */
export function FormFooter({ status, className, children }: { status?: ReactNode; className?: string; children: ReactNode }) {
  return (
    <div className={className ? `actions ${className}` : "actions"}>
      {children}
      {status !== undefined ? (
        <span role="status" className="saved">
          {status}
        </span>
      ) : null}
    </div>
  );
}

type UnavailableButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, "disabled" | "type"> & {
  /** Nothing to do now (Undo with nothing to undo, ↑ on the first item): a press does nothing. */
  unavailable: boolean;
};

/**
 * A command button that can be unavailable and keeps the keyboard focus when it becomes so: it is
 * `aria-disabled`, not `disabled`, since a disabled button drops the focus onto the page (pressing
 * ↑ until the item is first, or Undo until nothing is left, would lose the user's place; the
 * WAI-ARIA toolbar pattern keeps unavailable items focusable). Screen readers say "dimmed".
 */
export function UnavailableButton({ unavailable, onClick, ...button }: UnavailableButtonProps) {
  return <button type="button" aria-disabled={unavailable || undefined} onClick={unavailable ? (e: MouseEvent) => e.preventDefault() : onClick} {...button} />;
}
