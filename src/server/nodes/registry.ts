import { outputCount, isNodeDefinition, isNodeImplementation, type NodeDefinition } from "./types";
import { resolveNumbersAtStart, variableNumberFields } from "../runtime/number-or-variable";
import type { NodeFactory, RuntimeNodeType } from "../runtime/types";
import type { NodeFolder } from "./folder";
import { nodeFolders } from "./folders.generated";

/** A type this registry runs: its definition, and its behaviour (absent: it never runs, as `unknown`). */
export interface RegisteredNode {
  definition: NodeDefinition;
  behaviour?: NodeFactory;
}

/**
 * The catalog: one definition per type, registered once. An instance, not a module-level mutable
 * registry, so tests and the runtime can build their own.
 */
export class NodeRegistry {
  private readonly byType = new Map<string, RegisteredNode>();

  register(definition: NodeDefinition, behaviour?: NodeFactory): void {
    if (this.byType.has(definition.type)) throw new Error(`node type ${definition.type} is registered already`);
    this.byType.set(definition.type, { definition, behaviour });
  }

  get(type: string): NodeDefinition | undefined {
    return this.byType.get(type)?.definition;
  }

  /** Node-RED's type name → ours. */
  fromNodeRedType(nodeRedType: string): NodeDefinition | undefined {
    for (const { definition: d } of this.byType.values()) if (d.nodeRed?.type === nodeRedType || d.type === nodeRedType) return d;
    return undefined;
  }

  list(): NodeDefinition[] {
    return [...this.byType.values()].map((r) => r.definition).filter((d) => d.type !== "unknown");
  }

  /** Every registered definition, `unknown` included. */
  all(): NodeDefinition[] {
    return [...this.byType.values()].map((r) => r.definition);
  }

  /**
   * The types as the engine runs them (EngineOptions.types): those with a behaviour. `extra` adds
   * types of the caller's own (test harnesses' sinks), which win over registered ones.
   */
  runtimeTypes(extra: Record<string, RuntimeNodeType> = {}): Map<string, RuntimeNodeType> {
    const types = new Map<string, RuntimeNodeType>();
    for (const { definition, behaviour } of this.byType.values()) {
      if (!behaviour) continue;
      const schema = definition.configSchema;
      types.set(definition.type, {
        behaviour,
        parse: (config) => schema.parse(config),
        ...(variableNumberFields(schema).size > 0 ? { resolveAtStart: (config: Record<string, unknown>, get: (name: string) => unknown) => resolveNumbersAtStart(schema, config, get) } : {}),
        outputs: (config) => outputCount(definition, config),
        // The role readers see what `parse` returned: this type's own parsed configuration.
        roles: definition.roles as RuntimeNodeType["roles"],
        nodeRedType: definition.nodeRed?.type,
      });
    }
    for (const [type, t] of Object.entries(extra)) types.set(type, t);
    return types;
  }
}

/**
 * The definitions and behaviours of node folders: every definition a folder's definition.ts
 * exports, its icon from the folder (`<type>.svg`, else `icon.svg`), and the behaviour its
 * behaviour.ts declares for it (`defineBehaviour`). A behaviour naming no definition of its folder
 * is a mistake, refused here (a test builds the registry from every folder).
 */
export function nodesOfFolders(folders: readonly NodeFolder[]): RegisteredNode[] {
  const out: RegisteredNode[] = [];
  for (const f of folders) {
    const definitions = Object.values(f.definition).filter(isNodeDefinition);
    const implementations = Object.values(f.behaviour ?? {}).filter(isNodeImplementation);
    for (const impl of implementations) {
      if (!definitions.some((d) => d.type === impl.type)) throw new Error(`node folder ${f.folder}: a behaviour for ${impl.type}, which the folder does not define`);
    }
    for (const definition of definitions) {
      const icon = f.icons[`${definition.type}.svg`] ?? f.icons["icon.svg"];
      const impl = implementations.find((i) => i.type === definition.type);
      out.push({ definition: icon && !definition.icon ? { ...definition, icon } : definition, behaviour: impl?.factory as NodeFactory | undefined });
    }
  }
  return out;
}

/** The built-in node types: every folder of src/server/nodes (through the generated index). */
export const builtinNodes: readonly RegisteredNode[] = nodesOfFolders(nodeFolders);

export function createNodeRegistry(nodes: readonly RegisteredNode[] = builtinNodes): NodeRegistry {
  const registry = new NodeRegistry();
  for (const n of nodes) registry.register(n.definition, n.behaviour);
  return registry;
}
