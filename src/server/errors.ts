import { isStoreUnavailable } from "./store/types";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { WS_CLOSE } from "../shared/realtime";

/**
 * Domain code throws AppError with a transport-neutral code. This file holds the ONE table that
 * turns a code into an HTTP status and a tRPC code; nothing else maps errors.
 */

/**
 * Seconds a client is told to wait (Retry-After) before trying again after a 503 UNAVAILABLE: the
 * store reconnects within ~2 s of Redis coming back, and the database pool opens a new connection
 * on the next request (SPEC §17).
 */
export const UNAVAILABLE_RETRY_AFTER_SEC = 2;

export const errorTable = {
  INVALID_JSON: { status: 400, trpc: "PARSE_ERROR" },
  VALIDATION_FAILED: { status: 400, trpc: "BAD_REQUEST" },
  TERMS_NOT_ACCEPTED: { status: 400, trpc: "BAD_REQUEST" },
  NOT_AN_INJECT_NODE: { status: 400, trpc: "BAD_REQUEST" },
  /** POST /nodes/{id}/active of a node that does not switch on and off (only debug nodes do). */
  NOT_SWITCHABLE: { status: 400, trpc: "BAD_REQUEST" },
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
  EXECUTION_NOT_REPLAYABLE: { status: 409, trpc: "CONFLICT" },
  LAST_OWNER: { status: 409, trpc: "CONFLICT" },
  VARIABLE_EXISTS: { status: 409, trpc: "CONFLICT" },
  /** POST /subflows with an id the organization has already. */
  SUBFLOW_EXISTS: { status: 409, trpc: "CONFLICT" },
  /** DELETE /subflows/{id} of a definition that flows or other definitions use (named in the message and details). */
  SUBFLOW_IN_USE: { status: 409, trpc: "CONFLICT" },
  /** POST /config-nodes with an id the organization has already (or a second global-config). */
  CONFIG_NODE_EXISTS: { status: 409, trpc: "CONFLICT" },
  DASHBOARD_PATH_TAKEN: { status: 409, trpc: "CONFLICT" },
  /** DELETE /config-nodes/{id} of one that nodes name (flows, subflow definitions, other configuration nodes: named in the message and details). */
  CONFIG_NODE_IN_USE: { status: 409, trpc: "CONFLICT" },
  MFA_ALREADY_ENABLED: { status: 409, trpc: "CONFLICT" },
  MFA_NOT_ENABLED: { status: 409, trpc: "CONFLICT" },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: "PAYLOAD_TOO_LARGE" },
  /** A write that would take the organization's files past FILES_MAX_BYTES (SPEC §23): nothing was written. */
  FILES_QUOTA_EXCEEDED: { status: 507, trpc: "PAYLOAD_TOO_LARGE" },
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
    // Every 503 tells the client when to come back, whichever door it answers through.
    this.headers = code === "UNAVAILABLE" ? { "Retry-After": String(UNAVAILABLE_RETRY_AFTER_SEC), ...options?.headers } : options?.headers;
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


/*
 * Outages: what a database or store failure looks like when it reaches us, classified by what the
 * error IS (its class name and codes), never by instanceof (Next bundles its own copies of Prisma's
 * and our modules: docs/ARCHITECTURE.md, "One process, two module graphs"). The shapes below are
 * the ones Prisma 7 (driver adapters) and pg really produce against a stopped or refusing server;
 * errors.test.ts holds them as captured.
 */

/**
 * Prisma's own codes that mean "the database could not be used", not "this query was wrong":
 * P1001 can't reach the server, P1002 it timed out, P1008 operations timed out, P1017 the server
 * closed the connection, P2024 no pool connection in time, P2037 too many connections.
 */
const PRISMA_UNAVAILABLE_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2037"]);

/** What Prisma's driver adapters call a connection-level failure (DriverAdapterError's cause.kind). */
const ADAPTER_UNAVAILABLE_KINDS = new Set(["DatabaseNotReachable", "SocketTimeout", "ConnectionClosed", "TooManyConnections"]);

/** Node's socket errors on the way to the server (pg's pool, Database.sql, the ping). */
const SOCKET_UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/**
 * PostgreSQL SQLSTATEs of an outage: class 08 (connection exception), class 57 (operator
 * intervention: 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now, …) and
 * 53300 too_many_connections. Everything else (constraint violations, syntax, serialization) is a
 * bug or a conflict, never a 503.
 */
export function isUnavailableSqlState(code: unknown): boolean {
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && (code.startsWith("08") || code.startsWith("57") || code === "53300");
}

/**
 * Messages of driver errors that carry no code at all: pg's pool and client ("Connection
 * terminated unexpectedly", "… due to connection timeout", "timeout exceeded when trying to
 * connect", "Query read timeout" from the pool's query_timeout when the server stopped answering,
 * a client "not queryable" after a connection error), and the database closed under a request
 * while the instance shuts down (pg's pool once ended, PGlite once closed).
 */
const UNCODED_DRIVER_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout$|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Cannot use a pool after calling end on the pool|PGlite is closed)/;

type ErrorLike = { name?: unknown; code?: unknown; message?: unknown; cause?: unknown; meta?: unknown; kind?: unknown; originalCode?: unknown; severity?: unknown; errors?: unknown };

/** Whether `value`, or anything it wraps, says the database could not be reached or used. */
export function isDatabaseUnavailable(value: unknown, depth = 0): boolean {
  if (typeof value !== "object" || value === null || depth > 6) return false;
  const v = value as ErrorLike;
  const name = typeof v.name === "string" ? v.name : "";
  // Our own: Database.ping's deadline.
  if (name === "DatabaseUnavailableError") return true;
  if (name.startsWith("PrismaClient")) {
    // Prisma could not start (the first connection failed): nothing was asked of the database yet.
    if (name === "PrismaClientInitializationError") return true;
    if (name === "PrismaClientKnownRequestError") {
      if (typeof v.code === "string" && PRISMA_UNAVAILABLE_CODES.has(v.code)) return true;
      // P2028 is the transaction manager: only "could not start in time" is the pool starving.
      if (v.code === "P2028" && typeof v.message === "string" && v.message.includes("Unable to start a transaction")) return true;
    }
    // P2010 (raw query failed), P2039 (database error) and the rest name the driver's error in meta.
    const meta = v.meta as { driverAdapterError?: unknown } | undefined;
    if (meta && typeof meta === "object" && isDatabaseUnavailable(meta.driverAdapterError, depth + 1)) return true;
    return isDatabaseUnavailable(v.cause, depth + 1);
  }
  if (name === "DriverAdapterError") {
    const cause = v.cause as ErrorLike | undefined;
    if (cause && typeof cause === "object") {
      if (typeof cause.kind === "string" && ADAPTER_UNAVAILABLE_KINDS.has(cause.kind)) return true;
      if (isUnavailableSqlState(cause.originalCode) || (cause.kind === "postgres" && isUnavailableSqlState(cause.code))) return true;
    }
    return false;
  }
  // pg's DatabaseError: the server's SQLSTATE in .code, with a severity.
  if (typeof v.severity === "string" && isUnavailableSqlState(v.code)) return true;
  if (typeof v.code === "string" && SOCKET_UNAVAILABLE_CODES.has(v.code)) return true;
  if (typeof v.message === "string" && UNCODED_DRIVER_MESSAGES.test(v.message)) return true;
  // Node's happy-eyeballs connect gives an AggregateError of one error per address.
  if (Array.isArray(v.errors) && v.errors.length > 0 && v.errors.every((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable(v.cause, depth + 1);
}

/** Whether `value`, or anything it wraps, is the key-value store (Redis) being unreachable. */
function isStoreOutage(value: unknown, depth = 0): boolean {
  if (typeof value !== "object" || value === null || depth > 6) return false;
  if (isStoreUnavailable(value)) return true;
  return isStoreOutage((value as { cause?: unknown }).cause, depth + 1);
}

/** The one answer to an outage of either store (SPEC §17): 503 UNAVAILABLE with Retry-After. */
export function unavailable(what: "database" | "session store", cause?: unknown): AppError {
  return new AppError("UNAVAILABLE", `${what} unavailable, try again shortly`, { cause });
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
  if (isStoreOutage(err)) return unavailable("session store", err);
  if (isDatabaseUnavailable(err)) return unavailable("database", err);
  return new AppError("INTERNAL", "internal error", { cause: err });
}

/**
 * The close code of a WebSocket whose authentication failed (docs/WEBSOCKET.md): 4403 not allowed,
 * 1013 "try again later" when the credentials could not be checked now (a data store is down, a
 * rate limit), 1011 for our own failure, 4401 for everything the credentials themselves got wrong.
 * Only 4401/4403 tell a client to stop retrying.
 */
export function socketCloseCode(err: AppError): number {
  if (err.status === 403) return WS_CLOSE.forbidden;
  if (err.code === "UNAVAILABLE" || err.code === "RATE_LIMITED") return WS_CLOSE.tryAgainLater;
  if (err.status >= 500) return WS_CLOSE.internalError;
  return WS_CLOSE.unauthenticated;
}

export function errorBody(err: AppError): ErrorBody {
  return {
    error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) },
  };
}
