import type { CSSProperties } from "react";

import { iconClass } from "@/shared/mdi-icons";

export { iconClass };

export function Icon({ name, style }: { name: string; style?: CSSProperties }) {
  const cls = iconClass(name);
  return cls ? <span className={`db-icon ${cls}`} aria-hidden="true" style={style} /> : null;
}
