import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TRPCError } from "@trpc/server";
import { AppError, errorBody, errorTable, toAppError } from "./errors";
import { StoreUnavailableError } from "./store/types";

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
