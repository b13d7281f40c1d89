/** How the signed-in user wants dates shown (from their profile). */
export interface DisplayPrefs {
  locale: string;
  timeZone: string;
}

function formatter(prefs: DisplayPrefs, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(prefs.locale, { ...options, timeZone: prefs.timeZone });
  } catch {
    return new Intl.DateTimeFormat("en", { ...options, timeZone: "UTC" });
  }
}

/** "12 Mar 2025, 14:05" in the user's locale and time zone; the same on the server and in the browser. */
export function formatDateTime(prefs: DisplayPrefs, iso: string): string {
  return formatter(prefs, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
}

export function formatDate(prefs: DisplayPrefs, iso: string): string {
  return formatter(prefs, { dateStyle: "medium" }).format(new Date(iso));
}
