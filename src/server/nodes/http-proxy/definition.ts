import { z } from "zod";
import { defineNode } from "../types";

const HELP = `Configuration options for an HTTP proxy: HTTP request nodes that name it in their *Proxy*
property send their requests through it.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- **URL**: the proxy, \`http://proxy.example.com:3128\` (or \`https://…\`).
- **Ignore hosts**: requests to these hosts go direct, without the proxy (a host name, or
  \`.example.com\` for every host under it).
- **Username** and **Password**: the proxy's own authentication (\`Proxy-Authorization: Basic\`).
  They are credentials: stored encrypted, never shown again once saved, left out of exports, and
  may be \`\${NAME}\` (a secret variable).

### Differences from Node-RED

- The proxy is reached from the shared runtime, so the operator's rules on private, loopback and
  link-local addresses apply to the proxy's address too.
- Node-RED's \`http_proxy\` / \`no_proxy\` environment variables of the server are not used: a
  node uses a proxy only when it names one.`;

export const httpProxyConfig = z.object({
  url: z
    .string()
    .trim()
    .max(4096)
    .refine((v) => v === "" || /^https?:\/\/[^\s]+$/i.test(v), "must be an http:// or https:// URL")
    .default("")
    .meta({ title: "URL", description: "The proxy, e.g. http://proxy.example.com:3128" }),
  noproxy: z
    .array(z.string().trim().min(1).max(253))
    .max(200)
    .default([])
    .meta({ title: "Ignore hosts", description: "Hosts reached directly, without the proxy (.example.com: every host under it)" }),
});

export const httpProxyNode = defineNode({
  type: "http-proxy",
  version: 1,
  category: "config",
  kind: "config",
  name: "HTTP proxy",
  description: "A proxy that HTTP request nodes send their requests through.",
  help: HELP,
  inputs: 0,
  outputs: 0,
  configSchema: httpProxyConfig,
  credentials: {
    username: { type: "text", title: "Username", description: "May be ${NAME}" },
    password: { type: "password", title: "Password", description: "May be ${NAME}: a secret variable" },
  },
  nodeRed: {
    type: "http proxy",
    toNodeRed: (c) => ({ url: c.url, noproxy: c.noproxy }),
    fromNodeRed: (p) => ({
      url: typeof p.url === "string" ? p.url.trim() : "",
      noproxy: (Array.isArray(p.noproxy) ? p.noproxy : []).filter((h): h is string => typeof h === "string" && h.trim() !== "").map((h) => h.trim()),
    }),
  },
});
