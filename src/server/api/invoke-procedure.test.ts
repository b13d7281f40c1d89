import { initTRPC, TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { invokeProcedure } from "./invoke-procedure";

/**
 * invokeProcedure must behave as tRPC's own server-side caller: the same middlewares in the same
 * order, the same context and input threading, the same results and errors.
 */
const t = initTRPC.context<{ who: string }>().create();
const seen: string[] = [];
const withUser = t.procedure.use(async ({ ctx, next, path, type }) => {
  seen.push(`${type} ${path}`);
  if (ctx.who === "nobody") throw new TRPCError({ code: "UNAUTHORIZED", message: "who are you" });
  return next({ ctx: { user: ctx.who.toUpperCase() } });
});
const router = t.router({
  greet: withUser
    .input(z.object({ name: z.string().min(1) }))
    .output(z.object({ text: z.string() }))
    .query(({ ctx, input }) => ({ text: `${ctx.user} greets ${input.name}`, extra: "stripped" })),
  broken: withUser.output(z.object({ n: z.number() })).mutation(() => ({ n: "not a number" }) as unknown as { n: number }),
  fails: withUser.mutation(() => {
    throw new Error("boom");
  }),
});
const caller = t.createCallerFactory(router);

async function both(path: "greet" | "broken" | "fails", ctx: { who: string }, input?: unknown) {
  const settle = (p: Promise<unknown>) =>
    p.then(
      (value) => ({ value }),
      (err: unknown) => ({ error: err instanceof TRPCError ? { name: err.name, code: err.code, message: err.message, cause: String(err.cause) } : String(err) }),
    );
  const viaCaller = await settle((caller(ctx)[path] as (i: unknown) => Promise<unknown>)(input));
  const viaInvoke = await settle(invokeProcedure(router._def.procedures[path], path, ctx, input));
  return { viaCaller, viaInvoke };
}

describe("invokeProcedure", () => {
  it("answers as tRPC's caller does: context from the middleware, parsed input, stripped output", async () => {
    const { viaCaller, viaInvoke } = await both("greet", { who: "ada" }, { name: "Grace" });
    expect(viaInvoke).toEqual(viaCaller);
    expect(viaInvoke).toEqual({ value: { text: "ADA greets Grace" } });
  });

  it("refuses bad input, a middleware's error, a bad output and a thrown error the same way", async () => {
    for (const [path, ctx, input] of [
      ["greet", { who: "ada" }, { name: "" }],
      ["greet", { who: "nobody" }, { name: "Grace" }],
      ["broken", { who: "ada" }, undefined],
      ["fails", { who: "ada" }, undefined],
    ] as const) {
      const { viaCaller, viaInvoke } = await both(path, ctx, input);
      expect(viaInvoke).toEqual(viaCaller);
      expect("error" in viaInvoke).toBe(true);
    }
  });

  it("tells the middleware the procedure's path and type", async () => {
    seen.length = 0;
    await invokeProcedure(router._def.procedures.fails, "fails", { who: "ada" }, undefined).catch(() => undefined);
    expect(seen).toEqual(["mutation fails"]);
  });
});
