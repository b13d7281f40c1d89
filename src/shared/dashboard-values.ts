/**
 * A Dashboard 2.0 option's value as its typed input gives it (`str`, `num`, `bool`, `json`), the
 * way Dashboard's node evaluates it at start (RED.util.evaluateNodeProperty): the same on the
 * server, which checks and sends it, and in the browser, which shows which option is chosen.
 */
export function typedOptionValue(value: unknown, valueType: unknown): unknown {
  if (typeof value !== "string") return value;
  switch (valueType) {
    case "num":
      return Number(value);
    case "bool":
      return value === "true";
    case "json":
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    default:
      return value;
  }
}

/** Dashboard 2.0's findOptionByValue: an object by its JSON, anything else as it is. */
export function sameOptionValue(a: unknown, b: unknown): boolean {
  return typeof a === "object" || typeof b === "object" ? JSON.stringify(a) === JSON.stringify(b) : a === b;
}
