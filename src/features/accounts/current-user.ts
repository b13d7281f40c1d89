import "server-only";
import { redirect } from "next/navigation";
import { serverCaller } from "@/trpc/server";

export type CurrentProfile = Awaited<ReturnType<Awaited<ReturnType<typeof serverCaller>>["caller"]["auth"]["profile"]>>;

/** A 401 from a procedure: no session, or one that was revoked or expired. */
function isUnauthorized(err: unknown): boolean {
  const e = err as { name?: unknown; code?: unknown } | null;
  return e?.name === "TRPCError" && e.code === "UNAUTHORIZED";
}

/**
 * The signed-in user's profile, or null when the request has no live session. A cookie alone is
 * not enough: the session it names may have been revoked from another device.
 */
export async function currentProfile(): Promise<CurrentProfile | null> {
  const { caller, signedIn } = await serverCaller();
  if (!signedIn) return null;
  try {
    return await caller.auth.profile();
  } catch (err) {
    if (isUnauthorized(err)) return null;
    throw err;
  }
}

/** For signed-in pages: the profile, or a redirect to the login page that comes back to `path`. */
export async function requireProfile(path: string): Promise<CurrentProfile> {
  const profile = await currentProfile();
  if (!profile) redirect(`/login?callbackUrl=${encodeURIComponent(path).replace(/%2F/g, "/")}`);
  return profile;
}
