import { initTRPC, TRPCError } from "@trpc/server";
import type { AppServices } from "../app-services";
import { AppError, errorTable, toAppError } from "../errors";
import { resolvePrincipal, type Credentials, type Principal, type SessionPrincipal } from "../auth/principal";
import { assertPermission, type Permission } from "../permissions";
import { recordAudit } from "../services/audit/record-audit";
import type { RequestMeta } from "../services/request-meta";
import { findUnstorable } from "./refuse-nul";
import { authLimiters } from "../auth/limits";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Procedure metadata: the REST route it is exposed on and its OpenAPI documentation. */
export interface Meta {
  rest?: {
    method: HttpMethod;
    /** Path under /api/v1 with {param} placeholders, e.g. "/flows/{id}". */
    path: string;
    /** Success status; 204 sends no body. */
    status?: 200 | 201 | 202 | 204;
    /** Query parameters a POST/PUT/PATCH also reads into its input (`?dry_run=true`); the body wins on a clash. */
    query?: readonly string[];
    /** The success status when it depends on the answer (a dry run answers 200 where a write answers 201). */
    statusOf?: (output: unknown) => 200 | 201 | 202 | 204;
    /** Largest accepted body in bytes (default 1 MiB). */
    bodyLimit?: number;
    /**
     * The body is raw bytes of any Content-Type (SPEC §23's PUT /files/{path}), not JSON: read
     * within `limitOf(app)` bytes (else 413) and handed to the input as `content` (a Buffer).
     */
    rawBody?: { limitOf: (app: AppServices) => number };
    /**
     * The answer is the output's `content` bytes as `application/octet-stream` (GET /files/{path}),
     * not JSON; errors are JSON as everywhere.
     */
    rawResponse?: boolean;
  };
  /** Largest body of this procedure over /api/trpc when it has no REST route (the Files page's base64 upload). */
  trpcBodyLimit?: number;
  summary?: string;
  description?: string;
  tags?: string[];
  /** Whether the procedure needs a credential; documented in OpenAPI. */
  auth?: boolean;
  /** The entry of the permission table (src/shared/permissions.ts) the caller must hold. */
  permission?: Permission;
}

/** Headers a procedure sets on its response: a fetch Headers (tRPC) or the REST adapter's map. */
export interface ResponseHeaders {
  set(name: string, value: string): void;
  get(name: string): string | null;
  has(name: string): boolean;
}

export interface RequestInfo {
  requestId: string;
  ip: string;
  userAgent: string;
  /** Raw credentials as they arrived; resolved lazily by the auth middleware. */
  credentials: Credentials;
  /** Headers a procedure wants on the response (REST and tRPC both honour them). */
  responseHeaders: ResponseHeaders;
  /**
   * The caller, already authenticated and allowed this procedure (`authenticate`) before its input
   * was read: REST reads an upload's bytes only then. The auth middleware takes it as is.
   */
  authenticated?: Principal;
}

/** The pure inner context: everything a procedure may use. Tests build it without HTTP. */
export interface Context extends RequestInfo {
  services: AppServices;
}

/** What services record of who asked (audit entries, sessions): the caller's address and user agent. */
export function requestMeta(ctx: Pick<RequestInfo, "ip" | "userAgent">): RequestMeta {
  return { ip: ctx.ip, userAgent: ctx.userAgent };
}

export function createInnerContext(services: AppServices, request: Partial<RequestInfo> = {}): Context {
  return {
    services,
    requestId: request.requestId ?? "internal",
    ip: request.ip ?? "127.0.0.1",
    userAgent: request.userAgent ?? "",
    credentials: request.credentials ?? {},
    responseHeaders: request.responseHeaders ?? new Headers(),
    ...(request.authenticated ? { authenticated: request.authenticated } : {}),
  };
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const appError = toAppError(error);
      return {
        ...shape,
        message: appError.message,
        data: {
          ...shape.data,
          httpStatus: appError.status,
          appCode: appError.code,
          details: appError.details ?? null,
          retryAfterSec: appError.headers?.["Retry-After"] ? Number(appError.headers["Retry-After"]) : null,
          stack: undefined,
        },
      };
    },
  });

/**
 * Every error leaving a procedure becomes a TRPCError whose code follows errors.ts and whose cause
 * is the AppError, so both transports report the same status and code.
 */
function normalizeError(error: unknown, ctx: Context): never {
  const appError = toAppError(error);
  if (appError.code === "INTERNAL") {
    ctx.services.logger.error({ err: appError.cause ?? error, requestId: ctx.requestId }, "unhandled error");
  }
  if (appError.headers) {
    for (const [k, v] of Object.entries(appError.headers)) ctx.responseHeaders.set(k, v);
  }
  throw new TRPCError({ code: errorTable[appError.code].trpc, message: appError.message, cause: appError });
}

/**
 * The one place NUL and lone surrogates are refused: every procedure (tRPC and the REST adapter,
 * which calls the same procedures) checks its raw input before anything parses or stores it.
 */
function refuseNul(rawInput: unknown): void {
  const found = findUnstorable(rawInput);
  if (found !== null) {
    throw new AppError("VALIDATION_FAILED", `${found.path}: ${found.message}`, { details: [{ path: found.path, message: found.message }] });
  }
}

/**
 * Resolves the credential to a principal, checks the permission the procedure declares in its meta
 * (every authenticated procedure declares one; a test walks the router to make sure) and consumes
 * the per-credential rate limit. The resolved principal is the only source of the caller's
 * organization.
 */
/** The caller of an authenticated procedure, allowed its permission (401 / 403 / 429 otherwise; a refusal is audited). */
export async function authenticate(ctx: Context, meta: Meta | undefined): Promise<Principal> {
  // The per-credential limit is consumed in the same store round trip as the session read.
  const principal: Principal = await resolvePrincipal(ctx.services, ctx.credentials, { limit: authLimiters(ctx.services).apiPerCredential });
  if (!meta?.permission) throw new Error("authenticated procedure without a declared permission");
  try {
    assertPermission({ role: principal.role, kind: principal.kind, scopes: principal.kind === "api_key" ? principal.scopes : undefined }, meta.permission);
  } catch (err) {
    // Refused authorization is a security event: the audit log records who tried what.
    await recordAudit(ctx.services, {
      action: "access.denied",
      organizationId: principal.organizationId,
      actorId: principal.userId,
      targetType: "permission",
      targetId: meta.permission,
      ipAddress: ctx.ip,
      metadata: { credential: principal.kind, ...(principal.kind === "api_key" ? { key_id: principal.keyId } : {}) },
    });
    throw err;
  }
  return principal;
}

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const middleware = t.middleware;

// Each procedure runs ONE middleware of ours (errors, NUL, and for authenticated ones the
// principal): tRPC copies its options and context at every middleware level, which was ~10 % of a
// request's time with three (docs/BENCHMARKS.md, benchmark 2).
export const publicProcedure = t.procedure.use(async ({ ctx, getRawInput, next }) => {
  try {
    refuseNul(await getRawInput());
  } catch (err) {
    normalizeError(err, ctx);
  }
  const result = await next();
  if (!result.ok) normalizeError(result.error, ctx);
  return result;
});

/** Needs a credential and the permission the procedure declares in its meta. */
export const authedProcedure = t.procedure.meta({ auth: true }).use(async ({ ctx, meta, getRawInput, next }) => {
  let principal: Principal;
  try {
    refuseNul(await getRawInput());
    principal = ctx.authenticated ?? (await authenticate(ctx, meta));
  } catch (err) {
    normalizeError(err, ctx);
  }
  const result = await next({ ctx: { principal } });
  if (!result.ok) normalizeError(result.error, ctx);
  return result;
});

/** For a signed-in user's own account: sessions only (API keys are refused by the permission's null scope). */
export const sessionProcedure = authedProcedure.use(async ({ ctx, next }) => {
  if (ctx.principal.kind !== "session") throw new AppError("INSUFFICIENT_SCOPE", "API keys cannot do this; sign in as a user");
  return next({ ctx: { ...ctx, principal: ctx.principal as SessionPrincipal } });
});

export type AuthedContext = Context & { principal: Principal };
