/** Next's page searchParams, resolved. */
export type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** The first value of a query parameter, or null. */
export function firstParam(params: Record<string, string | string[] | undefined>, name: string): string | null {
  const value = params[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}
