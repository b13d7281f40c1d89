import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger };

// Anything that could carry a credential is removed before a line is written.
const REDACT = [
  "password", "old_password", "new_password", "token", "access_token", "refresh_token", "mfa_code",
  "backup_code", "code", "secret", "api_key",
  "*.password", "*.old_password", "*.new_password", "*.token", "*.access_token", "*.refresh_token",
  "*.mfa_code", "*.backup_code", "*.secret", "*.api_key",
  "req.headers.authorization", "req.headers.cookie", "req.headers[\"x-api-key\"]",
  "headers.authorization", "headers.cookie", "headers[\"x-api-key\"]",
];

/**
 * Lines are written 4 KiB at a time, and at least every 200 ms: one write(2) per line cost ~5 % of
 * a request's time under load (docs/BENCHMARKS.md, benchmark 2). pino flushes what is buffered when
 * the process exits.
 */
function bufferedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => {
    try {
      stream.flush();
    } catch {
      // Not ready yet, or closed: the next tick (or the exit handler) writes it.
    }
  }, 200).unref();
  return stream;
}

/**
 * pino's ISO timestamp, formatted once per millisecond: under load many lines share one, and
 * formatting a Date for each was ~4 % of a request's time.
 */
function isoTimeOncePerMs(): () => string {
  let lastMs = -1;
  let field = "";
  return () => {
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      field = `,"time":"${new Date(now).toISOString()}"`;
    }
    return field;
  };
}

const ACCESS = Symbol.for("flowplane.accessLogger");

/**
 * The logger for the one line per request: its fields (id, method, path, status, time) never
 * carry a credential, so it skips the redaction pass, a third of a line's cost.
 */
export function accessLogger(logger: Logger): Logger {
  const holder = logger as Logger & { [ACCESS]?: Logger };
  return (holder[ACCESS] ??= logger.child({}, { redact: { paths: [], censor: "[redacted]" } }));
}

export function createLogger(options: { level: string; name?: string }, destination?: DestinationStream): Logger {
  return pino(
    {
    name: options.name ?? "flowplane",
    level: options.level,
    redact: { paths: REDACT, censor: "[redacted]" },
    base: { pid: process.pid },
    timestamp: isoTimeOncePerMs(),
    },
    // Asynchronous, buffered writes to stdout: a request's log line never blocks the event loop.
    destination ?? bufferedStdout(),
  );
}
