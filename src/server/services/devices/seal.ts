import { createCipheriv, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes } from "node:crypto";
import type { SealedBox } from "../../../shared/agent-protocol";

/** HKDF's info: a key derived for a deployment's secrets is never one for anything else. */
export const SEAL_INFO = "flowplane-agent-seal-v1";

/**
 * Seals `plaintext` to an agent's X25519 public key (SPKI DER, base64): an ephemeral key pair per
 * box, the shared secret through HKDF-SHA256 (salt: the ephemeral public key), AES-256-GCM. Only
 * the agent's private key (kept in its userDir) opens it; packages/agent/lib/seal.js is the other half.
 */
export function sealTo(publicKeyBase64: string, plaintext: string): SealedBox {
  const recipient = createPublicKey({ key: Buffer.from(publicKeyBase64, "base64"), format: "der", type: "spki" });
  if (recipient.asymmetricKeyType !== "x25519") throw new Error("the agent's public key is not an X25519 key");
  const ephemeral = generateKeyPairSync("x25519");
  const epk = ephemeral.publicKey.export({ format: "der", type: "spki" });
  const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: recipient });
  const key = Buffer.from(hkdfSync("sha256", shared, epk, SEAL_INFO, 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return { epk: epk.toString("base64"), iv: iv.toString("base64"), tag: cipher.getAuthTag().toString("base64"), data: data.toString("base64") };
}

/** Whether the text is an X25519 public key we can seal to (checked when the agent says hello). */
export function isSealingKey(publicKeyBase64: string): boolean {
  try {
    return createPublicKey({ key: Buffer.from(publicKeyBase64, "base64"), format: "der", type: "spki" }).asymmetricKeyType === "x25519";
  } catch {
    return false;
  }
}
