import bcrypt from "bcrypt";

/**
 * bcrypt through the native addon's async API: the hashing runs on libuv's thread pool, so a burst
 * of logins never blocks the event loop that serves everyone else.
 */
export async function hashPassword(password: string, cost: number): Promise<string> {
  return bcrypt.hash(password, cost);
}

export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}

const dummyHashes = new Map<number, Promise<string>>();

/**
 * Compares against a hash of the same cost when the account does not exist, so an unknown email
 * costs the same time as a wrong password and the response time reveals nothing.
 */
export async function burnPasswordCheck(password: string, cost: number): Promise<false> {
  let dummy = dummyHashes.get(cost);
  if (!dummy) {
    dummy = bcrypt.hash("not-a-real-password-for-timing-only", cost);
    dummyHashes.set(cost, dummy);
  }
  await bcrypt.compare(password, await dummy);
  return false;
}
