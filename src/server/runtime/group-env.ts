/**
 * Node-RED's group settings (runtime/lib/flows/Group.js): a group's env properties, evaluated when
 * its flow starts (parents first), and NR_GROUP_ID / NR_GROUP_NAME. A node in a group reads a name
 * from its group, then the group around it, then the flow (`$parent.NAME` skips a level), after
 * its own built-ins (NR_NODE_ID, NR_NODE_NAME, NR_NODE_PATH), as Node-RED's getSetting does. Inside
 * a subflow instance the same holds level by level (subflows.ts subflowSetting): a node reads its
 * group in the definition (evaluated per instance, over the instance's env), then the instance's
 * env, then the groups the instance node is in, then the level above.
 * Where ours differs on purpose: a `cred` entry is left out (the organization's secret of that name
 * shows through, as for the global-config env), and object values are handed out as copies
 * (Node-RED's change node may share one object between messages).
 */
import { subflowEnvEntrySchema, type FlowGroup, type SubflowEnvEntry } from "../../shared/subflows";
import { envValueCopy, evaluateEnvEntries, substituteLevels } from "./env-values";
import type { SharedContextStore, VariableResolver } from "./types";

export interface GroupScope {
  id: string;
  name: string;
  parent: GroupScope | null;
  /** Evaluated env values, by name. */
  values: Map<string, unknown>;
}

/** What a name reads from inside `scope`: its id and name, its env values, then the level above; `flow` answers above every group. */
export function groupSetting(scope: GroupScope | null, name: string, flow: (name: string) => unknown): unknown {
  let key = name;
  for (let s = scope; s; s = s.parent) {
    if (key === "NR_GROUP_NAME") return s.name;
    if (key === "NR_GROUP_ID") return s.id;
    if (key.startsWith("$parent.")) key = key.slice("$parent.".length);
    else if (s.values.has(key)) return envValueCopy(s.values.get(key));
  }
  return flow(key);
}


/**
 * Each node's innermost group (node id → its scope), every group's env evaluated as Node-RED's
 * evaluateEnvProperties does for a group (parents first; `env` entries last, against the group's
 * own values, then above). A property that fails is undefined and reported through `onError`.
 * Empty when no group has env properties and nothing reads NR_GROUP_*: the map still says which
 * group each node is in.
 */
export async function groupScopes(
  groups: readonly FlowGroup[] | undefined,
  flow: (name: string) => unknown,
  context: { flow: SharedContextStore; global: SharedContextStore },
  onError: (groupId: string, message: string) => void,
): Promise<Map<string, GroupScope>> {
  const ofNode = new Map<string, GroupScope>();
  if (!groups || groups.length === 0) return ofNode;
  const byId = new Map(groups.map((g) => [g.id, g]));
  const parentOf = new Map<string, string>();
  for (const g of groups) for (const member of g.nodes) if (byId.has(member) && member !== g.id) parentOf.set(member, g.id);
  const scopes = new Map<string, GroupScope>();
  const making = new Set<string>();
  const scopeOf = async (id: string): Promise<GroupScope> => {
    const made = scopes.get(id);
    if (made) return made;
    // A cycle of groups (not one a valid graph has) stops at the group met twice.
    making.add(id);
    const parentId = parentOf.get(id);
    const parent = parentId && !making.has(parentId) ? await scopeOf(parentId) : null;
    const group = byId.get(id)!;
    const scope: GroupScope = { id, name: group.name, parent, values: new Map() };
    await evaluateGroupEnv(scope, envEntries(group), flow, context, (message) => onError(id, message));
    scopes.set(id, scope);
    making.delete(id);
    return scope;
  };
  for (const g of groups) {
    const scope = await scopeOf(g.id);
    for (const member of g.nodes) if (!byId.has(member)) ofNode.set(member, scope);
  }
  return ofNode;
}

/** A group's env entries as Node-RED writes them (`{name, type, value}`); others are left out. */
function envEntries(group: FlowGroup): SubflowEnvEntry[] {
  const entries: SubflowEnvEntry[] = [];
  for (const raw of group.env) {
    const parsed = subflowEnvEntrySchema.safeParse(raw);
    if (parsed.success) entries.push(parsed.data);
  }
  return entries;
}

async function evaluateGroupEnv(
  scope: GroupScope,
  env: SubflowEnvEntry[],
  flow: (name: string) => unknown,
  context: { flow: SharedContextStore; global: SharedContextStore },
  onError: (message: string) => void,
): Promise<void> {
  // While its properties are evaluated, the group's settings are those above it.
  const above = (name: string) => groupSetting(scope.parent, name.startsWith("$parent.") ? name.slice("$parent.".length) : name, flow);
  // A credential holds no value in a flow's JSON: left out, so the variable of that name (a
  // secret of the organization's) shows through, as for the global-config env.
  const entries = env.filter((e) => e.type !== "cred");
  await evaluateEnvEntries(scope.values, entries, { above, own: (n) => groupSetting(scope, n, flow) }, context, onError);
}

const NODE_BUILTINS = new Set(["NR_NODE_ID", "NR_NODE_NAME", "NR_NODE_PATH"]);

/**
 * The variable resolver of a node in a group: its own built-ins (from `base`), then groupSetting,
 * then `base` (the flow's variables, secrets and `${NAME}` rules of SPEC §14).
 */
export function groupVariables(scope: GroupScope, base: VariableResolver): VariableResolver {
  const lookup = (name: string, flow: (n: string) => unknown) => (NODE_BUILTINS.has(name) ? flow(name) : groupSetting(scope, name, flow));
  // What function code's env.get may ask: every level's names, and `$parent.` ones reaching up,
  // past the groups too (`$parent.NAME` from a group's node reads the level above the group).
  const levels: GroupScope[] = [];
  for (let s: GroupScope | null = scope; s; s = s.parent) levels.push(s);
  const keys = new Set<string>(["NR_GROUP_ID", "NR_GROUP_NAME"]);
  for (const level of levels) for (const key of level.values.keys()) keys.add(key);
  let cached: { from: Readonly<Record<string, unknown>>; values: Readonly<Record<string, unknown>> } | undefined;
  return {
    get: (name) => lookup(String(name), (n) => base.get(n)),
    substitute: (text, options) => substituteLevels(text, lookup, base, options),
    values: () => {
      const from = base.values();
      if (cached?.from !== from) {
        const values: Record<string, unknown> = { ...from };
        // Every plain name, at every depth the groups and the levels below them (`from`'s own
        // `$parent.` names: a subflow instance's) reach: each is looked up once per `from`.
        const plain = new Set<string>(keys);
        let below = 0;
        for (const name of Object.keys(from)) {
          let key = name;
          let up = 0;
          while (key.startsWith("$parent.")) {
            key = key.slice("$parent.".length);
            up++;
          }
          if (up > below) below = up;
          if (!NODE_BUILTINS.has(key)) plain.add(key);
        }
        const names = new Set<string>();
        for (const key of plain) for (let up = 0; up <= levels.length + below; up++) names.add("$parent.".repeat(up) + key);
        for (const name of names) {
          const v = lookup(name, (n) => from[n]);
          if (v === undefined) delete values[name];
          else values[name] = v;
        }
        cached = { from, values: Object.freeze(values) };
      }
      return cached.values;
    },
  };
}
