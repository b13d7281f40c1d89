// Moved to src/server/http/client-ip.ts (the custom server sets the header; every transport reads
// it). Kept only for src/server/realtime/hub.ts, whose import changes with the realtime work in
// progress elsewhere; delete this file once nothing imports it.
export { CLIENT_IP_HEADER, resolveClientIp } from "../../http/client-ip";
