import fs from "node:fs";
import path from "node:path";
import { expect } from "@playwright/test";

export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  sent_at?: string;
}

/**
 * The server's DATA_DIR: playwright.config.ts creates it in the runner and exports it in the
 * environment the workers inherit.
 */
function outboxFile(): string {
  const dir = process.env.FP_E2E_RUN_DATA_DIR;
  if (!dir) throw new Error("FP_E2E_RUN_DATA_DIR is not set: run these tests through playwright.config.ts");
  return path.join(dir, "outbox.jsonl");
}

export function readOutbox(): OutboxMail[] {
  const file = outboxFile();
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as OutboxMail);
}

/** Waits until `count` mails to `to` match the subject, and returns the newest. */
export async function waitForMail(to: string, subject: RegExp, options: { count?: number } = {}): Promise<OutboxMail> {
  const count = options.count ?? 1;
  let found: OutboxMail | undefined;
  await expect
    .poll(
      () => {
        const matches = readOutbox().filter((m) => m.to === to && subject.test(m.subject));
        found = matches.length >= count ? matches[matches.length - 1] : undefined;
        return Boolean(found);
      },
      { message: `mail to ${to} with subject ${subject}`, timeout: 10_000 },
    )
    .toBe(true);
  return found!;
}

/** The path and query of the first link in a mail to `pathname` (e.g. "/verify-email"). */
export function linkIn(mail: OutboxMail, pathname: string): string {
  for (const match of mail.text.matchAll(/https?:\/\/[^\s<>"]+/g)) {
    const url = new URL(match[0]);
    if (url.pathname === pathname) return `${url.pathname}${url.search}`;
  }
  throw new Error(`no ${pathname} link in mail "${mail.subject}":\n${mail.text}`);
}
