/** Where to continue after signing in, when nothing else was asked for. */
export const DEFAULT_AFTER_LOGIN = "/flows";

/** A same-origin path to continue to after signing in; anything else (other origins, "//host") falls back. */
export function safeCallbackPath(value: string | undefined | null, fallback = DEFAULT_AFTER_LOGIN): string {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return fallback;
  try {
    const base = "http://same-origin.invalid";
    const url = new URL(value, base);
    // Back to the login page would loop for someone signed in.
    if (url.origin !== base || url.pathname === "/login") return fallback;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return fallback;
  }
}
