// Values frozen all the way down by deepFreeze. Per module copy (Next bundles its own): a value
// frozen through another copy is simply not known here, and is then treated as not frozen.
const deepFrozen = new WeakSet<object>();

/** Freezes a value and everything it holds, so code that shares it cannot change what another reads. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (deepFrozen.has(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  deepFrozen.add(value);
  return value;
}

/** Whether deepFreeze froze this value (and so everything in it), not merely Object.freeze. */
export function isDeepFrozen(value: unknown): value is object {
  return value !== null && typeof value === "object" && deepFrozen.has(value);
}
