// The server's own RFC 6238 implementation, so the test computes exactly what the server checks.
export { totpCode } from "../../src/server/auth/totp";
