declare module "moment-parseformat" {
  /** The moment.js format a date/time text is written in (moment-parseformat 3; undefined for an empty text). */
  export default function parseFormat(text: string, options?: { preferredOrder?: Record<string, string> }): string | undefined;
}
