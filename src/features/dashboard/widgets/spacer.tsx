"use client";

import type { WidgetProps } from "./widget";

/** ui-spacer: empty space of its width × height in the group (Dashboard 2.0's); nothing to read or use. */
export function SpacerWidget(_props: WidgetProps) {
  return <div className="db-spacer" aria-hidden="true" />;
}
