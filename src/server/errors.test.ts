import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TRPCError } from "@trpc/server";
import { DriverAdapterError } from "@prisma/driver-adapter-utils";
import { Prisma } from "../generated/prisma/client";
import { AppError, errorBody, errorTable, socketCloseCode, toAppError, UNAVAILABLE_RETRY_AFTER_SEC } from "./errors";
import { StoreUnavailableError } from "./store/types";
import { WS_CLOSE } from "../shared/realtime";

describe("toAppError", () => {
  it("keeps AppErrors and their status from the one table", () => {
    for (const code of Object.keys(errorTable) as (keyof typeof errorTable)[]) {
      const err = new AppError(code, "m");
      expect(toAppError(err)).toBe(err);
      expect(err.status).toBe(errorTable[code].status);
    }
  });

  it("turns zod failures into VALIDATION_FAILED with a detail per issue", () => {
    const result = z.object({ password: z.string().min(8), age: z.number() }).safeParse({ password: "x", age: "y" });
    const err = toAppError(result.error);
    expect(err.code).toBe("VALIDATION_FAILED");
    expect(err.details?.map((d) => d.path)).toEqual(["password", "age"]);
    expect(err.message).toMatch(/^password: /);
  });

  it("unwraps tRPC errors to their cause", () => {
    const cause = new AppError("NOT_FOUND", "flow not found");
    expect(toAppError(new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause }))).toBe(cause);
  });

  it("maps an unreachable store or database to UNAVAILABLE", () => {
    expect(toAppError(new StoreUnavailableError()).code).toBe("UNAVAILABLE");
    expect(toAppError(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })).code).toBe("UNAVAILABLE");
  });

  it("hides unknown errors behind INTERNAL without their message or stack", () => {
    const err = toAppError(new Error("secret internals at /srv/app.ts:12"));
    expect(err.code).toBe("INTERNAL");
    const body = JSON.stringify(errorBody(err));
    expect(body).not.toMatch(/secret internals|app\.ts/);
  });
});

/*
 * Database errors as Prisma 7.10 (driver adapter @prisma/adapter-pg) and pg really produce them,
 * captured once against a throwaway PostgreSQL 15 by logging each error's own properties and its
 * cause chain: a smart shutdown with a session open (new connections: 57P03), a fast shutdown
 * (idle pooled connections: 57P01, then ECONNREFUSED), pg_terminate_backend on a running query
 * (57P01), a role at its CONNECTION LIMIT (53300), a TCP black hole (pg's connect timeout, a
 * transaction that cannot start), a connection cut mid-query, and a server frozen with SIGSTOP
 * (the pool's query_timeout). Prisma keeps its own code in
 * `.code` (P1001, P2010, P2037, P2039…) and the driver's error, with the SQLSTATE, in
 * `meta.driverAdapterError.cause`.
 */
const CLIENT_VERSION = "7.10.1";

function prismaKnown(message: string, code: string, meta: Record<string, unknown> = {}) {
  return new Prisma.PrismaClientKnownRequestError(message, { code, clientVersion: CLIENT_VERSION, meta });
}

/** What @prisma/adapter-pg makes of a PostgreSQL error it has no kind for. */
function postgresCause(code: string, message: string) {
  return new DriverAdapterError({ kind: "postgres", originalCode: code, originalMessage: message, code, severity: "FATAL", message } as never);
}

/** pg's own DatabaseError (Database.sql and the ping go straight to the pool). */
function pgDatabaseError(code: string, message: string) {
  return Object.assign(new Error(message), { name: "error", length: 106, severity: "FATAL", code, file: "postmaster.c", line: "2430", routine: "ProcessStartupPacket" });
}

const outageShapes: Array<[string, () => unknown]> = [
  [
    "P2039 57P03: a new connection while the server shuts down (smart shutdown)",
    () => prismaKnown("Database error. Code: `57P03`. Message: `the database system is shutting down`", "P2039", { modelName: "User", driverAdapterError: postgresCause("57P03", "the database system is shutting down") }),
  ],
  [
    "P2039 57P01: the pool's idle connection after a fast shutdown",
    () => prismaKnown("Database error. Code: `57P01`. Message: `terminating connection due to administrator command`", "P2039", { modelName: "User", driverAdapterError: postgresCause("57P01", "terminating connection due to administrator command") }),
  ],
  [
    "P2010 57P01: a raw query or transaction in flight during a fast shutdown",
    () => prismaKnown("Raw query failed. Code: `57P01`. Message: `terminating connection due to administrator command`", "P2010", { driverAdapterError: postgresCause("57P01", "terminating connection due to administrator command") }),
  ],
  [
    "P1001: the server is gone (ECONNREFUSED)",
    () =>
      prismaKnown("Can't reach database server at `127.0.0.1:55439`", "P1001", {
        modelName: "User",
        driverAdapterError: new DriverAdapterError({ kind: "DatabaseNotReachable", host: "127.0.0.1", port: 55439 }),
      }),
  ],
  [
    "P2037 53300: too many connections",
    () =>
      prismaKnown('Too many database connections opened: too many connections for role "lim"', "P2037", {
        modelName: "User",
        driverAdapterError: new DriverAdapterError({ kind: "TooManyConnections", cause: 'too many connections for role "lim"', originalCode: "53300", originalMessage: 'too many connections for role "lim"' } as never),
      }),
  ],
  ["P2028: a transaction that could not start in time (pool starved)", () => prismaKnown("Transaction API error: Unable to start a transaction in the given time.", "P2028")],
  ["pg 57P03 on Database.sql", () => pgDatabaseError("57P03", "the database system is shutting down")],
  ["pg 53300 on Database.sql", () => pgDatabaseError("53300", 'too many connections for role "lim"')],
  ["pg 08006 connection failure", () => pgDatabaseError("08006", "connection failure")],
  [
    "ECONNREFUSED from the pool (Database.sql, the ping)",
    () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:55439"), { errno: -111, code: "ECONNREFUSED", syscall: "connect", address: "127.0.0.1", port: 55439 }),
  ],
  [
    "pg's connect timeout through Prisma (a plain Error with clientVersion)",
    () => Object.assign(new Error("Connection terminated due to connection timeout", { cause: new Error("Connection terminated unexpectedly") }), { clientVersion: CLIENT_VERSION }),
  ],
  ["a connection cut mid-query through Prisma", () => Object.assign(new Error("Connection terminated unexpectedly"), { clientVersion: CLIENT_VERSION })],
  ["a frozen server: the pool's query_timeout on Database.sql", () => new Error("Query read timeout")],
  ["the pool ended under a request (the instance shutting down)", () => Object.assign(new Error("Cannot use a pool after calling end on the pool"), { clientVersion: CLIENT_VERSION })],
  ["a frozen server: the pool's query_timeout through Prisma", () => Object.assign(new Error("Query read timeout"), { clientVersion: CLIENT_VERSION })],
  ["Prisma could not connect at all", () => new Prisma.PrismaClientInitializationError("Can't reach database server", CLIENT_VERSION, "P1001")],
  ["our own ping deadline", () => Object.assign(new Error("database ping timed out after 2000 ms"), { name: "DatabaseUnavailableError" })],
  ["the store, unreachable", () => new StoreUnavailableError("redis store unavailable (reconnecting)")],
  ["the store's error wrapped by a caller", () => new Error("could not renew", { cause: new StoreUnavailableError() })],
];

describe("outages are 503 UNAVAILABLE with Retry-After (SPEC §17)", () => {
  it.each(outageShapes)("%s", (_label, make) => {
    const err = toAppError(make());
    expect(err.code).toBe("UNAVAILABLE");
    expect(err.status).toBe(503);
    expect(err.headers).toEqual({ "Retry-After": String(UNAVAILABLE_RETRY_AFTER_SEC) });
    expect(JSON.stringify(errorBody(err))).not.toMatch(/57P0|P20|127\.0\.0\.1|terminating/);
  });

  it("also when tRPC wrapped the error", () => {
    const [, make] = outageShapes[0]!;
    expect(toAppError(new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: make() as Error })).code).toBe("UNAVAILABLE");
  });

  it("gives every UNAVAILABLE a Retry-After, and leaves other codes' headers alone", () => {
    expect(new AppError("UNAVAILABLE", "the instance running this flow did not answer").headers).toEqual({ "Retry-After": "2" });
    expect(new AppError("UNAVAILABLE", "m", { headers: { "Retry-After": "5" } }).headers).toEqual({ "Retry-After": "5" });
    expect(new AppError("NOT_FOUND", "m").headers).toBeUndefined();
    expect(new AppError("RATE_LIMITED", "m", { headers: { "Retry-After": "30" } }).headers).toEqual({ "Retry-After": "30" });
  });
});

describe("database errors that are not outages stay what they are", () => {
  it.each<[string, () => unknown]>([
    [
      "P2002 unique violation",
      () => prismaKnown("Unique constraint failed on the fields: (`email`)", "P2002", { modelName: "User", driverAdapterError: new DriverAdapterError({ kind: "UniqueConstraintViolation", constraint: { fields: ["email"] }, originalCode: "23505", originalMessage: "duplicate key" } as never) }),
    ],
    ["P2039 42P01 undefined table", () => prismaKnown("Database error. Code: `42P01`.", "P2039", { driverAdapterError: postgresCause("42P01", 'relation "x" does not exist') })],
    ["P2010 40001 serialization failure", () => prismaKnown("Raw query failed. Code: `40001`.", "P2010", { driverAdapterError: new DriverAdapterError({ kind: "TransactionWriteConflict" }) })],
    ["P2028 on a transaction already closed (our bug, not an outage)", () => prismaKnown("Transaction API error: Transaction already closed: A commit cannot be executed on an expired transaction.", "P2028")],
    ["P2025 record not found", () => prismaKnown("An operation failed because it depends on one or more records that were required but not found.", "P2025")],
    ["pg 23505", () => pgDatabaseError("23505", "duplicate key value violates unique constraint")],
    ["a validation error of Prisma's", () => new Prisma.PrismaClientValidationError("Argument `where` is missing.", { clientVersion: CLIENT_VERSION })],
    ["a message that only mentions a connection", () => new Error("flow failed: Connection terminated by the remote node")],
    ["an error whose code merely looks like a SQLSTATE", () => Object.assign(new Error("x"), { code: "57P03" })],
  ])("%s is INTERNAL", (_label, make) => {
    const err = toAppError(make());
    expect(err.code).toBe("INTERNAL");
    expect(err.headers).toBeUndefined();
  });
});

describe("socketCloseCode", () => {
  it("tells a WebSocket client whether to retry", () => {
    expect(socketCloseCode(new AppError("UNAVAILABLE", "m"))).toBe(WS_CLOSE.tryAgainLater);
    expect(socketCloseCode(new AppError("RATE_LIMITED", "m"))).toBe(WS_CLOSE.tryAgainLater);
    expect(socketCloseCode(new AppError("INTERNAL", "m"))).toBe(WS_CLOSE.internalError);
    expect(socketCloseCode(new AppError("INSUFFICIENT_SCOPE", "m"))).toBe(WS_CLOSE.forbidden);
    for (const code of ["UNAUTHENTICATED", "TOKEN_EXPIRED", "TOKEN_INVALID", "SESSION_REVOKED", "NOT_FOUND"] as const) {
      expect(socketCloseCode(new AppError(code, "m"))).toBe(WS_CLOSE.unauthenticated);
    }
  });
});
