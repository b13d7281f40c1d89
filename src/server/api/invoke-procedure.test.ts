import { initTRPC, TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { invokeProcedure } from "./invoke-procedure";
import { frozenOutput } from "./frozen-output";
import { deepFreeze } from "../../shared/deep-freeze";

/**
 * invokeProcedure must behave as tRPC's own server-side caller: the same middlewares in the same
 * order, the same context and input threading, the same results and errors.
 */
const t = initTRPC.context<{ who: string }>().create();
const frozenValue = deepFreeze({ list: ["a", "b"], extra: "stripped" });
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
  // Two inputs merged; one with an async refinement (no synchronous parse): parsed as tRPC does.
  merged: withUser
    .input(z.object({ a: z.string() }))
    .input(z.object({ b: z.number() }).refine(async (v) => v.b > 0, "b must be positive"))
    .query(({ input }) => input),
  // A frozenOutput parser: checked once per frozen value, then the kept form.
  frozen: withUser.output(frozenOutput(z.object({ list: z.array(z.string()) }))).query(() => frozenValue),
  frozenAsync: withUser.output(frozenOutput(z.object({ n: z.number() }).refine(async (v) => v.n > 0, "n must be positive"))).query(() => deepFreeze({ n: 1 })),
  frozenBad: withUser.output(frozenOutput(z.object({ list: z.array(z.string()) }))).query(() => deepFreeze({ list: [1] }) as unknown as { list: string[] }),
});
const caller = t.createCallerFactory(router);

async function both(path: keyof typeof router._def.procedures, ctx: { who: string }, input?: unknown) {
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

  it("merges several inputs, parses an async refinement, and checks frozen outputs as tRPC's caller does", async () => {
    for (const [path, input] of [
      ["merged", { a: "x", b: 2 }],
      ["merged", { a: "x", b: -1 }],
      ["merged", { a: 1, b: 2 }],
      ["frozen", undefined],
      ["frozen", undefined],
      ["frozenBad", undefined],
      ["frozenAsync", undefined],
      ["frozenAsync", undefined],
    ] as const) {
      const { viaCaller, viaInvoke } = await both(path, { who: "ada" }, input);
      expect(viaInvoke, path).toEqual(viaCaller);
    }
    expect((await both("merged", { who: "ada" }, { a: "x", b: 2 })).viaInvoke).toEqual({ value: { a: "x", b: 2 } });
    expect((await both("frozen", { who: "ada" }, undefined)).viaInvoke).toEqual({ value: { list: ["a", "b"] } });
  });

  it("tells the middleware the procedure's path and type", async () => {
    seen.length = 0;
    await invokeProcedure(router._def.procedures.fails, "fails", { who: "ada" }, undefined).catch(() => undefined);
    expect(seen).toEqual(["mutation fails"]);
  });
});
