import type { ReactNode } from "react";

/**
 * A message above a form. Errors interrupt (role="alert"); confirmations are announced politely
 * (role="status").
 */
export function Alert({ kind, children }: { kind: "error" | "ok" | "info"; children: ReactNode }) {
  return (
    <div role={kind === "error" ? "alert" : "status"} className={`alert ${kind}`}>
      {children}
    </div>
  );
}
