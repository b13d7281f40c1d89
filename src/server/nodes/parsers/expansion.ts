/**
 * How many values a parsed document holds once shared references are counted every time they are
 * reached, as JSON serialization (a debug message, a response, an export) would write them. YAML
 * aliases let a few hundred bytes describe a billion values ("billion laughs"); the walk stops as
 * soon as the budget is spent, so counting costs at most `budget` steps.
 */
export function exceedsExpansion(value: unknown, budget: number): boolean {
  let left = budget;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (--left < 0) return true;
    if (v !== null && typeof v === "object") {
      for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) stack.push(child);
    }
  }
  return false;
}
