import { createHash, randomUUID } from "node:crypto";

/**
 * HTTP Digest authentication (RFC 7616, RFC 2617's -sess) as Node-RED's http request answers a
 * challenge (21-httprequest.js, buildDigestHeader; Apache-2.0): MD5, SHA-256 and SHA-512-256 and
 * their -sess forms, qop "auth" when offered (nc 00000001, a random cnonce), the opaque echoed.
 * Fields go in Node-RED's order; an empty one is left out.
 */
const hash = (algorithm: string, value: string) => createHash(algorithm).update(value).digest("hex");

export function digestCompute(algorithm: string | undefined, value: string): string {
  const name = (algorithm ?? "").toLowerCase().replace(/-sess$/, "");
  if (name === "sha-256") return hash("sha256", value);
  // SHA-512-256 as Node-RED computes it: the first 256 bits of SHA-512.
  if (name === "sha-512-256") return hash("sha512", value).slice(0, 64);
  return hash("md5", value);
}

/** The Authorization header answering `challenge` (a WWW-Authenticate value) for this request; throws when the challenge lacks a nonce or a realm. */
export function digestAuthorization(user: string, password: string, method: string, path: string, challengeHeader: string): string {
  const challenge: Record<string, string> = {};
  const re = /([a-z0-9_-]+)=(?:"([^"]+)"|([a-z0-9_-]+))/gi;
  for (let match = re.exec(challengeHeader); match; match = re.exec(challengeHeader)) challenge[match[1]!] = match[2] ?? match[3]!;
  if (!challenge.nonce) throw new Error("Invalid digest challenge: missing nonce");
  if (!challenge.realm) throw new Error("Invalid digest challenge: missing realm");
  const qop = /(^|,)\s*auth\s*($|,)/.test(challenge.qop ?? "") ? "auth" : "";
  const nc = qop && "00000001";
  const cnonce = qop && randomUUID().replace(/-/g, "");
  let ha1 = digestCompute(challenge.algorithm, `${user}:${challenge.realm}:${password}`);
  if (challenge.algorithm && /-sess$/i.test(challenge.algorithm)) ha1 = digestCompute(challenge.algorithm, `${ha1}:${challenge.nonce}:${cnonce}`);
  const ha2 = digestCompute(challenge.algorithm, `${method}:${path}`);
  const response = qop ? digestCompute(challenge.algorithm, `${ha1}:${challenge.nonce}:${nc}:${cnonce}:${qop}:${ha2}`) : digestCompute(challenge.algorithm, `${ha1}:${challenge.nonce}:${ha2}`);
  const fields: Array<[string, string | undefined]> = [
    ["username", user],
    ["realm", challenge.realm],
    ["nonce", challenge.nonce],
    ["uri", path],
    ["qop", qop],
    ["response", response],
    ["nc", nc],
    ["cnonce", cnonce],
    ["algorithm", challenge.algorithm],
    ["opaque", challenge.opaque],
  ];
  const bare = new Set(["qop", "nc", "algorithm"]);
  return `Digest ${fields
    .filter(([, v]) => v)
    .map(([k, v]) => (bare.has(k) ? `${k}=${v}` : `${k}="${v}"`))
    .join(", ")}`;
}
