import { appendFile, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { lazyRequire } from "../lazy-require";

/** nodemailer, loaded only with SMTP_URL (the default outbox file never needs it). */
const nodemailer = lazyRequire<typeof import("nodemailer")>("nodemailer");

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  readonly kind: "outbox" | "smtp";
}

export interface MailLogger {
  info: (obj: object, msg: string) => void;
  error: (obj: object, msg: string) => void;
}

export interface OutboxEntry extends MailMessage {
  from: string;
  sent_at: string;
}

const OUTBOX_FILE = "outbox.jsonl";

/** "Ada <ada@example.com>" -> "ada@example.com"; a bare address is returned trimmed. */
function bareAddress(to: string): string {
  const match = /<([^<>]+)>\s*$/.exec(to);
  return (match?.[1] ?? to).trim();
}

/**
 * Mail goes to SMTP when `smtpUrl` is set (nodemailer URL; query parameters such as
 * `?ignoreTLS=true` become transport options), otherwise to `${dataDir}/outbox.jsonl`, one JSON
 * line per message. Logs carry only the recipient and the subject: bodies hold tokens.
 */
export function createMailer(options: { dataDir: string; smtpUrl?: string; from: string; logger?: MailLogger }): Mailer {
  const { logger, from } = options;
  if (options.smtpUrl) {
    const transport = nodemailer().createTransport(options.smtpUrl);
    return {
      kind: "smtp",
      async send(message) {
        const meta = { to: bareAddress(message.to), subject: message.subject };
        try {
          await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text, html: message.html });
        } catch (err) {
          logger?.error({ ...meta, err: err instanceof Error ? err.message : String(err) }, "mail send failed");
          throw err;
        }
        logger?.info(meta, "mail sent");
      },
    };
  }

  const file = path.join(options.dataDir, OUTBOX_FILE);
  let ready: Promise<unknown> | null = null;
  return {
    kind: "outbox",
    async send(message) {
      ready ??= mkdir(options.dataDir, { recursive: true }).catch((err: unknown) => {
        ready = null;
        throw err;
      });
      await ready;
      const entry: OutboxEntry = {
        to: bareAddress(message.to),
        from,
        subject: message.subject,
        text: message.text,
        html: message.html,
        sent_at: new Date().toISOString(),
      };
      // One appendFile call per message: a single O_APPEND write, so concurrent lines do not interleave.
      await appendFile(file, `${JSON.stringify(entry)}\n`, "utf8");
      logger?.info({ to: entry.to, subject: entry.subject }, "mail written to outbox");
    },
  };
}

/** Every message in `${dataDir}/outbox.jsonl`, oldest first; [] when there is none. */
export async function readOutbox(dataDir: string): Promise<Array<MailMessage & { sent_at: string }>> {
  let content: string;
  try {
    content = await readFile(path.join(dataDir, OUTBOX_FILE), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return content
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as OutboxEntry);
}
