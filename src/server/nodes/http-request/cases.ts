/**
 * http request against Node-RED 5.0 when the request itself fails (21-httprequest.js, got's catch
 * branch): a refused connection (127.0.0.1 port 1, where nothing listens) goes to the catch node
 * with msg.error.code, and on out of the node with msg.payload the error and the URL and
 * msg.statusCode the code, unless "Only send non-2xx responses to Catch node" (senderr) is on.
 * Both sides are allowed private addresses here (our server refuses them unless the operator
 * allows them).
 */
import type { DiffCase } from "@/test/node-red-diff/types";

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
];
