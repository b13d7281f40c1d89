import type { ReactNode } from "react";
import { RowError } from "@/components/data-table";
import { commonErrorMessage } from "@/features/accounts/messages";

/** A row's first cell: what the row is, and under it why the row's last action (a revoke) failed. */
export function NameCell({ error, children }: { error: unknown; children: ReactNode }) {
  return (
    <td>
      {children}
      {error ? <RowError>{commonErrorMessage(error)}</RowError> : null}
    </td>
  );
}
