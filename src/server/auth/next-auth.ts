// Split: reading the browser session is ./browser-session.ts, next-auth's options (which call the
// account services) are src/server/api/next-auth-options.ts. Kept only for
// src/server/realtime/admission.ts, whose import changes with the realtime work in progress
// elsewhere; delete this file once nothing imports it.
export { browserSessionId, nextAuthSecret } from "./browser-session";
