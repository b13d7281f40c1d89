import type { Database } from "../db";
import type { Logger } from "../logger";
import type { KeyValueStore } from "../store";
import type { GenerationCache } from "../store/generation-cache";
import type { AccessCache } from "./access-cache";
import type { JwtKeys } from "./jwt";
import type { AuthLimiters } from "./limits";

/**
 * What auth/ needs of the application, and nothing more. The composition root (compose.ts) builds
 * auth's parts and the services built on them; if auth named the whole AppServices it would import
 * its own builder's type and close a circle through every service that type lists. AppServices
 * satisfies this structurally, so callers pass the app as they always did. Each function takes
 * the `Pick` it uses.
 */
export interface AuthDeps {
  db: Pick<Database, "prisma">;
  store: KeyValueStore;
  /** Memberships, roles and API keys as requests read them (access-cache.ts). */
  access: AccessCache;
  /** Only the flows generation, read in the principal's store round trip (services/flows/flow-reads.ts keeps the rest). */
  flowReads: Pick<GenerationCache<unknown>, "current">;
  logger: Pick<Logger, "warn">;
  config: {
    /** The origin the browser session cookie belongs to. */
    publicUrl: string;
    secrets: { jwtSecret: string };
    keys: { jwt: JwtKeys };
  };
  limits: AuthLimiters;
}
