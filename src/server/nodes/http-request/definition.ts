import { z } from "zod";
import { isIP } from "node:net";
import { defineNode } from "../types";
import { isBlockedAddress } from "../../runtime/outbound";
import { configNodeRef, configRefFromNodeRed } from "../../../shared/config-nodes";

const HELP = `Sends an HTTP request and returns the response.

### Inputs

- \`url\` (string, optional): the URL of the request, when the node has none.
- \`method\` (string, optional): the method, when the node's is "use": GET, PUT, POST, PATCH or DELETE.
- \`headers\` (object, optional): request headers; the node's own headers win over these, whatever
  the case of their names. Left as a previous http request node set them (its response's headers,
  marked \`x-node-red-request-node\`), they are not sent, as in Node-RED.
- \`requestTimeout\` (number, optional): milliseconds to wait for the answer, instead of the node's
  *Timeout* (at most 120000); a value that is not a positive number is ignored, with a warning.
- \`followRedirects\` (boolean, optional): \`false\` answers with a redirect itself (its
  \`statusCode\` and \`location\` header) instead of following it.
- \`cookies\` (object, optional): cookies to send, \`{name: "value"}\` or \`{name: {value, encode}}\`:
  the value is URI-encoded unless \`encode\` is \`false\`; a \`null\` one is skipped. A \`cookie\`
  header (in \`msg.headers\` or a header row) joins them. Cookies go only to the host they were
  given for; one that a redirect's answer sets goes on to the hops after it, as a browser's would.
- \`payload\`: the body of the request, except for GET and HEAD: text and a buffer as they are, a
  number as its digits, anything else as JSON with \`Content-Type: application/json\` (unless the
  headers name a content type), or as a form's fields when the content type is
  \`application/x-www-form-urlencoded\`. Under the content type \`multipart/form-data\` an object
  is a form upload, each key a part: text and buffers as they are, \`{value, options: {filename,
  contentType}}\` a file, anything else as JSON (the boundary is added to the content type). For GET, *Payload of a GET* says what becomes of it:
  *Ignore* (the default); *Append to query-string parameters*: an object's keys and values added to
  the URL's query string (another value is the node's error, "Invalid payload", and nothing is
  sent); *Send as request body*: sent as the GET's body.

### Outputs

- \`payload\` (string | object | buffer): the body of the response, as text, parsed JSON or bytes.
- \`statusCode\` (number): the status code of the response.
- \`headers\` (object): the response headers, with \`x-node-red-request-node\`, their hash (see \`headers\` above).
- \`responseUrl\` (string): the URL that answered.
- \`redirectList\` (array): the redirects followed, in order, each \`{location}\`, with \`cookies\`
  when that redirect set any (as \`responseCookies\`).
- \`responseCookies\` (object): when the response sets cookies, each under its name as \`{value}\`
  (decoded) with its attributes (\`Path\`, \`Max-Age\`, \`Expires\`, …, as written); \`headers\`
  holds the \`set-cookie\` lines themselves, a list.
- \`retry\` (number): the retries made: always 0.

When the request fails (no connection, no response within the timeout, an address that is not
allowed), the error goes to the flow's Catch nodes with the message as it came in (\`msg.error.code\`
holds the system's code, e.g. \`ECONNREFUSED\`), and the message also goes on out of the node with
\`msg.payload\` the error and the URL (\`RequestError: connect ECONNREFUSED 10.0.0.7:80 :
http://10.0.0.7/status\`) and \`msg.statusCode\` the code (\`ECONNREFUSED\`, \`ETIMEDOUT\`): a
switch on \`msg.statusCode\` after the node sees both answers and failures. With *Only send request
errors to Catch nodes* on, a failed request goes only to the Catch nodes. A response of any status
(404, 500) is not a failure: it always goes out with its \`statusCode\`.

### Details

The node's URL may hold mustache tags filled from the message: \`example.com/{{{topic}}}\` takes
\`msg.topic\` (\`{{{...}}}\` leaves characters such as \`/\` and \`&\` unescaped).

The URL, the header values and the authentication fields may hold \`\${NAME}\`: a variable of the
flow or of the organization (Settings → Variables). These are the node's *credential properties*:
a **secret** is handed to them (and only to them), so a token never has to be typed into the flow.
Write the bearer token as \`\${API_TOKEN}\`; when the secret changes, the next request uses the
new value.

A secret may list its **allowed hosts** (Settings → Variables): then the request is sent only if
its host is one of them (\`*.example.com\` for any host under example.com; the port does not
matter), and a redirect to another host is not followed. Otherwise nothing is sent and the node
reports an error naming the secret and its hosts, never its value.

**Authentication**: *basic* sends \`Authorization: Basic\` with the username and password;
*digest* sends the request without, and when the server answers 401 with a Digest challenge
(MD5, SHA-256 or SHA-512-256, their \`-sess\` forms, qop \`auth\`), sends it once more with the
answer to it (an IP camera's snapshot URL asks so), unless the challenge comes from another
origin than the URL's, reached by a redirect (Node-RED answers it there too); *bearer* sends \`Authorization: Bearer\` with
the token (the "Password or token" field).

**TLS configuration** names a TLS configuration node (client certificate, trusted authorities,
server certificate check) for \`https\` requests; **Proxy** names an HTTP proxy configuration node
the requests go through. Both are shared by every node that names them (the Configuration tab).
Plain \`http\` requests go to the proxy as they are; \`https\` ones through a tunnel (\`CONNECT\`),
with the TLS configuration applied to the server inside it. Hosts in the proxy's *Ignore hosts* list
are reached directly. A URL without \`http://\` or \`https://\` gets \`https://\` when the node has a
TLS configuration, else \`http://\`.

**Headers** are set by the node to fixed values (which may hold \`\${NAME}\`), and, under *Message
headers*, to a message property's value for each message (\`token\` reads \`msg.token\`).
An empty value, or a property that is missing, removes the header, even one \`msg.headers\` set.

### Differences from Node-RED

- \`\${NAME}\` is replaced each time the node sends a request, not once when the flow starts, so
  a changed variable or secret reaches a running flow within 2 seconds without a redeploy.
- Node-RED replaces a property only when it is exactly \`\${NAME}\`, and leaves an unknown name as
  written; here \`\${NAME}\` may sit anywhere in the text (\`\${API_URL}/orders\`), and an unknown
  name becomes empty, as Node-RED's \`env\` typed input does.
  \`\${NAME}\` in \`msg.url\` or \`msg.headers\` is not replaced (a message cannot ask for a secret).
- Private, loopback and link-local addresses are refused unless the operator allows them; through
  a proxy, the proxy's own address is checked the same way.
- TLS configuration and proxy nodes are offered (Node-RED's \`tls\` and \`proxy\`). Their
  certificates, keys and passwords are credentials given inline (PEM) or as \`\${NAME}\`, not file
  paths; a changed secret is used by the next request without a redeploy. The TLS configuration's
  *Server name* is honoured (Node-RED's http request drops it). A TLS configuration or proxy the
  node names but the deployment lacks is an error, and nothing is sent (Node-RED sends without it).
  The server's \`http_proxy\`/\`no_proxy\` environment is not used: only the proxy node.
  \`msg.rejectUnauthorized\` is not read: use a TLS configuration with *Verify server certificate* off.
- A header row whose name is read from the message is not carried over at import (the others are).
- At most 5 redirects are followed (Node-RED follows 21), and a request waits at most 120 s for its
  answer, \`msg.requestTimeout\` included (Node-RED's default is 120 s, without a maximum).
- Connections are always kept alive and reused (Node-RED's *Enable connection keep-alive* is on for
  every node). A timed-out request's \`msg.payload\` says so in our words (\`TimeoutError: no
  complete response within 30000 ms : <url>\`).
- In an export, the authentication fields travel as \`credentials\` holding what the node holds
  (\`\${SECRET}\` references), never a secret's value.
`;

/** The longest a request may wait for its answer: the node's timeout and msg.requestTimeout alike. */
export const MAX_TIMEOUT_MS = 120_000;

/** An HTTP header name: RFC 9110's token. */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;

/** One of Node-RED's header rows: its name and value, each typed ("other": the text itself; "msg": a message property; another type: that preset). */
type HeaderRow = { keyType?: unknown; keyValue?: unknown; valueType?: unknown; valueValue?: unknown };
const rowsOf = (rows: unknown): HeaderRow[] => (Array.isArray(rows) ? rows.filter((r): r is HeaderRow => r !== null && typeof r === "object") : []);
/** A row's header name, when the node fixes it: `keyType` "other" names it in `keyValue`, another type but "msg" is the name itself (the editor's presets: "Content-Type", …). */
function rowName(row: HeaderRow): string | null {
  if (row.keyType === "msg") return null;
  const keyType = typeof row.keyType === "string" ? row.keyType : "other";
  return (keyType === "other" ? String(row.keyValue ?? "") : keyType).trim();
}

/**
 * Node-RED's header rows with a fixed value, as name → value (\`valueType\` "other": \`valueValue\`,
 * else the preset value itself). Rows with an empty name are skipped, as Node-RED skips them at run
 * time (a new row's blank defaults); rows whose value is a message property are
 * messageHeadersFromNodeRed's, and rows whose name is one are not carried over.
 */
export function headersFromNodeRed(rows: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const row of rowsOf(rows)) {
    const name = rowName(row);
    if (!name || row.valueType === "msg") continue;
    const valueType = typeof row.valueType === "string" ? row.valueType : "other";
    out[name] = valueType === "other" ? String(row.valueValue ?? "") : valueType;
  }
  return out;
}

/** Node-RED's header rows whose value is a message property (\`valueType\` "msg"), as {header, property}. */
export function messageHeadersFromNodeRed(rows: unknown): Array<{ header: string; property: string }> {
  const out: Array<{ header: string; property: string }> = [];
  for (const row of rowsOf(rows)) {
    const name = rowName(row);
    if (name && row.valueType === "msg" && typeof row.valueValue === "string" && row.valueValue.trim() !== "") out.push({ header: name, property: row.valueValue.trim() });
  }
  return out;
}

export const httpRequestConfig = z.object({
  /** "use": take msg.method. */
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "use"]).default("GET").meta({ title: "Method", description: "\"use\": take msg.method" }),
  /** Empty: take msg.url. Mustache placeholders are filled from the message. */
  url: z.string().max(4096).default("").meta({ title: "URL", description: "Empty: msg.url. {{{topic}}} takes a message property; ${NAME} a variable or secret" }),
  headers: z
    .record(z.string().regex(HEADER_NAME, "must be a header name (letters, digits and !#$%&'*+-.^_`|~)"), z.string().max(4096))
    .default({})
    .meta({ title: "Headers", description: "Values may hold ${NAME}: a variable or a secret" }),
  message_headers: z
    .array(
      z.object({
        header: z.string().regex(HEADER_NAME, "must be a header name (letters, digits and !#$%&'*+-.^_`|~)").meta({ title: "Header" }),
        property: z.string().min(1).max(200).meta({ title: "Message property", description: "e.g. token or req.headers.authorization" }),
      }),
    )
    .max(50)
    .default([])
    .meta({ title: "Message headers", description: "Headers set to a message property's value, for each message; a property that is missing or empty removes the header" }),
  get_payload: z
    .enum(["ignore", "query", "body"])
    .default("ignore")
    .meta({
      title: "Payload of a GET",
      description: "What a GET does with msg.payload: an object's keys as query-string parameters, or the payload as the request's body",
      enumLabels: { ignore: "Ignore", query: "Append to query-string parameters", body: "Send as request body" },
    }),
  return: z.enum(["txt", "obj", "bin"]).default("txt").meta({ title: "Return", description: "txt: a UTF-8 string, obj: parsed JSON, bin: a buffer" }),
  timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS).default(30_000).meta({ title: "Timeout (ms)", description: "msg.requestTimeout, when set, takes its place for that message (at most 120000)" }),
  errors_to_catch_only: z
    .boolean()
    .default(false)
    .meta({
      title: "Only send request errors to Catch nodes",
      description: "Off: a request that fails (no connection, no response in time) goes to Catch nodes and on out of the node, msg.statusCode its code. On: only to Catch nodes",
    }),
  auth_type: z.enum(["none", "basic", "digest", "bearer"]).default("none").meta({ title: "Authentication", description: "none, basic or digest (user and password), or bearer (token)" }),
  auth_user: z.string().max(4096).default("").meta({ title: "Username", description: "Basic or digest authentication; may be ${NAME}" }),
  auth_password: z.string().max(4096).default("").meta({ title: "Password or token", description: "Basic or digest: the password; bearer: the token. Write ${SECRET_NAME} to use a secret" }),
  tls: configNodeRef("tls-config", { title: "TLS configuration", description: "Certificates and checks for https requests" }),
  proxy: configNodeRef("http-proxy", { title: "Proxy", description: "An HTTP proxy the requests go through" }),
});

/**
 * Node-RED's authType and its credentials, when the export carries them. An empty or absent
 * authType is Node-RED's "basic" (`n.authType || "basic"`: flows from before the choice existed),
 * which sends only when there is a username or password: without credentials, none.
 */
function authFromNodeRed(p: Record<string, unknown>) {
  const credentials = (p.credentials && typeof p.credentials === "object" ? p.credentials : {}) as Record<string, unknown>;
  const given = Boolean(credentials.user || credentials.password);
  const type = p.authType === "basic" || p.authType === "digest" || p.authType === "bearer" ? p.authType : !p.authType && given ? "basic" : "none";
  if (type === "none") return { auth_type: "none" as const };
  return {
    auth_type: type,
    auth_user: typeof credentials.user === "string" ? credentials.user : "",
    auth_password: typeof credentials.password === "string" ? credentials.password : "",
  };
}

/** Whether a URL names its scheme (\`https://\`); one without is \`http://\` (or \`https://\` with a TLS configuration), as in Node-RED. */
export const hasScheme = (url: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(url);

/**
 * The host of a fixed URL as Node-RED reads it (no scheme: http://), or null (a {{mustache}} URL,
 * set by the message, or one that does not parse).
 */
function fixedHost(url: string): string | null {
  if (url === "" || url.includes("{{")) return null;
  try {
    return new URL(hasScheme(url) ? url : `http://${url}`).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return null;
  }
}

/** A URL naming this machine or a private network (Node-RED's examples call localhost:1880) is refused by the outbound rules: said at import. */
function privateUrlNote(url: string): string[] {
  const host = fixedHost(url);
  if (host === null) return [];
  const local = host === "localhost" || host.endsWith(".localhost") || (isIP(host) !== 0 && isBlockedAddress(host));
  return local ? [`its URL names ${host}, a loopback or private address, which requests from here may not reach unless the operator allows it (OUTBOUND_ALLOW_PRIVATE); this server's own http in nodes answer at /hooks/{organization}{path}`] : [];
}

export const httpRequestNode = defineNode({
  type: "http-request",
  version: 1,
  category: "network",
  name: "HTTP request",
  description: "Calls a URL and puts the response in msg.payload (private, loopback and link-local addresses are refused unless allowed by the operator).",
  inputs: 1,
  outputs: 1,
  configSchema: httpRequestConfig,
  help: HELP,
  nodeRed: {
    type: "http request",
    // Node-RED's "Enable connection keep-alive": every node here keeps its connections alive.
    absorbed: ["persist"],
    importNotes: (p) => privateUrlNote(typeof p.url === "string" ? p.url : ""),
    // A header row whose name is read from the message is not carried over (its siblings are).
    partlyDropped: (p) => (rowsOf(p.headers).some((row) => row.keyType === "msg") ? ["headers (a row naming its header from the message)"] : []),
    toNodeRed: (c) => ({
      method: c.method,
      ret: c.return,
      paytoqs: c.get_payload,
      url: c.url,
      // Connections are always kept alive and reused here.
      persist: true,
      senderr: c.errors_to_catch_only,
      // Node-RED 3.1's lenient HTTP parser: never ours (an import with it on says it is not carried over).
      insecureHTTPParser: false,
      headers: [
        ...Object.entries(c.headers).map(([k, v]) => ({ keyType: "other", keyValue: k, valueType: "other", valueValue: v })),
        ...c.message_headers.map((h) => ({ keyType: "other", keyValue: h.header, valueType: "msg", valueValue: h.property })),
      ],
      authType: c.auth_type === "none" ? "" : c.auth_type,
      tls: c.tls,
      proxy: c.proxy,
      // Node-RED keeps these in its credentials file; in an export they travel as what the node
      // holds, which is a ${SECRET} reference, never a secret's value.
      ...(c.auth_type === "none" ? {} : { credentials: { user: c.auth_user, password: c.auth_password } }),
    }),
    fromNodeRed: (p) => ({
      method: String(p.method ?? "GET").toUpperCase() === "USE" ? "use" : String(p.method ?? "GET").toUpperCase(),
      url: String(p.url ?? ""),
      return: ["txt", "obj", "bin"].includes(String(p.ret)) ? p.ret : "txt",
      errors_to_catch_only: p.senderr === true,
      headers: headersFromNodeRed(p.headers),
      message_headers: messageHeadersFromNodeRed(p.headers),
      // Node-RED 1.x wrote a switch (true: the query string); 2.0 on, one of three words.
      get_payload: p.paytoqs === true || p.paytoqs === "query" ? "query" : p.paytoqs === "body" ? "body" : "ignore",
      ...authFromNodeRed(p),
      // Node-RED's configuration node ids, mapped as the import maps the configuration nodes themselves.
      tls: configRefFromNodeRed(p.tls),
      proxy: configRefFromNodeRed(p.proxy),
    }),
  },
});
