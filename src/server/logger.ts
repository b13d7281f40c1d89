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

export function createLogger(options: { level: string; name?: string }, destination?: DestinationStream): Logger {
  return pino(
    {
    name: options.name ?? "flowplane",
    level: options.level,
    redact: { paths: REDACT, censor: "[redacted]" },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    },
    // Asynchronous writes to stdout: a request's log line no longer blocks the event loop on the
    // write(2) (pino flushes what is buffered when the process exits).
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
