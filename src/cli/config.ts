import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Where `flowplane login` keeps the URL and key: $FLOWPLANE_CONFIG, else the XDG config folder. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FLOWPLANE_CONFIG) return env.FLOWPLANE_CONFIG;
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  return path.join(base, "flowplane", "config.json");
}

export interface Credentials {
  url: string;
  apiKey: string;
  /** Logged in with --insecure: the key may go over plain http:// to this URL's host. */
  insecure?: boolean;
}

/** FLOWPLANE_URL / FLOWPLANE_API_KEY win over the saved login (a CI job sets them as secrets). */
export function loadCredentials(env: NodeJS.ProcessEnv = process.env): Partial<Credentials> {
  let saved: Partial<Credentials> = {};
  const file = configPath(env);
  if (existsSync(file)) {
    try {
      saved = JSON.parse(readFileSync(file, "utf8")) as Partial<Credentials>;
    } catch {
      saved = {};
    }
  }
  const url = env.FLOWPLANE_URL || saved.url;
  // The saved --insecure holds for the saved URL only, never for one FLOWPLANE_URL puts in its place.
  return { url, apiKey: env.FLOWPLANE_API_KEY || saved.apiKey, insecure: saved.insecure === true && url === saved.url };
}

/** Saved readable by the user only (0600): it holds a key. */
export function saveCredentials(credentials: Credentials, env: NodeJS.ProcessEnv = process.env): string {
  const file = configPath(env);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}
