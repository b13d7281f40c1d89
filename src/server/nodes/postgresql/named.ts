/**
 * node-red-contrib-postgresql's node-postgres-named.js: `$name` in a query becomes `$1`, `$2` …
 * (the names sorted), with their values in that order; a name the parameters lack is an error.
 */
const TOKEN = /(?<=\$)[a-zA-Z]([a-zA-Z0-9_]*)\b/g;

export function namedToNumbered(sql: string, parameters: Record<string, unknown>): { text: string; values: unknown[] } {
  const fillable = new Set(Object.keys(parameters));
  const matched = new Set(sql.match(TOKEN));
  const unmatched = [...matched].filter((token) => !fillable.has(token));
  if (unmatched.length > 0) throw new Error(`Missing Parameters: ${unmatched.join(", ")}`);
  const tokens = [...matched].filter((token) => fillable.has(token)).sort();
  const values = tokens.map((token) => parameters[token]);
  const text = tokens.reduce((partial, token, index) => partial.replace(new RegExp(`\\$${token}\\b`, "g"), `$${index + 1}`), sql);
  return { text, values };
}
