import type { ConfigNodeSnapshot } from "../../shared/config-nodes";
import { ConnectionPool, type ConnectionKind, type ConnectionLease } from "./connections";
import { typedEnvValue } from "./env-values";
import type { ConfigNodeHandle, RuntimeNode, RuntimeServices, SharedContextStore, VariableResolver } from "./types";
import { hostAllowed } from "../../shared/allowed-hosts";
import { SecretHostError, type GlobalEnv } from "./variables";
import { resolveVariableNumbers, variableNumberFields } from "./number-or-variable";

/**
 * Configuration nodes as running flows use them (SPEC §19). A flow's deployment carries the
 * configuration nodes it uses (FlowSpec.configNodes); when the flow starts they are prepared
 * before its nodes, as Node-RED starts configuration nodes first: the config parsed by the type's
 * schema, the sealed credentials opened (RuntimeServices.openCredential: the runtime never holds the
 * key), and the organization's global-config env evaluated. A behaviour reaches one through
 * `ctx.configNode(id, type)`; the connections they hold are shared per instance through the
 * engine's ConnectionPool, and a flow's leases are released when it stops.
 *
 * Nothing here reads the database: a rollback runs the configuration nodes it was deployed with.
 */

/** The type of the configuration node whose env every flow of the organization reads (Node-RED 3.1's). */
export const GLOBAL_CONFIG_TYPE = "global-config";

export interface ConfigNodeHostOptions {
  /** The schema of a configuration node type; undefined for a type this server does not have (or that is not a configuration node). */
  schemaOf?: (type: string) => { parse(value: unknown): unknown } | undefined;
  openCredential?: RuntimeServices["openCredential"];
  pool?: ConnectionPool;
}

interface Prepared {
  snapshot: ConfigNodeSnapshot;
  config: Record<string, unknown>;
  /** Opened credential values (may still hold ${NAME}). */
  credentials: Record<string, string>;
  /** The type's number-or-variable fields (runtime/number-or-variable.ts): a `${NAME}` there is read as a number. */
  numbers: ReturnType<typeof variableNumberFields>;
}

interface PrepareInput {
  organizationId: string;
  flowId: string;
  configNodes?: Record<string, ConfigNodeSnapshot>;
  /** The resolver a configuration node's ${NAME} uses (the flow's variables with the global env layered in). */
  variables(node: RuntimeNode, globalEnv: GlobalEnv | undefined): VariableResolver;
  /** The flow's and the organization's context (jsonata env entries read them). */
  context: { flow: SharedContextStore; global: SharedContextStore };
  /** A problem of the flow's configuration nodes that no node reported yet (a jsonata env entry that fails). */
  onWarning(message: string): void;
}

/**
 * The engine's side of configuration nodes: one per engine, holding the instance's connection pool.
 */
export class ConfigNodeHost {
  readonly pool: ConnectionPool;

  constructor(private readonly options: ConfigNodeHostOptions = {}) {
    this.pool = options.pool ?? new ConnectionPool();
  }

  async prepare(input: PrepareInput): Promise<FlowConfigNodes> {
    const prepared = new Map<string, Prepared | { error: string; type: string }>();
    for (const [id, snapshot] of Object.entries(input.configNodes ?? {})) {
      prepared.set(id, await this.prepareOne(input.organizationId, id, snapshot));
    }
    let globalEnv: GlobalEnv | undefined;
    const globals = [...prepared.values()].filter((p): p is Prepared => "snapshot" in p && p.snapshot.type === GLOBAL_CONFIG_TYPE);
    if (globals.length > 0) {
      // One per organization in practice; if a deployment carries several, the one named last (by id) wins, deterministically.
      globals.sort((a, b) => (a.snapshot.id < b.snapshot.id ? -1 : 1));
      const entries = globals.flatMap((g) => envEntries(g.config.env));
      globalEnv = await evaluateGlobalEnv(entries, input.context, input.onWarning);
    }
    return new FlowConfigNodes(this.pool, input, prepared, globalEnv);
  }

  private async prepareOne(organizationId: string, id: string, snapshot: ConfigNodeSnapshot): Promise<Prepared | { error: string; type: string }> {
    const type = snapshot.type;
    const schema = this.options.schemaOf?.(type);
    if (!schema) return { type, error: `configuration node ${id} is of type ${type}, which this server does not have` };
    let config: Record<string, unknown>;
    try {
      config = schema.parse(snapshot.config ?? {}) as Record<string, unknown>;
    } catch {
      return { type, error: `configuration node ${id} (${type}) has a configuration its type refuses` };
    }
    const credentials: Record<string, string> = {};
    for (const [name, sealed] of Object.entries(snapshot.sealed_credentials ?? {})) {
      if (!this.options.openCredential) return { type, error: `configuration node ${id} (${type}): credentials cannot be opened on this server` };
      try {
        credentials[name] = await this.options.openCredential(sealed, { organizationId, configNodeId: id, name });
      } catch {
        // The reason (a rotated key, tampering) is the operator's; the value never appears in it.
        return { type, error: `configuration node ${id} (${type}): its credential "${name}" could not be opened` };
      }
    }
    return { snapshot, config, credentials, numbers: variableNumberFields(schema) };
  }
}

/**
 * The configuration nodes of one running flow: handles for its nodes, the global env its variables
 * layer in, and the connection leases its nodes took (released when it stops).
 */
export class FlowConfigNodes {
  private readonly leases = new Set<ConnectionLease<unknown>>();
  private readonly resolvers = new Map<string, VariableResolver>();
  /** Problems said once per flow start (a restricted secret in a credential is read at every use). */
  private readonly warned = new Set<string>();
  private stopped = false;

  constructor(
    private readonly pool: ConnectionPool,
    private readonly input: PrepareInput,
    private readonly prepared: Map<string, Prepared | { error: string; type: string }>,
    /** global-config's env (Node-RED 3.1+), when the deployment carries one. */
    readonly globalEnv: GlobalEnv | undefined,
  ) {}

  /**
   * The handle of configuration node `id` for a node that expects `type`; undefined with the
   * reason (to be reported as the node's error) when the deployment has no such node, it is of
   * another type, or it could not be prepared.
   */
  handle<C extends Record<string, unknown>>(id: string, type: string): { handle: ConfigNodeHandle<C> } | { error: string } {
    const found = this.prepared.get(id);
    if (!found) return { error: `configuration node ${id} (${type}) is not part of this deployment` };
    if ("error" in found) return { error: found.error };
    if (found.snapshot.type !== type) return { error: `configuration node ${id} is a ${found.snapshot.type}, not a ${type}` };
    const { snapshot } = found;
    const env = () => {
      let resolver = this.resolvers.get(id);
      if (!resolver) this.resolvers.set(id, (resolver = this.input.variables({ id, type: snapshot.type, name: snapshot.name, config: {} }, this.globalEnv)));
      return resolver;
    };
    const organizationId = this.input.organizationId;
    const warnOnce = (message: string) => {
      if (this.warned.has(message)) return;
      this.warned.add(message);
      this.input.onWarning(message);
    };
    const lease = <T>(key: Parameters<ConnectionPool["acquire"]>[0], open: ConnectionKind<T>) => this.lease(key, open);
    /**
     * The credentials, for a connection to `host` when one is given. A secret with allowed hosts
     * (SPEC §14) resolves only for a host it allows; else it reads as empty and is the flow's error
     * (once), never the value. Not a throw: credentials are read inside connection event handlers
     * too (an MQTT reconnect).
     */
    const readCredentials = (host: string | null) => {
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(found.credentials)) {
        const restricted = new Map<string, readonly string[]>();
        try {
          const resolved = env().substitute(value, host === null ? { credential: true } : { credential: true, restricted });
          const refused = [...restricted].find(([, hosts]) => !hostAllowed(host ?? "", hosts));
          if (refused) throw new SecretHostError(refused[0], refused[1], host ? `not to ${host}` : "the connection names no host");
          out[name] = resolved;
        } catch (err) {
          if (!(err instanceof SecretHostError)) throw err;
          out[name] = "";
          warnOnce(`configuration node ${snapshot.name || id} (${snapshot.type}): credential "${name}" was left empty: ${err.message}`);
        }
      }
      return Object.freeze(out);
    };
    const handle: ConfigNodeHandle<C> = {
      id,
      type: snapshot.type,
      name: snapshot.name,
      revision: snapshot.revision,
      get config() {
        const substituted = substituteDeep(found.config, (text) => env().substitute(text)) as C;
        if (found.numbers.size === 0) return substituted;
        try {
          return resolveVariableNumbers(found.numbers, found.config, substituted) as C;
        } catch (err) {
          throw new Error(`configuration node ${snapshot.name || id} (${snapshot.type}): ${(err as Error).message}`);
        }
      },
      get credentials() {
        return readCredentials(null);
      },
      credentialsFor: (host: string) => readCredentials(host),
      connect: <T>(kind: string, open: ConnectionKind<T>, options?: { variant?: string }) =>
        lease(
          { organizationId, configNodeId: id, revision: snapshot.revision, kind, ...(options?.variant !== undefined ? { variant: options.variant } : {}) },
          open,
        ),
    };
    return { handle };
  }

  private async lease<T>(key: Parameters<ConnectionPool["acquire"]>[0], open: ConnectionKind<T>): Promise<ConnectionLease<T>> {
    if (this.stopped) throw new Error("the flow stopped");
    const lease = await this.pool.acquire(key, open);
    if (this.stopped) {
      // The flow stopped while the connection opened: it is not this flow's to hold.
      await lease.release();
      throw new Error("the flow stopped");
    }
    const tracked: ConnectionLease<T> = {
      connection: lease.connection,
      key: lease.key,
      release: async () => {
        this.leases.delete(tracked as ConnectionLease<unknown>);
        await lease.release();
      },
    };
    this.leases.add(tracked as ConnectionLease<unknown>);
    return tracked;
  }

  /** After the flow's nodes closed: every connection they still hold is released (the last user closes it). */
  async release(): Promise<void> {
    this.stopped = true;
    const leases = [...this.leases];
    this.leases.clear();
    await Promise.all(leases.map((l) => l.release().catch(() => undefined)));
  }
}

function substituteDeep(value: unknown, substitute: (text: string) => string, depth = 0): unknown {
  if (typeof value === "string") return substitute(value);
  if (depth > 16 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => substituteDeep(v, substitute, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = substituteDeep(v, substitute, depth + 1);
  return out;
}

// -------------------------------------------------------------------------------------------------
// global-config env

interface EnvEntry {
  name: string;
  type: string;
  value: string;
}

function envEntries(raw: unknown): EnvEntry[] {
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((e): e is Record<string, unknown> => !!e && typeof e === "object" && typeof (e as { name?: unknown }).name === "string")
    .map((e) => ({ name: String(e.name), type: typeof e.type === "string" ? e.type : "str", value: typeof e.value === "string" ? e.value : "" }));
}

/**
 * Node-RED's evaluateEnvProperties for the global flow, once as the flow starts: str, num, bool,
 * json, bin and jsonata become values; `env` entries stay references resolved when used (to the
 * global env's own value, else to the organization's variables below it), so a secret they name
 * stays a secret (handed to credential properties only) and a changed variable is seen at once. A
 * `cred` entry holds no value here (the secret lives in the organization's variables): it is left
 * out, so the variable of that name shows through.
 */
async function evaluateGlobalEnv(
  entries: EnvEntry[],
  context: { flow: SharedContextStore; global: SharedContextStore },
  onWarning: (message: string) => void,
): Promise<GlobalEnv> {
  const values = new Map<string, unknown>();
  const refs = new Map<string, string>();
  for (const { name, type, value } of entries) {
    try {
      switch (type) {
        case "cred":
          break;
        case "env":
          refs.set(name, value);
          values.delete(name);
          break;
        default:
          values.set(name, await typedEnvValue(type, value, { context, env: (n) => values.get(n) }));
      }
      if (type !== "env") refs.delete(name);
    } catch (err) {
      values.set(name, undefined);
      onWarning(`Error evaluating global-config env property '${name}': ${String(err)}`);
    }
  }
  return new EvaluatedGlobalEnv(values, refs);
}

class EvaluatedGlobalEnv implements GlobalEnv {
  constructor(
    private readonly values: ReadonlyMap<string, unknown>,
    /** `env` entries: the name (or a text with ${NAME}) each one reads. */
    private readonly refs: ReadonlyMap<string, string>,
  ) {}

  has(name: string): boolean {
    return this.values.has(name) || this.refs.has(name);
  }

  lookup(name: string, below: (name: string) => unknown): unknown {
    if (this.values.has(name)) return this.values.get(name);
    const ref = this.refs.get(name);
    if (ref === undefined) return undefined;
    // Node-RED's evaluateEnvProperty: "NAME", "${NAME}", or a text with ${NAME} in it; an entry naming itself reads the level below.
    const read = (n: string) => (n !== name && this.values.has(n) ? this.values.get(n) : below(n));
    const whole = /^\$\{([^}]+)\}$/.exec(ref);
    if (whole) return read(whole[1]!) ?? "";
    if (!/\$\{\S+\}/.test(ref)) return read(ref) ?? "";
    return ref.replace(/\$\{([^}]+)\}/g, (_, n: string) => {
      const v = read(n);
      return v === undefined || v === null ? "" : String(v);
    });
  }

  names(): string[] {
    return [...new Set([...this.values.keys(), ...this.refs.keys()])];
  }
}
