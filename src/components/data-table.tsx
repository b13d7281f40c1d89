import type { ReactNode } from "react";

/** A column heading: its text, or the text with a class (e.g. "num"); `hidden` keeps it for screen readers only. */
export type Column = string | { label: string; className?: string; hidden?: boolean };

/** The last column of a table whose rows end in buttons: named for screen readers, blank on screen. */
export const ACTIONS_COLUMN: Column = { label: "Actions", hidden: true, className: "row-actions" };

/**
 * A table of records that scrolls sideways on narrow screens, with column headings scoped to their
 * columns. The rows are the caller's (they often hold their own mutations). With the class
 * `stack-on-phone` and a `data-label` on each cell (its column's name), a phone shows each row as
 * a block of labelled values instead (globals.css).
 */
export function DataTable({ columns, className, children }: { columns: readonly Column[]; className?: string; children: ReactNode }) {
  return (
    <div className="table-scroll">
      <table className={className}>
        <thead>
          <tr>
            {columns.map((column) => {
              const { label, className: cellClass, hidden } = typeof column === "string" ? { label: column } : column;
              return (
                <th key={label} scope="col" className={cellClass}>
                  {hidden ? <span className="visually-hidden">{label}</span> : label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** An error that belongs to one row (a failed revoke or save), announced when it appears. */
export function RowError({ id, children }: { id?: string; children: ReactNode }) {
  return (
    <p id={id} role="alert" className="error">
      {children}
    </p>
  );
}
