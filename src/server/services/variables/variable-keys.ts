import { createHash } from "node:crypto";
import { decryptSecret, deriveKey, encryptSecret } from "../../auth/crypto";

/**
 * The keys that seal variables' secrets (SPEC §14): derived from ENCRYPTION_KEY with HKDF, each
 * named by a short fingerprint stored beside every sealed value. Values sealed under an earlier
 * ENCRYPTION_KEY (ENCRYPTION_KEY_PREVIOUS) stay readable, so the key can be rotated: new writes use
 * the current key, and `sealedWithOldKey` tells which rows still need to be written again.
 */
export interface VariableKeyring {
  currentId: string;
  seal(plaintext: string): { valueEncrypted: string; keyId: string };
  /** Throws when the key is unknown (rotated away) or the value was tampered with. */
  open(valueEncrypted: string, keyId: string): string;
}

const PURPOSE = "variable-secret-v1";

function fingerprint(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

export function variableKeyring(encryptionKey: string, previous: string[] = []): VariableKeyring {
  const current = deriveKey(encryptionKey, PURPOSE);
  const currentId = fingerprint(current);
  const byId = new Map<string, Buffer>([[currentId, current]]);
  for (const secret of previous) {
    const key = deriveKey(secret, PURPOSE);
    if (!byId.has(fingerprint(key))) byId.set(fingerprint(key), key);
  }
  return {
    currentId,
    seal: (plaintext) => ({ valueEncrypted: encryptSecret(plaintext, current), keyId: currentId }),
    open: (valueEncrypted, keyId) => {
      const key = byId.get(keyId);
      if (!key) throw new Error(`secret sealed with key ${keyId}, which is neither ENCRYPTION_KEY nor one of ENCRYPTION_KEY_PREVIOUS`);
      return decryptSecret(valueEncrypted, key);
    },
  };
}
