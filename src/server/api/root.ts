import { router, createCallerFactory } from "./trpc";
import { systemRouter } from "./routers/system.router";

export const appRouter = router({
  system: systemRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
