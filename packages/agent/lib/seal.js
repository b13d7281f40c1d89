import { createDecipheriv, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

/** Must match the server's (src/server/services/devices/seal.ts). */
const SEAL_INFO = "flowplane-agent-seal-v1";

/**
 * The agent's X25519 key pair, kept in its userDir (0600): its public key goes to the server in
 * `agent.hello`, and deployments' secrets arrive sealed to it.
 */
export function loadOrCreateKeyPair(file) {
  let privateKey;
  if (existsSync(file)) privateKey = createPrivateKey(readFileSync(file, "utf8"));
  else {
    privateKey = generateKeyPairSync("x25519").privateKey;
    writeFileSync(file, privateKey.export({ format: "pem", type: "pkcs8" }), { mode: 0o600 });
  }
  const publicKey = createPublicKey(privateKey).export({ format: "der", type: "spki" }).toString("base64");
  return { privateKey, publicKey };
}

/** Opens a box the server sealed to this agent (X25519 + HKDF-SHA256 + AES-256-GCM); throws when it was tampered with. */
export function openSealed(privateKey, box) {
  const epk = Buffer.from(box.epk, "base64");
  const shared = diffieHellman({ privateKey, publicKey: createPublicKey({ key: epk, format: "der", type: "spki" }) });
  const key = Buffer.from(hkdfSync("sha256", shared, epk, SEAL_INFO, 32));
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(box.iv, "base64"));
  decipher.setAuthTag(Buffer.from(box.tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(box.data, "base64")), decipher.final()]).toString("utf8");
}
