import { z } from "zod";
import { defineNode } from "../types";

const HELP = `Configuration options for TLS connections: the client certificate and key a node presents,
the certificate authorities it trusts, and how the server's certificate is checked. Nodes that open
connections (HTTP request, the MQTT broker, websocket client and TCP nodes) name one in their *TLS
configuration* property.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- **Certificate**, **Private key** and **CA certificate** are given inline, in PEM form
  (\`-----BEGIN CERTIFICATE-----\` …). They are credentials: stored encrypted, never shown again
  once saved (the form says whether one is set), and left out of exports. Each may be
  \`\${NAME}\`: a secret variable of the organization holding the PEM text.
- A certificate needs its key, and a key its certificate.
- **Passphrase**: the private key's passphrase, when it has one.
- **Verify server certificate**: when off, a server certificate that does not chain to a trusted
  authority or does not match the host is accepted. Leave it on outside tests.
- **Server name**: the name sent for SNI and checked against the certificate, when it differs
  from the host of the URL.
- **ALPN protocol**: the application protocol offered during the handshake (\`h2\`, \`mqtt\` …).

### Differences from Node-RED

- Certificate files on the server's disk are not read in the shared runtime: give the PEM inline.
  A Node-RED flow that names files (\`cert\`, \`key\`, \`ca\` paths) imports with the paths kept
  for export, and the import report says the files are not read; paste their content here.
- PKCS#12 bundles and certificates taken from environment variables (Node-RED 5's
  \`certType\`) are not offered; a secret variable written as \`\${NAME}\` does the same.`;

const path = (title: string) =>
  z.string().max(4096).default("").meta({ title, description: "A file path on the server, kept from a Node-RED import; not read in the shared runtime (give the PEM inline)" });
const fileName = (title: string) => z.string().max(200).default("").meta({ title, description: "The name of the file the PEM was taken from, shown beside it" });

export const tlsConfigConfig = z.object({
  cert: path("Certificate file"),
  key: path("Private key file"),
  ca: path("CA certificate file"),
  certname: fileName("Certificate file name"),
  keyname: fileName("Private key file name"),
  caname: fileName("CA certificate file name"),
  servername: z.string().max(253).default("").meta({ title: "Server name", description: "For SNI and the certificate check, when it differs from the host" }),
  verifyservercert: z.boolean().default(true).meta({ title: "Verify server certificate" }),
  alpnprotocol: z.string().max(255).default("").meta({ title: "ALPN protocol", description: "Offered during the handshake, e.g. h2 or mqtt" }),
});

const text = (p: Record<string, unknown>, key: string) => (typeof p[key] === "string" ? (p[key] as string).trim() : "");

export const tlsConfigNode = defineNode({
  type: "tls-config",
  version: 1,
  category: "config",
  kind: "config",
  name: "TLS configuration",
  description: "A client certificate and key, trusted authorities and server checks, for nodes that open TLS connections.",
  help: HELP,
  inputs: 0,
  outputs: 0,
  configSchema: tlsConfigConfig,
  credentials: {
    certdata: { type: "pem", title: "Certificate", description: "PEM; may be ${NAME}" },
    keydata: { type: "pem", title: "Private key", description: "PEM; may be ${NAME}" },
    cadata: { type: "pem", title: "CA certificate", description: "PEM; may be ${NAME}" },
    passphrase: { type: "password", title: "Passphrase", description: "The private key's passphrase" },
  },
  nodeRed: {
    type: "tls-config",
    toNodeRed: (c) => ({
      cert: c.cert,
      key: c.key,
      ca: c.ca,
      certname: c.certname,
      keyname: c.keyname,
      caname: c.caname,
      servername: c.servername,
      verifyservercert: c.verifyservercert,
      alpnprotocol: c.alpnprotocol,
    }),
    fromNodeRed: (p) => ({
      cert: text(p, "cert"),
      key: text(p, "key"),
      ca: text(p, "ca"),
      certname: text(p, "certname"),
      keyname: text(p, "keyname"),
      caname: text(p, "caname"),
      servername: text(p, "servername"),
      // Node-RED's default is true; only an explicit false turns the check off.
      verifyservercert: p.verifyservercert !== false && p.verifyservercert !== "false",
      alpnprotocol: text(p, "alpnprotocol"),
    }),
  },
});
