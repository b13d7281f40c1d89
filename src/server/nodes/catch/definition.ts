import { z } from "zod";
import { defineNode } from "../types";
import { nodeIdSchema } from "../../../shared/flow-graph";

export const catchConfig = z.object({
  scope: z
    .array(nodeIdSchema)
    .max(500)
    .nullable()
    .default(null)
    .meta({ title: "Catch errors from", description: "The nodes whose errors this node catches; empty (null): every node of the flow." }),
  uncaught: z
    .boolean()
    .default(false)
    .meta({ title: "Ignore errors handled by other catch nodes", description: "Catch only the errors that no other catch node of the flow has caught (uncaught only)." }),
});

export const catchNode = defineNode({
  type: "catch",
  version: 1,
  category: "common",
  name: "Catch",
  description: "Starts a message when a node of the flow fails on a message: the message, with msg.error = {message, source: {id, type, name, count}} (and code, cause when the error has them).",
  help: `Catches errors thrown by nodes of the same flow.

### Inputs

None: a message starts each time a node in its scope fails on a message.

### Outputs

The message the node failed on, and:

- \`error.message\` (string): the error message (an error object's text, as \`Error: …\`).
- \`error.source.id\` (string): the id of the node that threw the error.
- \`error.source.type\` (string): the type of the node that threw the error, as Node-RED names it (\`link call\` for a link-call node), so flows written for Node-RED can test it.
- \`error.source.name\` (string): the name of the node that threw the error (left out when it has none).
- \`error.source.count\` (number): how many times in a row this message failed at that node.
- \`error.code\` (string | number, when the error has one): its code, e.g. \`ECONNREFUSED\` or
  \`ETIMEDOUT\` from an HTTP request.
- \`error.cause\` (object, when the error has one): what caused it, e.g. the socket error behind a
  failed HTTP request (\`{errno, code, syscall, port}\`); only data of at most 4 KiB is carried.

### Details

If a node throws an error whilst handling a message, the flow will typically halt. This node can be used to catch those errors and handle them with a dedicated flow.

By default, the node catches errors thrown by any node of the flow. Alternatively it can be targeted at specific nodes, or set to only catch errors that have not already been caught by another catch node ("uncaught only"): catch nodes with selected nodes come first, then those for all nodes, then the "uncaught only" ones, which get an error only when none before them did.

When an error is thrown, all matching catch nodes receive the message. If the message already has an \`error\` property, it is copied to \`_error\`. A message that keeps failing at the same node is no longer caught at its tenth time round (an error loop), and a warning says so.

### Differences from Node-RED

\`msg.error\` never carries a \`stack\`: Node-RED adds an error's stack trace, which would show the server's files to every flow of a shared runtime.

A Node-RED flow whose catch node's scope is *group* (the nodes of its group and of the groups inside it) imports with that scope as the list of those nodes at import, which the import's warnings say; nodes added to the group later are not in it (select them in the scope). In no group, *group* covers the whole flow, as in Node-RED.`,
  inputs: 0,
  outputs: 1,
  configSchema: catchConfig,
  roles: { catch: (c) => ({ scope: c.scope, uncaught: c.uncaught }) },
  nodeRed: {
    type: "catch",
    references: ["scope"],
    toNodeRed: (c) => ({ scope: c.scope, uncaught: c.uncaught }),
    // "group" (Node-RED's scope for the catch node's group) reaches here only outside an import
    // (which makes it the group's nodes: expandGroupScopes); the schema refuses it.
    fromNodeRed: (p) => ({ scope: p.scope === undefined ? null : p.scope, uncaught: p.uncaught === true }),
  },
});
