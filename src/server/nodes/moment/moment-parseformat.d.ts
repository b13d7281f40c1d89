declare module "moment-parseformat" {
  /** The moment.js format a date/time text is written in (moment-parseformat 3). */
  export default function parseFormat(text: string, options?: { preferredOrder?: Record<string, string> }): string;
}
