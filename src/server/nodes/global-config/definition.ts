import { z } from "zod";
import { defineNode } from "../types";

const HELP = `Holds the organization's global environment variables, as Node-RED's global-config node holds
the ones set under *User Settings → Environment*: every flow of the organization reads them with
\`env.get(NAME)\`, \`\${NAME}\` and the \`env\` operand type.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

Each entry has a **name**, a **type** and a **value**. The type says how the value is read:
\`str\` (text), \`num\` (a number), \`bool\` (true or false), \`json\` (parsed JSON), \`bin\` (a buffer
from a JSON array of bytes), \`env\` (the value of another variable, by name) and \`jsonata\` (an
expression, evaluated once when the flow starts).

A flow's own variables, and a tab's env, take precedence over these.

Only admins and owners of the organization may change it, as for variables (Settings → Variables).

### Differences from Node-RED

- A \`cred\` entry holds no value here: keep the secret as a *secret variable* of the organization
  (Settings → Variables) and name it with an \`env\` entry, or read it with \`\${NAME}\`. An imported
  \`cred\` entry is kept, without its value, so the export writes it back.
- \`modules\` (the modules Node-RED's function nodes may load) is kept from an import for export;
  the shared runtime loads no extra modules.`;

const envEntry = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/, "must be a variable name (letters, digits and _, not starting with a digit)")
      .meta({ title: "Name" }),
    type: z.enum(["str", "num", "bool", "json", "bin", "env", "cred", "jsonata"]).default("str").meta({ title: "Type" }),
    value: z.string().max(65_536).default("").meta({ title: "Value" }),
  })
  .refine((e) => e.type !== "cred" || e.value === "", { message: "a cred entry holds no value here: use a secret variable and an env entry", path: ["value"] });

export const globalConfigConfig = z.object({
  env: z
    .array(envEntry)
    .max(500)
    .default([])
    .refine((list) => new Set(list.map((e) => e.name)).size === list.length, "each name once")
    .meta({ title: "Environment variables", description: "Read by every flow of the organization" }),
  modules: z.record(z.string().max(214), z.string().max(256)).default({}).meta({ title: "Modules", description: "Node-RED's module list, kept for export" }),
});

function envFromNodeRed(value: unknown) {
  return (Array.isArray(value) ? value : [])
    .filter((e): e is Record<string, unknown> => !!e && typeof e === "object" && typeof (e as Record<string, unknown>).name === "string")
    .map((e) => {
      const type = typeof e.type === "string" ? e.type : "str";
      return {
        name: e.name as string,
        type,
        // Node-RED keeps a cred entry's value in the node's credentials, which an export leaves out.
        value: type === "cred" ? "" : typeof e.value === "string" ? e.value : e.value === undefined ? "" : JSON.stringify(e.value),
      };
    });
}

export const globalConfigNode = defineNode({
  type: "global-config",
  version: 1,
  category: "config",
  kind: "config",
  name: "Global configuration",
  description: "The organization's global environment variables (Node-RED's global-config).",
  help: HELP,
  inputs: 0,
  outputs: 0,
  configSchema: globalConfigConfig,
  nodeRed: {
    type: "global-config",
    toNodeRed: (c) => ({ env: c.env.map((e) => ({ name: e.name, value: e.value, type: e.type })), modules: c.modules }),
    fromNodeRed: (p) => ({
      env: envFromNodeRed(p.env),
      modules: p.modules && typeof p.modules === "object" && !Array.isArray(p.modules) ? p.modules : {},
    }),
  },
});
