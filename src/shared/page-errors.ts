/**
 * The digest a server component's error carries when a data store was unreachable (SPEC §17):
 * Next keeps a digest the thrower set, and hands it to the error boundary (src/app/error.tsx),
 * which then says "try again in a moment" instead of "something went wrong". Set by the server
 * components' tRPC caller (src/trpc/server.ts).
 */
export const UNAVAILABLE_DIGEST = "FLOWPLANE_UNAVAILABLE";
