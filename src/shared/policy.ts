/** Product constants shared by the server, the pages and the published settings. */
export const passwordPolicy = {
  minLength: 8,
  maxLength: 72,
  /** bcrypt only reads the first 72 bytes; a longer password would be silently truncated. */
  maxBytes: 72,
  rejectsCommonPasswords: true,
} as const;

export const tokenPolicy = {
  accessTokenTtlSec: 900,
  refreshTokenTtlSec: 7 * 24 * 3600,
  sessionIdleTtlSec: 24 * 3600,
  sessionAbsoluteTtlSec: 7 * 24 * 3600,
  issuer: "service-saas",
  audience: "service-saas-api",
} as const;

export const mfaPolicy = {
  algorithm: "SHA1",
  digits: 6,
  periodSec: 30,
  window: 1,
  backupCodeCount: 8,
  backupCodeFormat: "XXXX-XXXX",
} as const;

export const bodyLimits = {
  defaultBytes: 1024 * 1024,
  flowBytes: 5 * 1024 * 1024,
} as const;

/**
 * Names and labels (SPEC §23): Node-RED has no length limit on them, ours take this many
 * characters, for node names, flow names and tab labels, subflow, group and configuration node
 * names alike (the columns are unbounded text).
 */
export const NAME_MAX_CHARS = 10_000;
export const NAME_TOO_LONG = "must be at most 10,000 characters";
