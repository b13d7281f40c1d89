import type { VariableKeyring } from "../variables/variable-keys";
import type { NodeDefinition } from "../../nodes/types";
import { AppError, type ErrorDetail } from "../../errors";

/**
 * Configuration nodes' credentials (SPEC §19), sealed one by one with the variables' keyring (the
 * same encryption and key rotation as secret variables, §14). A sealed value is
 * "<keyId>:<ciphertext>", so a deployment snapshot carries it as one string and the runtime opens
 * it with the keyring alone.
 */
export type SealedCredentials = Record<string, string>;

export function sealCredential(keyring: VariableKeyring, plaintext: string): string {
  const sealed = keyring.seal(plaintext);
  return `${sealed.keyId}:${sealed.valueEncrypted}`;
}

/** Throws when the key is gone (rotated away) or the value was tampered with. */
export function openCredential(keyring: VariableKeyring, sealed: string): string {
  const colon = sealed.indexOf(":");
  if (colon <= 0) throw new Error("not a sealed credential");
  return keyring.open(sealed.slice(colon + 1), sealed.slice(0, colon));
}

/** What the doors show of credentials: for every declared one, whether it holds a value. */
export function credentialStates(definition: NodeDefinition | undefined, sealed: SealedCredentials): Record<string, { set: boolean }> {
  const names = new Set([...Object.keys(definition?.credentials ?? {}), ...Object.keys(sealed)]);
  return Object.fromEntries([...names].sort().map((name) => [name, { set: typeof sealed[name] === "string" }]));
}

/**
 * Applies written credentials to the stored ones: a string sets (sealed now), null clears, an
 * omitted name is kept. Only the type's declared credentials are accepted (400 naming the others).
 */
export function applyCredentials(
  keyring: VariableKeyring,
  definition: NodeDefinition,
  stored: SealedCredentials,
  written: Record<string, string | null> | undefined,
): SealedCredentials {
  const next: SealedCredentials = { ...stored };
  if (!written) return next;
  const declared = definition.credentials ?? {};
  const details: ErrorDetail[] = [];
  for (const [name, value] of Object.entries(written)) {
    if (!Object.hasOwn(declared, name)) {
      const known = Object.keys(declared);
      details.push({ path: `credentials.${name}`, message: `${definition.type} has no credential ${name}${known.length ? `; its credentials: ${known.join(", ")}` : "; it has no credentials"}` });
      continue;
    }
    if (value === null || value === "") delete next[name];
    else next[name] = sealCredential(keyring, value);
  }
  if (details.length > 0) throw new AppError("VALIDATION_FAILED", `${details[0]!.path}: ${details[0]!.message}`, { details });
  return next;
}

/**
 * A configuration as saved, with the credentials its type finds written into ordinary properties
 * (NodeDefinition.liftCredentials) moved out of it: credentials the request names win; null or ""
 * there (clearing one) still wins over the property's.
 */
export function liftCredentials(
  definition: NodeDefinition,
  config: Record<string, unknown>,
  written: Record<string, string | null> | undefined,
): { config: Record<string, unknown>; credentials: Record<string, string | null> | undefined; lifted: string[] } {
  const lifted = definition.liftCredentials?.(config as never) as { config: Record<string, unknown>; credentials: Record<string, string> } | null | undefined;
  if (!lifted) return { config, credentials: written, lifted: [] };
  return { config: lifted.config, credentials: { ...lifted.credentials, ...written }, lifted: Object.keys(lifted.credentials).filter((k) => !(written && Object.hasOwn(written, k))) };
}
