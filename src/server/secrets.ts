import { randomToken } from "./ids";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

export interface Secrets {
  jwtSecret: string;
  encryptionKey: string;
}

const fileSchema = z.object({ jwt_secret: z.string().min(32), encryption_key: z.string().min(32) });

/**
 * The secrets from the environment, or, for the embedded single-instance default, secrets
 * generated once into $DATA_DIR/secrets.json (mode 0600) so tokens and encrypted MFA secrets survive
 * restarts. env.ts refuses to start without explicit secrets when DATABASE_URL is set.
 */
export function resolveSecrets(options: { dataDir: string; jwtSecret?: string; encryptionKey?: string }): Secrets {
  if (options.jwtSecret && options.encryptionKey) {
    return { jwtSecret: options.jwtSecret, encryptionKey: options.encryptionKey };
  }
  const file = path.resolve(options.dataDir, "secrets.json");
  let stored: z.infer<typeof fileSchema>;
  if (existsSync(file)) {
    const parsed = fileSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (!parsed.success) throw new Error(`${file} is corrupt; remove it to generate new secrets (all sessions end)`);
    stored = parsed.data;
  } else {
    mkdirSync(path.dirname(file), { recursive: true });
    stored = { jwt_secret: randomToken(48), encryption_key: randomToken(48) };
    writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600, flag: "wx" });
  }
  return {
    jwtSecret: options.jwtSecret ?? stored.jwt_secret,
    encryptionKey: options.encryptionKey ?? stored.encryption_key,
  };
}
