/**
 * `flowplane`: the command line for CI/CD and scripts (SPEC §18). Every call goes through a client
 * typed from the OpenAPI document; exit 0 on success, 1 with the API's message, 2 on bad usage.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs, type ParseArgsConfig } from "node:util";
import WebSocket from "ws";
import { ApiFailure, apiClient, unwrap, type ApiClient } from "./client";
import { loadCredentials, saveCredentials } from "./config";
import { inline, terminalSafe } from "./terminal";
import { assertKeyMayGo, sameOriginFetch, TransportRefusal } from "./transport";

export class UsageError extends Error {
  constructor(
    message: string,
    readonly help?: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

export interface Io {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** Resolves when the user interrupts (Ctrl-C): `debug` stops then. */
  interrupted: Promise<void>;
  fetch?: typeof fetch;
}

interface Command {
  usage: string;
  summary: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  positionals: number;
  /** Resolves with the exit status when it is not simply 0 (`agent`: the agent's own). */
  run(args: { values: Record<string, string | boolean | undefined>; positionals: string[] }, io: Io): Promise<void | { exitStatus: number }>;
}

/** Options of every command: --help, and --insecure (send the key over plain http:// to another host). */
const COMMON_OPTIONS = { help: { type: "boolean", short: "h" }, insecure: { type: "boolean" } } as const;

type Values = Record<string, string | boolean | undefined>;

/** --insecure, FLOWPLANE_INSECURE=1, or a login saved with --insecure for the URL in use. */
function insecureChosen(values: Values, io: Io, savedInsecure = false): boolean {
  return values.insecure === true || io.env.FLOWPLANE_INSECURE === "1" || savedInsecure;
}

/** The API, its key sent only to the logged-in origin (transport.ts). */
function keyedClient(url: string, apiKey: string, io: Io): ApiClient {
  return apiClient(url, apiKey, sameOriginFetch(io.fetch ?? fetch));
}

function client(io: Io, values: Values): { api: ApiClient; url: string; apiKey: string; insecure: boolean } {
  const { url, apiKey, insecure: saved } = loadCredentials(io.env);
  if (!url || !apiKey) throw new UsageError("not logged in: run `flowplane login --url <url> --key <service key>`, or set FLOWPLANE_URL and FLOWPLANE_API_KEY");
  const insecure = insecureChosen(values, io, saved);
  assertKeyMayGo(url, { insecure });
  return { api: keyedClient(url, apiKey, io), url, apiKey, insecure };
}

function readFlowsFile(file: string): Array<Record<string, unknown>> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not JSON`);
  }
  if (!Array.isArray(value) || !value.every((n) => n !== null && typeof n === "object" && !Array.isArray(n))) {
    throw new UsageError(`${file} is not a Node-RED flows.json (an array of nodes)`);
  }
  return value as Array<Record<string, unknown>>;
}

const pad = (text: string, width: number) => (text.length >= width ? text : text + " ".repeat(width - text.length));

/** Where `flowplane agent` finds the agent: FLOWPLANE_AGENT_BIN, else `flowplane-agent` on the PATH. */
const AGENT_INSTALL = "npm install -g flowplane-agent (it needs Node.js 22 or later, as Node-RED 5 does)";

const commands: Record<string, Command> = {
  agent: {
    usage: "flowplane agent --url <url> --key <device key> [--dir <dir>] [--http-port <port>]",
    summary: "Run this machine as a device (SPEC §22): launches flowplane-agent, which runs the flows deployed to it in its own Node-RED",
    options: { url: { type: "string" }, key: { type: "string" }, dir: { type: "string" }, "http-port": { type: "string" } },
    positionals: 0,
    async run({ values }, io) {
      const url = (values.url as string | undefined) ?? io.env.FLOWPLANE_URL;
      const key = (values.key as string | undefined) ?? io.env.FLOWPLANE_DEVICE_KEY;
      if (!url) throw new UsageError("--url is required (or FLOWPLANE_URL)");
      if (!/^https?:\/\/[^\s/]+/.test(url)) throw new UsageError(`--url must be an http(s) URL, not ${url}`);
      if (!key?.startsWith("device_")) throw new UsageError("--key must be a device key (device_…), made by an admin under API keys (or FLOWPLANE_DEVICE_KEY)");
      const insecure = insecureChosen(values, io);
      assertKeyMayGo(url, { insecure });
      const args = ["--url", url, "--key", key];
      if (values.dir) args.push("--dir", values.dir as string);
      if (values["http-port"]) args.push("--http-port", values["http-port"] as string);
      if (insecure) args.push("--insecure");
      // The agent carries Node-RED (tens of MB): a package of its own, so this CLI stays small and fast.
      return new Promise<{ exitStatus: number }>((resolve, reject) => {
        const child = spawn(io.env.FLOWPLANE_AGENT_BIN ?? "flowplane-agent", args, { stdio: "inherit", env: io.env });
        child.once("error", (err: NodeJS.ErrnoException) =>
          reject(err.code === "ENOENT" ? new ApiFailure(`flowplane-agent is not installed: ${AGENT_INSTALL}`, 0, "AGENT_NOT_INSTALLED") : err),
        );
        void io.interrupted.then(() => child.kill("SIGTERM"));
        child.once("exit", (code, signal) => resolve({ exitStatus: code ?? (signal ? 0 : 1) }));
      });
    },
  },
  login: {
    usage: "flowplane login --url <url> [--key <key>]",
    summary: "Check a URL and an API key (a service_ key) and save them (else the key is read from FLOWPLANE_API_KEY or stdin)",
    options: { url: { type: "string" }, key: { type: "string" } },
    positionals: 0,
    async run({ values }, io) {
      const url = (values.url as string | undefined) ?? io.env.FLOWPLANE_URL;
      const apiKey = (values.key as string | undefined) ?? io.env.FLOWPLANE_API_KEY ?? (process.stdin.isTTY ? undefined : readFileSync(0, "utf8").trim());
      if (!url) throw new UsageError("--url is required (or FLOWPLANE_URL)");
      if (!/^https?:\/\/[^\s/]+/.test(url)) throw new UsageError(`--url must be an http(s) URL, not ${url}`);
      if (!apiKey) throw new UsageError("--key is required (or FLOWPLANE_API_KEY, or the key on stdin)");
      const insecure = insecureChosen(values, io);
      assertKeyMayGo(url, { insecure });
      const flows = unwrap(await keyedClient(url, apiKey, io).GET("/api/v1/flows"));
      // --insecure is remembered with the URL it was given for, so later commands need not repeat it.
      const file = saveCredentials({ url: url.replace(/\/+$/, ""), apiKey, ...(insecure && !url.startsWith("https:") ? { insecure: true } : {}) }, io.env);
      io.out(`Logged in to ${url} (${flows.flows.length} flows visible); saved to ${file}`);
    },
  },
  "flows list": {
    usage: "flowplane flows list [--json]",
    summary: "The organization's flows: id, state, revision, nodes, name",
    options: { json: { type: "boolean" } },
    positionals: 0,
    async run({ values }, io) {
      const { flows } = unwrap(await client(io, values).api.GET("/api/v1/flows"));
      if (values.json) {
        io.out(JSON.stringify(flows, null, 2));
        return;
      }
      io.out(`${pad("ID", 26)} ${pad("STATE", 13)} ${pad("REV", 5)} ${pad("NODES", 6)} NAME`);
      for (const f of flows) io.out(`${pad(inline(f.id), 26)} ${pad(inline(f.state), 13)} ${pad(String(f.revision), 5)} ${pad(String(f.nodes), 6)} ${inline(f.name)}`);
    },
  },
  "flows pull": {
    usage: "flowplane flows pull <flow id> [--out <file>]",
    summary: "A flow as Node-RED JSON (flows.json), to a file or stdout",
    options: { out: { type: "string", short: "o" } },
    positionals: 1,
    async run({ values, positionals }, io) {
      const nodes = unwrap(await client(io, values).api.GET("/api/v1/flows/{id}/export", { params: { path: { id: positionals[0]! } } }));
      const text = `${JSON.stringify(nodes, null, 2)}\n`;
      if (values.out) {
        writeFileSync(values.out as string, text);
        io.err(`wrote ${values.out} (${nodes.length - 1} nodes)`);
      } else io.out(text.trimEnd());
    },
  },
  "flows push": {
    usage: "flowplane flows push <file> [--id <flow id>] [--revision <n>] [--deploy]",
    summary:
      "Create or update a flow from Node-RED JSON: with --id (or when the file's one tab is the id of an existing flow, as `pull` writes it) that flow is replaced in place; otherwise the file is imported as new flows",
    options: { id: { type: "string" }, revision: { type: "string" }, deploy: { type: "boolean" } },
    positionals: 1,
    async run({ values, positionals }, io) {
      const flows = readFlowsFile(positionals[0]!);
      const { api } = client(io, values);
      let revision: number | undefined;
      if (values.revision !== undefined) {
        revision = Number(values.revision);
        if (!Number.isInteger(revision) || revision < 1) throw new UsageError("--revision must be a whole number of at least 1");
      }
      const tabs = flows.filter((n) => n.type === "tab");
      let id = values.id as string | undefined;
      if (!id && tabs.length === 1 && typeof tabs[0]!.id === "string" && tabs[0]!.id.startsWith("flw_")) {
        const existing = await api.GET("/api/v1/flows/{id}", { params: { path: { id: tabs[0]!.id } } });
        if (existing.response.ok) id = tabs[0]!.id;
        else if (existing.response.status !== 404) unwrap(existing);
      }
      const pushed: Array<{ id: string; name: string; revision: number }> = [];
      if (id) {
        const result = unwrap(await api.PUT("/api/v1/flows/{id}/export", { params: { path: { id } }, body: { flows, revision } }));
        for (const w of result.warnings) io.err(`warning: ${inline(w)}`);
        pushed.push(result.flow);
        io.out(`updated ${inline(result.flow.id)} "${inline(result.flow.name)}" to revision ${result.flow.revision}`);
      } else {
        const result = unwrap(await api.POST("/api/v1/flows/import", { body: { flows } }));
        for (const w of result.warnings) io.err(`warning: ${inline(w)}`);
        // Without dry_run the API answers the flows it created (a dry run answers a report instead).
        if (!("flows" in result)) throw new ApiFailure("the server answered a dry-run report to an import", 0);
        for (const f of result.flows) {
          pushed.push(f);
          io.out(`created ${inline(f.id)} "${inline(f.name)}" (revision ${f.revision})`);
        }
      }
      if (values.deploy) {
        for (const f of pushed) {
          const { deployment } = unwrap(await api.POST("/api/v1/flows/{id}/deploy", { params: { path: { id: f.id } }, body: {} }));
          io.out(`deployed ${inline(f.id)} revision ${deployment.revision}: ${inline(deployment.state)}`);
        }
      }
    },
  },
  "flows deploy": {
    usage: "flowplane flows deploy <flow id>",
    summary: "Deploy a flow's current revision; answers once it is in effect",
    options: {},
    positionals: 1,
    async run({ values, positionals }, io) {
      const { deployment } = unwrap(await client(io, values).api.POST("/api/v1/flows/{id}/deploy", { params: { path: { id: positionals[0]! } }, body: {} }));
      io.out(`deployed ${inline(deployment.flow_id)} revision ${deployment.revision}: ${inline(deployment.state)} (deployment ${inline(deployment.id)})`);
    },
  },
  inject: {
    usage: "flowplane inject <node id> [--payload <json>] [--topic <topic>]",
    summary: "Send a message from an inject node of a running flow (the payload is JSON; a bare word is taken as a string)",
    options: { payload: { type: "string" }, topic: { type: "string" } },
    positionals: 1,
    async run({ values, positionals }, io) {
      let payload: unknown;
      if (values.payload !== undefined) {
        try {
          payload = JSON.parse(values.payload as string);
        } catch {
          payload = values.payload;
        }
      }
      const body = { ...(payload !== undefined ? { payload } : {}), ...(values.topic !== undefined ? { topic: values.topic as string } : {}) };
      const result = unwrap(await client(io, values).api.POST("/api/v1/nodes/{nodeId}/inject", { params: { path: { nodeId: positionals[0]! } }, body }));
      io.out(`injected ${inline(result.message_id)} from ${inline(result.node_id)} (flow ${inline(result.flow_id)})`);
    },
  },
  debug: {
    usage: "flowplane debug [--flow <flow id>] [--count <n>]",
    summary: "Stream debug messages as JSON lines until Ctrl-C (or until --count messages)",
    options: { flow: { type: "string" }, count: { type: "string" } },
    positionals: 0,
    async run({ values }, io) {
      const { url, apiKey, insecure } = client(io, values);
      let remaining = Infinity;
      if (values.count !== undefined) {
        remaining = Number(values.count);
        if (!Number.isInteger(remaining) || remaining < 1) throw new UsageError("--count must be a whole number of at least 1");
      }
      const wsUrl = `${url.replace(/^http/, "ws")}/ws`;
      assertKeyMayGo(wsUrl, { insecure });
      await new Promise<void>((resolve, reject) => {
        // ws follows no redirect (followRedirects is off): the key goes to this URL only.
        const socket = new WebSocket(wsUrl, { headers: { "X-API-Key": apiKey }, followRedirects: false });
        let done = false;
        const finish = (err?: Error) => {
          if (done) return;
          done = true;
          socket.close(1000);
          if (err) reject(err);
          else resolve();
        };
        void io.interrupted.then(() => finish());
        socket.on("unexpected-response", (_req, res) => finish(new ApiFailure(`the WebSocket upgrade was answered ${res.statusCode}`, res.statusCode ?? 0)));
        socket.on("error", (err) => finish(new ApiFailure(`WebSocket: ${err.message}`, 0)));
        socket.on("close", (code, reason) => {
          if (!done) finish(code === 1000 ? undefined : new ApiFailure(`the server closed the stream (${code}${reason.length ? ` ${inline(reason.toString())}` : ""})`, 0, reason.toString() || undefined));
        });
        socket.on("message", (data) => {
          let frame: { type?: string; topic?: string; flow_id?: string; data?: Record<string, unknown>; ts?: string; code?: string; message?: string };
          try {
            frame = JSON.parse(String(data)) as typeof frame;
          } catch {
            return;
          }
          if (frame.type === "ready") {
            socket.send(JSON.stringify({ type: "subscribe", topics: ["debug"], ...(values.flow ? { flow_id: values.flow } : {}) }));
          } else if (frame.type === "subscribed") {
            io.err(`listening for debug messages${values.flow ? ` of ${inline(values.flow)}` : ""} (Ctrl-C to stop)`);
          } else if (frame.type === "error") {
            finish(new ApiFailure(frame.message ?? "the server refused a frame", 0, frame.code));
          } else if (frame.type === "event" && frame.topic === "debug") {
            io.out(JSON.stringify({ ts: frame.ts, flow_id: frame.flow_id, ...frame.data }));
            if (--remaining <= 0) finish();
          }
        });
      });
    },
  },
};

function commandHelp(name: string, command: Command): string {
  const options = Object.keys(command.options);
  return `${command.usage}\n\n${command.summary}.${options.length ? `\n\nOptions: ${options.map((o) => `--${o}`).join(", ")}, --insecure, --help` : "\n\nOptions: --insecure, --help"}`;
}

export function mainHelp(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${pad(name, 14)} ${c.summary.split(":")[0]!.split(" (")[0]}`);
  return [
    "flowplane: Flowplane from the command line (flows kept as Node-RED JSON, deployed from CI)",
    "",
    "Usage: flowplane <command> [options]",
    "",
    ...lines,
    "",
    "Credentials: `flowplane login`, or FLOWPLANE_URL and FLOWPLANE_API_KEY (they win over the saved login).",
    "The key goes only to https://, or to http:// on this machine; --insecure (or FLOWPLANE_INSECURE=1) sends it",
    "over plain http:// to another host. A redirect to another origin is refused: the key never follows it.",
    "Exit status: 0 success, 1 the API refused (its message is printed), 2 bad usage.",
    "`flowplane <command> --help` describes a command.",
  ].join("\n");
}

/** Runs one command line; returns the exit status. */
export async function run(argv: string[], terminal: Io): Promise<number> {
  // Every line goes out through terminalSafe, whoever built it (terminal.ts); JSON stays JSON.
  const io: Io = { ...terminal, out: (text) => terminal.out(terminalSafe(text)), err: (text) => terminal.err(terminalSafe(text)) };
  const [first, second] = argv;
  if (!first || first === "--help" || first === "-h" || first === "help") {
    io.out(mainHelp());
    return first ? 0 : 2;
  }
  const name = commands[`${first} ${second}`] ? `${first} ${second}` : first;
  const command = commands[name];
  if (!command) {
    io.err(`flowplane: unknown command "${inline(name === first && first === "flows" && second ? `${first} ${second}` : first)}"\n\n${mainHelp()}`);
    return 2;
  }
  const rest = argv.slice(name.split(" ").length);
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: { ...command.options, ...COMMON_OPTIONS }, allowPositionals: true, strict: true });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (parsed.values.help) {
      io.out(commandHelp(name, command));
      return 0;
    }
    if (parsed.positionals.length !== command.positionals) {
      throw new UsageError(command.positionals === 0 ? `${name} takes no arguments` : `${name} needs ${command.positionals} argument${command.positionals > 1 ? "s" : ""}`);
    }
    const status = await command.run({ values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals }, io);
    return status ? status.exitStatus : 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`flowplane ${name}: ${inline(err.message)}\n\nUsage: ${command.usage}`);
      return 2;
    }
    if (err instanceof TransportRefusal) {
      io.err(`flowplane ${name}: ${inline(err.message)}`);
      return 2;
    }
    if (err instanceof ApiFailure) {
      io.err(`flowplane ${name}: ${inline(err.message)}${err.code ? ` (${inline(err.code)})` : ""}`);
      return 1;
    }
    io.err(`flowplane ${name}: ${inline(err instanceof Error && "cause" in err && err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : String((err as Error)?.message ?? err))}`);
    return 1;
  }
}
