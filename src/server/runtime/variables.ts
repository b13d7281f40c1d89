import type { RuntimeNode, VariableResolver } from "./types";
import { VARIABLE_REFERENCE, referencedNames } from "../../shared/variable-references";
import { describeAllowedHosts } from "../../shared/allowed-hosts";

/**
 * Variables and secrets as running flows see them (SPEC §14): the ONE place `${NAME}` and
 * `env.get` are resolved and secrets are redacted. Nothing here reads a database or a store: an
 * organization's values arrive as a VariableSet (flow-runtime/variable-cache.ts keeps the current
 * one per organization and replaces it when a variable changes anywhere in the cluster), and the
 * resolvers read the set that is current when a node *uses* a value, so a change reaches running
 * flows without a redeploy.
 */

export interface VariableValue {
  value: string;
  secret: boolean;
  /** A secret's allowed hosts (SPEC §14): it is handed only to requests to these; absent: anywhere. */
  allowedHosts?: readonly string[];
}

/**
 * A secret with allowed hosts used where no host is checked (a configuration node's credential), or
 * by a request to another host: the node's error. Its text names the secret and its hosts, never
 * its value.
 */
export class SecretHostError extends Error {
  constructor(
    readonly variable: string,
    readonly allowedHosts: readonly string[],
    detail?: string,
  ) {
    super(`secret ${variable} may only be sent to ${describeAllowedHosts(allowedHosts)}${detail ? `: ${detail}` : ""}`);
    this.name = "SecretHostError";
  }
}

/** Replaced by "***" wherever a secret's value would leave the runtime. */
export const REDACTED = "***";

/** Earlier secret values an organization's set keeps redacting. */
const MAX_RETIRED_SECRETS = 200;

const REFERENCE = VARIABLE_REFERENCE;

export { referencedNames };

/** One organization's variables: its own, and each flow's (which override the organization's). */
export class VariableSet {
  static readonly empty = new VariableSet(new Map(), new Map());

  /** Secret values, longest first (so a secret containing another is replaced whole). */
  private readonly secrets: string[];
  private readonly plainByFlow = new Map<string, Readonly<Record<string, string>>>();

  constructor(
    private readonly organization: ReadonlyMap<string, VariableValue>,
    private readonly flows: ReadonlyMap<string, ReadonlyMap<string, VariableValue>>,
    /** Values of secrets since changed or deleted: still redacted (a status or a queued message may hold one). */
    retired: Iterable<string> = [],
  ) {
    const secrets = new Set<string>(retired);
    const collect = (vars: ReadonlyMap<string, VariableValue>) => {
      for (const v of vars.values()) if (v.secret && v.value !== "") secrets.add(v.value);
    };
    collect(organization);
    for (const vars of flows.values()) collect(vars);
    this.values = [...secrets];
    // Each value also as JSON text writes it: cut JSON previews (debug, execution inputs) are
    // redacted as text, where `"` is `\"`.
    const forms = new Set<string>();
    for (const secret of secrets) for (const form of escapedForms(secret)) forms.add(form);
    this.secrets = [...forms].sort((a, b) => b.length - a.length);
  }

  /** The secret values themselves (what `retaining` carries over; `secrets` holds their escaped forms too). */
  private readonly values: string[];

  /**
   * This set, also redacting the secrets `previous` redacted (the most recent MAX_RETIRED_SECRETS):
   * what replaces an organization's set when its variables change.
   */
  retaining(previous: VariableSet): VariableSet {
    if (previous.values.length === 0) return this;
    const retired = [...previous.values.filter((v) => !this.values.includes(v))].slice(0, MAX_RETIRED_SECRETS);
    return new VariableSet(this.organization, this.flows, retired);
  }

  lookup(flowId: string, name: string): VariableValue | undefined {
    return this.flows.get(flowId)?.get(name) ?? this.organization.get(name);
  }

  /** The flow's own variable of that name (above the global env), if any. */
  lookupFlow(flowId: string, name: string): VariableValue | undefined {
    return this.flows.get(flowId)?.get(name);
  }

  /** The organization's variable of that name (below the global env), if any. */
  lookupOrganization(name: string): VariableValue | undefined {
    return this.organization.get(name);
  }

  /** The non-secret values one flow sees (the flow's over the organization's): what function code's env.get reads. */
  plainValues(flowId: string): Readonly<Record<string, string>> {
    let values = this.plainByFlow.get(flowId);
    if (!values) {
      const out: Record<string, string> = {};
      for (const [name, v] of this.organization) if (!v.secret) out[name] = v.value;
      for (const [name, v] of this.flows.get(flowId) ?? []) {
        if (v.secret) delete out[name];
        else out[name] = v.value;
      }
      values = Object.freeze(out);
      this.plainByFlow.set(flowId, values);
    }
    return values;
  }

  get hasSecrets(): boolean {
    return this.secrets.length > 0;
  }

  /**
   * The text with every secret value replaced by "***". Texts are cut on their way out (debug
   * previews, status texts), so a text that *ends* with the beginning of a secret (4 characters or
   * more, before an optional "…" or "...", the debug node's status cut as Node-RED's) has that
   * beginning replaced too.
   */
  redactText(text: string): string {
    if (this.secrets.length === 0) return text;
    let out = text;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    const ellipsis = out.endsWith("…") ? "…" : out.endsWith("...") ? "..." : "";
    const body = ellipsis ? out.slice(0, -ellipsis.length) : out;
    for (const secret of this.secrets) {
      const head = secret.slice(0, Math.min(4, secret.length - 1));
      if (head === "") continue;
      for (let at = body.indexOf(head, Math.max(0, body.length - secret.length + 1)); at !== -1; at = body.indexOf(head, at + 1)) {
        if (secret.startsWith(body.slice(at))) return `${body.slice(0, at)}${REDACTED}${ellipsis}`;
      }
    }
    return out;
  }

  /**
   * A copy of a JSON-like value with every secret value in its strings (and keys) replaced by
   * "***"; the value itself when the organization has no secrets or none occurs.
   */
  redact<T>(value: T): T {
    if (this.secrets.length === 0) return value;
    return this.redactValue(value, 0) as T;
  }

  private redactValue(value: unknown, depth: number): unknown {
    if (typeof value === "string") return this.redactText(value);
    if (value === null || typeof value !== "object" || depth > 64) return value;
    if (Array.isArray(value)) {
      let changed = false;
      const out = value.map((item) => {
        const next = this.redactValue(item, depth + 1);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? out : value;
    }
    if (ArrayBuffer.isView(value)) return value;
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const nextKey = this.redactText(key);
      const next = this.redactValue(item, depth + 1);
      if (next !== item || nextKey !== key) changed = true;
      out[nextKey] = next;
    }
    return changed ? out : value;
  }
}

/**
 * The forms a secret takes in text: itself; inside a JSON string (`"` → `\"`, `\` → `\\`, control
 * characters escaped); that JSON text inside another JSON string (a JSON payload shown as JSON); and
 * with every non-ASCII character as a `\uXXXX` escape, in lower and upper case (how ASCII-only JSON
 * writers put it). Only the forms that differ from the value are added.
 */
export function escapedForms(secret: string): string[] {
  const inJson = (text: string) => JSON.stringify(text).slice(1, -1);
  const asciiOnly = (text: string, upper: boolean) =>
    text.replace(/[\u0080-\uffff]/g, (c) => {
      const hex = c.charCodeAt(0).toString(16).padStart(4, "0");
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    });
  const once = inJson(secret);
  const forms = new Set([secret, once, inJson(once), asciiOnly(once, false), asciiOnly(once, true)]);
  return [...forms];
}

/** Where resolvers find an organization's current set (flow-runtime/variable-cache.ts). */
export interface VariableSource {
  current(organizationId: string): VariableSet;
}

/**
 * The global-config node's env (Node-RED 3.1+, SPEC §19), evaluated when the flow started
 * (runtime/config-nodes.ts): between the flow's variables and the organization's.
 */
export interface GlobalEnv {
  has(name: string): boolean;
  /** The entry's value; an `env` entry reads `below` (the organization's variables) for the name it holds. */
  lookup(name: string, below: (name: string) => unknown): unknown;
  names(): string[];
}

/**
 * The resolver of one node: Node-RED's built-in names, then the flow's variables, the
 * organization's global-config env (when its deployment carries one) and the organization's
 * variables, as they are at the moment of use (Node-RED's order: node, subflow, flow, global
 * env, process env; the organization's variables stand for the process env). Secrets resolve only
 * where `credential` is asked for.
 */
export function variableResolver(
  source: VariableSource,
  target: { organizationId: string; flowId: string; flowName?: string },
  node: Pick<RuntimeNode, "id" | "name">,
  layers: { globalEnv?: GlobalEnv } = {},
): VariableResolver {
  const builtins: Record<string, string> = {
    NR_NODE_ID: node.id,
    NR_NODE_NAME: node.name,
    // Node-RED's node._path: the flow's path (a tab's id) and the node's id.
    NR_NODE_PATH: `${target.flowId}/${node.id}`,
    NR_FLOW_ID: target.flowId,
    NR_FLOW_NAME: target.flowName ?? "",
  };
  const { globalEnv } = layers;
  type Use = { credential: boolean; restricted?: Map<string, readonly string[]> };
  const visible = (name: string, found: VariableValue | undefined, use: Use) => {
    if (!found || (found.secret && !use.credential)) return undefined;
    if (found.secret && found.allowedHosts) {
      // A secret with allowed hosts: only a caller that checks the request's host (http-request) gets it.
      if (!use.restricted) throw new SecretHostError(name, found.allowedHosts, "it is not available here");
      use.restricted.set(name, found.allowedHosts);
    }
    return found.value;
  };
  const lookup = (name: string, use: Use): unknown => {
    if (Object.prototype.hasOwnProperty.call(builtins, name)) return builtins[name];
    const set = source.current(target.organizationId);
    if (!globalEnv) return visible(name, set.lookup(target.flowId, name), use);
    const own = set.lookupFlow(target.flowId, name);
    if (own) return visible(name, own, use);
    if (globalEnv.has(name)) return globalEnv.lookup(name, (n) => visible(n, set.lookupOrganization(n), use));
    return visible(name, set.lookupOrganization(name), use);
  };
  const plainUse: Use = { credential: false };
  let builtinsWithPlain: { from: Readonly<Record<string, string>>; values: Readonly<Record<string, unknown>> } | undefined;
  return {
    get: (name) => lookup(String(name), plainUse),
    substitute: (text, options) =>
      text.includes("${")
        ? text.replace(REFERENCE, (_, name: string) => {
            const value = lookup(name, options?.credential === true ? { credential: true, ...(options.restricted ? { restricted: options.restricted } : {}) } : plainUse);
            return value === undefined || value === null ? "" : typeof value === "string" ? value : String(value);
          })
        : text,
    values: () => {
      const set = source.current(target.organizationId);
      const plain = set.plainValues(target.flowId);
      // Same object while the set is the same: callers (the function node) send it on only when it changes.
      if (builtinsWithPlain?.from !== plain) {
        const values: Record<string, unknown> = { ...plain };
        for (const name of globalEnv?.names() ?? []) {
          if (set.lookupFlow(target.flowId, name)) continue;
          const value = globalEnv!.lookup(name, (n) => visible(n, set.lookupOrganization(n), plainUse));
          if (value === undefined) delete values[name];
          else values[name] = value;
        }
        builtinsWithPlain = { from: plain, values: Object.freeze({ ...values, ...builtins }) };
      }
      return builtinsWithPlain.values;
    },
  };
}
