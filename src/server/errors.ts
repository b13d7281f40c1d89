import { isStoreUnavailable } from "./store/types";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";

/**
 * Domain code throws AppError with a transport-neutral code. This file holds the ONE table that
 * turns a code into an HTTP status and a tRPC code; nothing else maps errors.
 */
export const errorTable = {
  INVALID_JSON: { status: 400, trpc: "PARSE_ERROR" },
  VALIDATION_FAILED: { status: 400, trpc: "BAD_REQUEST" },
  TERMS_NOT_ACCEPTED: { status: 400, trpc: "BAD_REQUEST" },
  NOT_AN_INJECT_NODE: { status: 400, trpc: "BAD_REQUEST" },
  UNAUTHENTICATED: { status: 401, trpc: "UNAUTHORIZED" },
  INVALID_CREDENTIALS: { status: 401, trpc: "UNAUTHORIZED" },
  TOKEN_EXPIRED: { status: 401, trpc: "UNAUTHORIZED" },
  TOKEN_INVALID: { status: 401, trpc: "UNAUTHORIZED" },
  TOKEN_REUSED: { status: 401, trpc: "UNAUTHORIZED" },
  MFA_INVALID: { status: 401, trpc: "UNAUTHORIZED" },
  SESSION_REVOKED: { status: 401, trpc: "UNAUTHORIZED" },
  FORBIDDEN: { status: 403, trpc: "FORBIDDEN" },
  NOT_A_MEMBER: { status: 403, trpc: "FORBIDDEN" },
  INSUFFICIENT_SCOPE: { status: 403, trpc: "FORBIDDEN" },
  REGISTRATION_DISABLED: { status: 403, trpc: "FORBIDDEN" },
  NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  METHOD_NOT_ALLOWED: { status: 405, trpc: "METHOD_NOT_SUPPORTED" },
  EMAIL_TAKEN: { status: 409, trpc: "CONFLICT" },
  SLUG_TAKEN: { status: 409, trpc: "CONFLICT" },
  REVISION_CONFLICT: { status: 409, trpc: "CONFLICT" },
  FLOW_NOT_RUNNING: { status: 409, trpc: "CONFLICT" },
  LAST_OWNER: { status: 409, trpc: "CONFLICT" },
  MFA_ALREADY_ENABLED: { status: 409, trpc: "CONFLICT" },
  MFA_NOT_ENABLED: { status: 409, trpc: "CONFLICT" },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: "PAYLOAD_TOO_LARGE" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, trpc: "UNSUPPORTED_MEDIA_TYPE" },
  RATE_LIMITED: { status: 429, trpc: "TOO_MANY_REQUESTS" },
  INTERNAL: { status: 500, trpc: "INTERNAL_SERVER_ERROR" },
  UNAVAILABLE: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  /** A webhook's flow did not answer in time (runtime/webhooks.ts). */
  GATEWAY_TIMEOUT: { status: 504, trpc: "GATEWAY_TIMEOUT" },
} as const satisfies Record<string, { status: number; trpc: TRPC_ERROR_CODE_KEY }>;

export type ErrorCode = keyof typeof errorTable;

export interface ErrorDetail {
  path: string;
  message: string;
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

// A brand instead of instanceof: Next bundles its own copy of this module for route handlers while
// the custom server loads another, and an error may cross from one to the other.
const BRAND = Symbol.for("flowplane.AppError");

export class AppError extends Error {
  override name = "AppError";
  readonly [BRAND] = true;
  readonly code: ErrorCode;
  readonly details?: ErrorDetail[];
  /** Extra response headers, e.g. Retry-After for RATE_LIMITED. */
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options?: { details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown },
  ) {
    super(message, { cause: options?.cause });
    this.code = code;
    this.details = options?.details;
    this.headers = options?.headers;
  }

  get status(): number {
    return errorTable[this.code].status;
  }

  static is(value: unknown): value is AppError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

export const notFound = (what = "resource") => new AppError("NOT_FOUND", `${what} not found`);

export function rateLimited(retryAfterSec: number): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterSec));
  return new AppError("RATE_LIMITED", `too many requests, retry in ${seconds} s`, {
    headers: { "Retry-After": String(seconds) },
  });
}

/**
 * Backpressure: the flow holds more waiting messages than its high-water mark, so a door that
 * starts messages (inject, a webhook) refuses this one rather than queue it without bound.
 */
export function flowBusy(retryAfterSec: number, waiting: number): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterSec));
  return new AppError("RATE_LIMITED", `the flow is busy (${waiting} messages waiting); nothing was sent, retry in ${seconds} s`, {
    headers: { "Retry-After": String(seconds) },
  });
}

interface ZodLikeIssue {
  path: PropertyKey[];
  message: string;
}

function isZodLike(value: unknown): value is { issues: ZodLikeIssue[] } {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as { issues?: unknown }).issues) &&
    (value as { name?: unknown }).name === "ZodError"
  );
}


// Connection-level failures of the database drivers (pg, PGlite, Prisma's adapters): fail closed.
const DB_UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "57P01", "57P03", "08006", "08001", "08003", "P1001", "P1002", "P1017"]);

function isDatabaseUnavailable(value: unknown, depth = 0): boolean {
  if (typeof value !== "object" || value === null || depth > 5) return false;
  const v = value as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; kind?: unknown };
  if (typeof v.code === "string" && DB_UNAVAILABLE_CODES.has(v.code)) return true;
  if (v.name === "DatabaseUnavailableError") return true;
  if (v.name === "DriverAdapterError" && v.cause && typeof v.cause === "object") {
    const kind = (v.cause as { kind?: unknown }).kind;
    if (kind === "DatabaseNotReachable" || kind === "SocketTimeout" || kind === "ConnectionClosed" || kind === "TooManyConnections") return true;
  }
  if (typeof v.message === "string" && /Connection terminated|connect ECONNREFUSED|Can't reach database|timeout exceeded when trying to connect|Connection closed|PGlite is closed/i.test(v.message)) {
    return true;
  }
  return isDatabaseUnavailable(v.cause, depth + 1);
}

function zodPath(path: PropertyKey[]): string {
  return path.map((p) => (typeof p === "number" ? `[${p}]` : String(p))).join(".").replace(/\.\[/g, "[");
}

export function validationError(issues: ZodLikeIssue[]): AppError {
  const details = issues.map((i) => ({ path: zodPath(i.path), message: i.message }));
  const first = details[0];
  const message = first ? (first.path ? `${first.path}: ${first.message}` : first.message) : "invalid input";
  return new AppError("VALIDATION_FAILED", message, { details });
}

/**
 * Turns anything thrown below the API layer into an AppError. Unknown errors become INTERNAL with
 * a generic message (the original goes to the log, never to the client).
 */
export function toAppError(err: unknown): AppError {
  if (AppError.is(err)) return err;
  if (isZodLike(err)) return validationError(err.issues);
  if (typeof err === "object" && err !== null) {
    const cause = (err as { cause?: unknown }).cause;
    // tRPC wraps thrown errors and input-parser failures in TRPCError with the original as cause.
    if ((err as { name?: unknown }).name === "TRPCError") {
      if (cause !== undefined) return toAppError(cause);
      const code = (err as { code?: string }).code;
      const found = (Object.keys(errorTable) as ErrorCode[]).find((k) => errorTable[k].trpc === code);
      return new AppError(found ?? "INTERNAL", found ? (err as Error).message : "internal error");
    }
  }
  if (isStoreUnavailable(err)) return new AppError("UNAVAILABLE", "session store unavailable, try again shortly", { cause: err });
  if (isDatabaseUnavailable(err)) return new AppError("UNAVAILABLE", "database unavailable, try again shortly", { cause: err });
  return new AppError("INTERNAL", "internal error", { cause: err });
}

export function errorBody(err: AppError): ErrorBody {
  return {
    error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) },
  };
}
