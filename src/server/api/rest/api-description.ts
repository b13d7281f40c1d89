/** The prose at the top of the OpenAPI document (and so of the /docs page). */
export const apiDescription = `
The REST interface of Flowplane, a multi-tenant platform for building and running flows of nodes.

**Conventions.** JSON in and out with snake_case fields. A request with a body must send
\`Content-Type: application/json\` (else 415). Bodies over 1 MiB are refused with 413 (flows: 5 MiB).
One exception: \`PUT /api/v1/files/{path}\` takes the file's raw bytes (\`application/octet-stream\`, up to
FILES_MAX_UPLOAD_BYTES), and \`GET /api/v1/files/{path}\` answers them.
Ids are opaque prefixed strings (\`usr_\`, \`org_\`, \`flw_\` …). Times are ISO 8601 UTC.

**Authentication.** \`Authorization: Bearer <access token>\` from \`POST /api/v1/auth/login\` (15 minutes;
renew with \`POST /api/v1/auth/refresh\`), or an API key in \`X-API-Key\` or \`Authorization: Bearer\`.

**Errors.** Every error has one shape:
\`{"error": {"code": "VALIDATION_FAILED", "message": "…", "details": [{"path": "…", "message": "…"}]}}\`.
400 \`INVALID_JSON\`/\`VALIDATION_FAILED\`, 401 \`UNAUTHENTICATED\`/\`INVALID_CREDENTIALS\`/\`TOKEN_*\`,
403 \`FORBIDDEN\`, 404 \`NOT_FOUND\`, 409 conflicts, 413, 415, 429 \`RATE_LIMITED\` (with \`Retry-After\`),
507 \`FILES_QUOTA_EXCEEDED\` (a write past the organization's FILES_MAX_BYTES),
500 \`INTERNAL\`, 503 \`UNAVAILABLE\` (with \`Retry-After\`) when the database or the session store cannot be reached.

**Real time.** A WebSocket at \`/ws\` streams the organization's events (flow changes, deploys, runtime
state, node status, debug messages). Authenticate with the same bearer token or API key on the upgrade,
or with a first frame \`{"type":"auth","token":"…"}\` within 10 s; failures close with 4401 (1013 when the
credentials cannot be checked now: try again later). Narrow with
\`{"type":"subscribe","topics":[…],"flow_id":"…"}\`. Full protocol: /docs/websocket.
`.trim();
