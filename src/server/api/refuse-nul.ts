/**
 * Where in a raw input a string (or an object key) contains U+0000, as a details path ("name",
 * "nodes.0.config.code"), or null. PostgreSQL text cannot hold NUL, and no field of ours means it.
 */
export function findNul(value: unknown, path: string[] = [], depth = 0): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? path.join(".") || "(input)" : null;
  if (value === null || typeof value !== "object" || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], [...path, String(i)], depth + 1);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, child] of Object.entries(value)) {
    if (key.includes("\u0000")) return [...path, key.replaceAll("\u0000", "\\u0000")].join(".");
    const found = findNul(child, [...path, key], depth + 1);
    if (found !== null) return found;
  }
  return null;
}
