import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createMailer, readOutbox, type MailMessage } from "./mailer";

const message = (n: number): MailMessage => ({
  to: `user${n}@example.com`,
  subject: `Subject ${n}`,
  text: `Open https://app.example.com/verify?token=secret-${n}`,
  html: `<p><a href="https://app.example.com/verify?token=secret-${n}">Verify</a></p>`,
});

function recordingLogger() {
  const lines: Array<{ level: string; obj: object; msg: string }> = [];
  return {
    lines,
    info: (obj: object, msg: string) => lines.push({ level: "info", obj, msg }),
    error: (obj: object, msg: string) => lines.push({ level: "error", obj, msg }),
  };
}

describe("outbox mailer", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "flowplane-mail-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("appends one parseable JSON line per message, creating the directory", async () => {
    const dataDir = path.join(dir, "nested", "data");
    const logger = recordingLogger();
    const mailer = createMailer({ dataDir, from: "Flowplane <no-reply@flowplane.test>", logger });
    expect(mailer.kind).toBe("outbox");
    expect(await readOutbox(dataDir)).toEqual([]);

    await mailer.send(message(1));
    await Promise.all([2, 3, 4, 5].map((n) => mailer.send(message(n))));

    const raw = await readFile(path.join(dataDir, "outbox.jsonl"), "utf8");
    const lines = raw.trimEnd().split("\n");
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();

    const outbox = await readOutbox(dataDir);
    expect(outbox).toHaveLength(5);
    expect(outbox[0]).toMatchObject({ ...message(1), from: "Flowplane <no-reply@flowplane.test>" });
    expect(new Date(outbox[0]!.sent_at).toISOString()).toBe(outbox[0]!.sent_at);
    expect(outbox.map((m) => m.to).sort()).toEqual([1, 2, 3, 4, 5].map((n) => `user${n}@example.com`));

    // Logs name the recipient and subject, never the body with its token.
    expect(logger.lines).toHaveLength(5);
    for (const line of logger.lines) expect(JSON.stringify(line)).not.toContain("secret-");
    expect(logger.lines[0]!.obj).toEqual({ to: "user1@example.com", subject: "Subject 1" });
  });

  it("stores the bare address when given a display name", async () => {
    const mailer = createMailer({ dataDir: dir, from: "no-reply@flowplane.test" });
    await mailer.send({ ...message(1), to: "Ada Lovelace <ada@example.com>" });
    expect((await readOutbox(dir))[0]!.to).toBe("ada@example.com");
  });
});

interface FakeSmtp {
  port: number;
  messages: Array<{ from: string; to: string[]; data: string }>;
  close: () => Promise<void>;
}

/** Just enough of RFC 5321 for nodemailer: greeting, EHLO, MAIL, RCPT, DATA, QUIT. */
async function startFakeSmtp(): Promise<FakeSmtp> {
  const messages: FakeSmtp["messages"] = [];
  const server: Server = createServer((socket) => {
    socket.setEncoding("utf8");
    let buffer = "";
    let inData = false;
    let current = { from: "", to: [] as string[], data: "" };
    socket.write("220 fake.smtp ESMTP ready\r\n");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      for (;;) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end === -1) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          messages.push(current);
          current = { from: "", to: [], data: "" };
          socket.write("250 2.0.0 queued\r\n");
          continue;
        }
        const eol = buffer.indexOf("\r\n");
        if (eol === -1) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO") socket.write("250-fake.smtp\r\n250 8BITMIME\r\n");
        else if (verb === "HELO") socket.write("250 fake.smtp\r\n");
        else if (verb === "MAIL") {
          current.from = line;
          socket.write("250 2.1.0 ok\r\n");
        } else if (verb === "RCPT") {
          current.to.push(line);
          socket.write("250 2.1.5 ok\r\n");
        } else if (verb === "DATA") {
          inData = true;
          socket.write("354 end with <CRLF>.<CRLF>\r\n");
        } else if (verb === "RSET" || verb === "NOOP") socket.write("250 ok\r\n");
        else if (verb === "QUIT") {
          socket.end("221 bye\r\n");
          return;
        } else socket.write("502 not implemented\r\n");
      }
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    port: address.port,
    messages,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

describe("smtp mailer", () => {
  let smtp: FakeSmtp;
  beforeEach(async () => {
    smtp = await startFakeSmtp();
  });
  afterEach(async () => {
    await smtp.close();
  });

  it("delivers the message over SMTP and logs only recipient and subject", async () => {
    const logger = recordingLogger();
    const mailer = createMailer({
      dataDir: "/nonexistent-should-not-be-used",
      smtpUrl: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      from: "Flowplane <no-reply@flowplane.test>",
      logger,
    });
    expect(mailer.kind).toBe("smtp");
    await mailer.send({ ...message(7), subject: "Confirm your email address for Flowplane" });

    expect(smtp.messages).toHaveLength(1);
    const received = smtp.messages[0]!;
    expect(received.from).toContain("<no-reply@flowplane.test>");
    expect(received.to).toEqual(["RCPT TO:<user7@example.com>"]);
    expect(received.data).toMatch(/^Subject: Confirm your email address for Flowplane\r$/m);
    expect(received.data).toMatch(/^To: user7@example.com\r$/m);
    expect(received.data).toContain("multipart/alternative");
    expect(received.data).toContain("secret-7");

    expect(logger.lines).toEqual([{ level: "info", obj: { to: "user7@example.com", subject: "Confirm your email address for Flowplane" }, msg: "mail sent" }]);
  });

  it("rejects and logs an error when the server is unreachable", async () => {
    await smtp.close();
    const logger = recordingLogger();
    const mailer = createMailer({ dataDir: "/tmp", smtpUrl: `smtp://127.0.0.1:${smtp.port}?connectionTimeout=2000`, from: "no-reply@flowplane.test", logger });
    await expect(mailer.send(message(8))).rejects.toThrow();
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatchObject({ level: "error", msg: "mail send failed", obj: { to: "user8@example.com", subject: "Subject 8" } });
    expect(JSON.stringify(logger.lines)).not.toContain("secret-8");
    // afterEach closes again; give it a fresh server so that close resolves.
    smtp = await startFakeSmtp();
  });
});
