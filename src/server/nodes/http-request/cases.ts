/**
 * http request against Node-RED 5.0 when the request itself fails (21-httprequest.js, got's catch
 * branch): a refused connection (127.0.0.1 port 1, where nothing listens) goes to the catch node
 * with msg.error.code, and on out of the node with msg.payload the error and the URL and
 * msg.statusCode the code, unless "Only send non-2xx responses to Catch node" (senderr) is on.
 * Both sides are allowed private addresses here (our server refuses them unless the operator
 * allows them).
 */
import type { DiffCase } from "@/test/node-red-diff/types";
import { ECHO_URL } from "@/test/node-red-diff/echo-server";

const URL = "http://127.0.0.1:1/status";
const request = (senderr: boolean, persist = false) => ({
  id: "req",
  type: "http request",
  name: "",
  method: "GET",
  ret: "txt",
  paytoqs: "ignore",
  url: URL,
  tls: "",
  persist,
  proxy: "",
  insecureHTTPParser: false,
  authType: "",
  senderr,
  headers: [],
  wires: [["out"]],
});
/** An http request node calling the echo server, its answer parsed (the request it made, as JSON). */
const echoing = (over: Record<string, unknown>, wires: string[][] = [["out"]]) => ({ ...request(false), id: "req", ret: "obj", url: `${ECHO_URL}/echo`, ...over, wires });
const row = (keyValue: string, valueType: string, valueValue: string) => ({ keyType: "other", keyValue, valueType, valueValue });
/** What a request sent, as the echo server saw it: compared through msg.payload (the response's own headers hold each server's date). */
const echoed = { echo: true, compare: ["payload", "statusCode"] };
/**
 * A node with credentials has an id of its own: Node-RED keeps a node's credentials by its id across
 * deploys, and a later case's "req" without any would send them (as Basic: authType "" with a user).
 */
const digestNode = { id: "digest-req", authType: "digest", credentials: { user: "user", password: "pass" } };
const caught = { id: "c", type: "catch", name: "", scope: null, uncaught: false, wires: [["caught"]] };
const why = "an Error's stack (and got's cause, the socket error it wraps) is each runtime's own";

export const cases: DiffCase[] = [
  {
    name: "a refused connection goes to the catch node and on out with the error as payload and its code as statusCode",
    nodes: [request(false), caught],
    send: [{ msg: { payload: "p", topic: "t" } }],
    expect: 2,
    ignore: ["error.stack"],
    ignoreWhy: why,
    orderPerCollector: "Node-RED reports to the catch node first and then sends; ours the same, but the two branches run side by side",
  },
  {
    name: "with senderr on, a refused connection goes only to the catch node",
    nodes: [request(true), caught],
    send: [{ msg: { payload: "p" } }],
    expect: 1,
    settleMs: 300,
    ignore: ["error.stack"],
    ignoreWhy: why,
  },
  {
    name: "keep-alive on (persist) answers the same",
    nodes: [request(false, true), caught],
    send: [{ msg: { payload: "p" } }],
    expect: 2,
    ignore: ["error.stack"],
    ignoreWhy: why,
    orderPerCollector: "Node-RED reports to the catch node first and then sends; ours the same, but the two branches run side by side",
  },
  {
    name: "POST of an object: JSON with content-type application/json and its length",
    ...echoed,
    nodes: [echoing({ method: "POST" })],
    send: [{ msg: { payload: { a: 1, b: "two" } } }],
    expect: 1,
  },
  {
    name: "POST of an object with content-type application/x-www-form-urlencoded: a form's fields",
    ...echoed,
    nodes: [echoing({ method: "POST" })],
    send: [{ msg: { payload: { name: "Ada Lovelace", tags: ["a", "b"], n: 3 }, headers: { "content-type": "application/x-www-form-urlencoded" } } }],
    expect: 1,
  },
  {
    name: "the message's Content-Type in its own case is the one sent, once",
    ...echoed,
    nodes: [echoing({ method: "POST" })],
    send: [{ msg: { payload: { a: 1 }, headers: { "Content-Type": "text/plain" } } }],
    expect: 1,
  },
  {
    name: "POST of a number: its digits, without a content-type",
    ...echoed,
    nodes: [echoing({ method: "POST" })],
    send: [{ msg: { payload: 42 } }],
    expect: 1,
  },
  {
    name: "POST of a buffer: its bytes as they are",
    ...echoed,
    nodes: [
      { id: "bytes", type: "change", name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: "[104,105,33]", tot: "bin" }], action: "", property: "", from: "", to: "", reg: false, wires: [["req"]] },
      echoing({ method: "PUT" }),
    ],
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "GET with the payload appended to the query string (paytoqs query), after the URL's own parameters",
    ...echoed,
    nodes: [echoing({ paytoqs: "query", url: `${ECHO_URL}/echo?a=1` })],
    send: [{ msg: { payload: { b: 2, c: "x y&z" } } }],
    expect: 1,
  },
  {
    name: "GET with the payload appended to a URL without parameters, and the old switch (paytoqs true)",
    ...echoed,
    nodes: [echoing({ paytoqs: true })],
    send: [{ msg: { payload: { q: "search" } } }],
    expect: 1,
  },
  {
    name: "GET with a payload that is not an object and paytoqs query: the node's error, nothing sent",
    echo: true,
    compare: ["payload", "statusCode", "error"],
    nodes: [echoing({ paytoqs: "query" }), caught],
    send: [{ msg: { payload: "text" } }],
    expect: 1,
    settleMs: 300,
  },
  {
    name: "GET with the payload as its body (paytoqs body): an object as JSON, without a content-type",
    ...echoed,
    nodes: [echoing({ paytoqs: "body" })],
    send: [{ msg: { payload: { a: [1, 2] } } }],
    expect: 1,
  },
  {
    name: "GET ignores the payload by default (paytoqs ignore)",
    ...echoed,
    nodes: [echoing({})],
    send: [{ msg: { payload: { a: 1 } } }],
    expect: 1,
  },
  {
    name: "header rows: fixed values and message properties win over msg.headers in any case, and an empty value removes one",
    ...echoed,
    nodes: [echoing({ headers: [row("X-Fixed", "other", "node"), row("X-Token", "msg", "token"), row("x-drop", "other", ""), row("X-Missing", "msg", "nothing.here")] })],
    send: [{ msg: { token: "t-123", headers: { "x-fixed": "message", "X-Drop": "d", "x-kept": "k", "x-missing": "m" } } }],
    expect: 1,
  },
  {
    name: "the response headers a first request left in msg.headers are not sent by a second",
    ...echoed,
    nodes: [echoing({ id: "first" }, [["req"]]), echoing({ method: "POST" })],
    input: "first",
    send: [{ msg: { payload: "p" } }],
    expect: 1,
  },
  {
    name: "msg.headers carrying a mark that is not theirs are sent, without the mark",
    ...echoed,
    nodes: [echoing({})],
    send: [{ msg: { headers: { "x-node-red-request-node": "0badc0de", "x-a": "1" } } }],
    expect: 1,
  },
  {
    name: "a redirect is followed by default (the answer is the target's)",
    ...echoed,
    nodes: [echoing({ url: `${ECHO_URL}/redirect` })],
    send: [{ msg: { payload: "p" } }],
    expect: 1,
  },
  {
    name: "msg.followRedirects false answers with the redirect itself",
    echo: true,
    compare: ["payload", "statusCode"],
    nodes: [echoing({ ret: "txt", url: `${ECHO_URL}/redirect` })],
    send: [{ msg: { payload: "p", followRedirects: false } }],
    expect: 1,
  },
  {
    name: "msg.requestTimeout shorter than the answer: no response from server, to the catch node and out with ETIMEDOUT",
    echo: true,
    compare: ["statusCode", "error"],
    nodes: [echoing({ url: `${ECHO_URL}/slow?ms=1500` }), caught],
    send: [{ msg: { payload: "p", requestTimeout: 200 } }],
    expect: 2,
    orderPerCollector: "Node-RED reports to the catch node first and then sends; ours the same, but the two branches run side by side",
  },
  {
    name: "msg.requestTimeout that is not a number is ignored (a warning) and the answer comes",
    ...echoed,
    nodes: [echoing({ url: `${ECHO_URL}/slow?ms=50` })],
    send: [{ msg: { payload: "p", requestTimeout: "soon" } }],
    expect: 1,
  },
  {
    name: "msg.cookies are sent: a text value URI-encoded, {value} likewise, {value, encode: false} as written, a null one skipped",
    ...echoed,
    nodes: [echoing({})],
    send: [{ msg: { cookies: { plain: "a b", obj: { value: "x;y" }, raw: { value: "%41", encode: false }, gone: null, cleared: { value: null } } } }],
    expect: 1,
  },
  {
    name: "a cookie header from msg.headers joins msg.cookies in one Cookie header",
    ...echoed,
    nodes: [echoing({})],
    send: [{ msg: { headers: { cookie: "first=1; second=two%20words" }, cookies: { third: "3" } } }],
    expect: 1,
  },
  {
    name: "a Cookie header (capitalized) with msg.cookies",
    ...echoed,
    nodes: [echoing({})],
    send: [{ msg: { headers: { Cookie: "kept=1" }, cookies: { added: "2" } } }],
    expect: 1,
  },
  {
    name: "a Cookie header (capitalized) alone is sent as it is",
    ...echoed,
    nodes: [echoing({})],
    send: [{ msg: { headers: { Cookie: "kept=1" } } }],
    expect: 1,
  },
  {
    name: "a cookie header row of the node is sent",
    ...echoed,
    nodes: [echoing({ headers: [row("cookie", "other", "fromnode=yes")] })],
    send: [{ msg: { payload: "p" } }],
    expect: 1,
  },
  {
    name: "Set-Cookie lines become msg.responseCookies (attributes by name, the value decoded)",
    echo: true,
    compare: ["payload", "statusCode", "responseCookies", "headers.set-cookie"],
    nodes: [echoing({ url: `${ECHO_URL}/set-cookie` })],
    send: [{ msg: { payload: "p" } }],
    expect: 1,
  },
  {
    name: "a redirect's cookie is in msg.redirectList and sent to the hop after it, with msg.cookies",
    echo: true,
    compare: ["payload", "statusCode", "redirectList", "responseCookies"],
    nodes: [echoing({ url: `${ECHO_URL}/redirect-cookie` })],
    send: [{ msg: { payload: "p", cookies: { mine: "1" } } }],
    expect: 1,
  },
  {
    name: "POST under multipart/form-data: each key a part, {value, options} with its filename and type, others as JSON",
    ...echoed,
    nodes: [echoing({ method: "POST" })],
    send: [
      {
        msg: {
          headers: { "content-type": "multipart/form-data" },
          payload: { text: "hello", bytes: { type: "Buffer", data: [104, 105] }, file: { value: "a,b\n1,2\n", options: { filename: "data.csv", contentType: "text/csv" } }, count: 5, obj: { a: 1 }, skipped: null },
        },
      },
    ],
    expect: 1,
  },
  {
    name: "multipart/form-data with bytes: a Buffer a part of its own, a Buffer value with a filename a file",
    ...echoed,
    nodes: [
      {
        id: "fn",
        type: "function",
        name: "",
        func: 'msg.headers = { "content-type": "multipart/form-data" };\nmsg.payload = { raw: Buffer.from("hi"), upload: { value: Buffer.from("bytes"), options: { filename: "a.bin" } } };\nreturn msg;',
        outputs: 1,
        timeout: 0,
        noerr: 0,
        initialize: "",
        finalize: "",
        libs: [],
        wires: [["req"]],
      },
      echoing({ method: "POST" }),
    ],
    input: "fn",
    send: [{ msg: { payload: "p" } }],
    expect: 1,
  },
  ...[
    ["MD5 with qop auth (a camera's usual challenge)", "/digest"],
    ["SHA-256", "/digest?algorithm=SHA-256"],
    ["SHA-512-256", "/digest?algorithm=SHA-512-256"],
    ["MD5-sess", "/digest?algorithm=MD5-sess"],
    ["without qop (RFC 2069)", "/digest?qop=none"],
    ["qop offering auth-int and auth", "/digest?qop=auth-int,auth"],
  ].map(([what, path]) => ({
    name: `digest authentication answers the server's challenge: ${what}`,
    ...echoed,
    nodes: [echoing({ ...digestNode, url: `${ECHO_URL}${path}` })],
    send: [{ msg: { payload: "p" } }],
    expect: 1,
  })),
  {
    name: "digest authentication of a POST sends its body again with the answer, to a URL with a query",
    ...echoed,
    nodes: [echoing({ ...digestNode, method: "POST", url: `${ECHO_URL}/digest?x=1` })],
    send: [{ msg: { payload: { a: 1 } } }],
    expect: 1,
  },
  {
    name: "digest authentication with a wrong password: the server's refusal is the answer",
    ...echoed,
    nodes: [echoing({ ...digestNode, id: "digest-wrong", url: `${ECHO_URL}/digest`, credentials: { user: "user", password: "wrong" } })],
    send: [{ msg: { payload: "p" } }],
    expect: 1,
  },
  {
    name: "Content-Type multipart/form-data in another case of its name, from the node's header row",
    ...echoed,
    nodes: [echoing({ method: "PUT", headers: [row("Content-Type", "other", "multipart/form-data")] })],
    send: [{ msg: { payload: { field: "v" } } }],
    expect: 1,
  },
];
