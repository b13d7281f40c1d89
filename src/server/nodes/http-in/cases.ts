/**
 * Differential cases for http in's routes (SPEC §23): Node-RED 5.0.7 serves them with Express 4.22
 * (path-to-regexp 0.1.13: parameters, a parameter's own regular expression, case ignored, a
 * trailing slash allowed). Each case serves one route with http in → change (payload = the route's
 * parameters) → http response, and requests reach it over HTTP on each side (`requests`: Node-RED's
 * server at its root, ours at /hooks/{slug}); what is compared is each answer's status, content
 * type and body.
 */
import type { DiffCase, DiffRequest } from "@/test/node-red-diff/types";

/** http in (url) → payload = msg.req.params → http response. */
function route(url: string, method = "get") {
  return [
    { id: "in", type: "http in", url, method, upload: false, swaggerDoc: "", wires: [["params"]] },
    { id: "params", type: "change", rules: [{ t: "set", p: "payload", pt: "msg", to: "req.params", tot: "msg" }], wires: [["res"]] },
    { id: "res", type: "http response", statusCode: "", headers: {}, wires: [] },
  ];
}

const get = (...paths: string[]): DiffRequest[] => paths.map((path) => ({ method: "GET", path }));

export const cases: DiffCase[] = [
  {
    name: "a named parameter is one segment, whatever the case of the rest, with or without a trailing slash",
    nodes: route("/Hello/:name"),
    send: [],
    requests: get("/hello/Nick", "/HELLO/nick", "/Hello/Nick/", "/hello/Ni%20ck", "/hello/a/b", "/hello"),
  },
  {
    name: "a parameter's own regular expression takes only what it matches",
    nodes: route("/user/:id(\\d+)"),
    send: [],
    requests: get("/user/42", "/USER/7/", "/user/abc", "/user/42x"),
  },
  {
    name: "a fixed path matches whatever the case, with or without a trailing slash",
    nodes: route("/Plain/Path"),
    send: [],
    requests: get("/plain/path", "/PLAIN/PATH/", "/Plain/Path", "/plain/pat"),
  },
  {
    name: "two parameters in one segment split at the text between them",
    nodes: route("/flights/:from-:to"),
    send: [],
    requests: get("/flights/LAX-SFO", "/flights/LAX", "/Flights/a-b-c"),
  },
  {
    name: "an optional parameter, with its slash",
    nodes: route("/users/:id?"),
    send: [],
    requests: get("/users", "/users/", "/users/7", "/users/7/8"),
  },
  {
    name: "a star matches the rest of the path, as parameter 0",
    nodes: route("/files/*"),
    send: [],
    requests: get("/files/a/b.txt", "/files/", "/FILES/x"),
  },
  {
    name: "a dotted format parameter and a parameter with a star",
    nodes: [...route("/report.:format"), ...route("/docs/:path*").map((n) => ({ ...n, id: `${n.id}2`, wires: n.wires.map((port) => port.map((t) => `${t}2`)) }))],
    send: [],
    requests: get("/report.json", "/report.", "/docs/a", "/docs/a/b/c"),
  },
  {
    name: "a regular expression with an alternation and a class, ignoring case",
    nodes: route("/colour/:c(red|gr[ae]y)"),
    send: [],
    requests: get("/colour/red", "/colour/GREY", "/colour/gray", "/colour/blue"),
  },
  {
    name: "a request body arrives as Node-RED's parsers give it: JSON and forms parsed, text and XML as text, other types as a Buffer",
    nodes: [
      { id: "in", type: "http in", url: "/body", method: "post", upload: false, swaggerDoc: "", wires: [["res"]] },
      { id: "res", type: "http response", statusCode: "", headers: {}, wires: [] },
    ],
    send: [],
    requests: (
      [
        ["application/json", '{"a":1,"b":[true,null]}'],
        ["application/json; charset=utf-8", ""],
        ["application/x-www-form-urlencoded", "a=1&b=two%20words"],
        ["application/x-www-form-urlencoded", "a=1&a=2&b[c]=3&d[]=x&d[]=y&e[0][f]=g&__proto__[p]=1&toString=t"],
        ["text/plain", "plain text"],
        ["application/xml", "<a>1</a>"],
        ["image/svg+xml", "<svg/>"],
        ["application/javascript", "let a = 1;"],
        ["application/vnd.api+json", '{"a":1}'],
        ["application/octet-stream", "raw bytes"],
        ["application/cbor", "cbor"],
        ["image/png", "not really a png"],
        ["multipart/form-data; boundary=b", '--b\r\ncontent-disposition: form-data; name="a"\r\n\r\n1\r\n--b--\r\n'],
      ] as const
    ).map(([type, body]): DiffRequest => ({ method: "post", path: "/body", body, headers: { "content-type": type } })),
  },
  {
    // Ours leaves out the credential headers (Authorization, Cookie…) on purpose; these are plain ones.
    name: "msg.req.headers are the request's, named in lower case, in the order they came, and msg.req.query its query",
    nodes: [
      { id: "in", type: "http in", url: "/hdr", method: "post", upload: false, swaggerDoc: "", wires: [["fn"]] },
      {
        id: "fn",
        type: "function",
        func: "msg.payload = { headers: Object.keys(msg.req.headers).filter((k) => k.startsWith('x-') || k === 'content-type').map((k) => k + '=' + msg.req.headers[k]), query: msg.req.query }; return msg;",
        outputs: 1,
        noerr: 0,
        initialize: "",
        finalize: "",
        libs: [],
        wires: [["res"]],
      },
      { id: "res", type: "http response", statusCode: "", headers: {}, wires: [] },
    ],
    send: [],
    requests: [
      { method: "post", path: "/hdr?b=2&a=1&a=3&c&d[e]=f&g[]=x&g[]=y&toString=t&__proto__[p]=1", body: "{}", headers: { "X-Zeta": "z", "content-type": "application/json", "X-Alpha": "a", "x-mixed-Case": "m" } },
      { method: "post", path: "/hdr?q=x%20y", body: "{}", headers: { "x-b": "1", "x-a": "2", "content-type": "application/json" } },
      // Past qs's default of 20 array items, within Express's 1,000; an index past 1,000 makes an object.
      { method: "post", path: `/hdr?${Array.from({ length: 25 }, (_, i) => `id=${i}`).join("&")}&s[25]=x&s[0]=y&o[1001]=z`, body: "{}", headers: { "content-type": "application/json" } },
    ],
  },
];
