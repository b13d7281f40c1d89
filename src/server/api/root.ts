import { router, createCallerFactory } from "./trpc";
import { systemRouter } from "./routers/system.router";
import { authRouter } from "./routers/auth.router";

export const appRouter = router({
  system: systemRouter,
  auth: authRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
