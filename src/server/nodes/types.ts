import type { z } from "zod";
import { inputsFor, outputsFor, type InputsRule, type OutputsRule } from "../../shared/node-ports";
import type { NodeFactory, NodeRoles } from "../runtime/types";
import type { VariablesResolved } from "../runtime/number-or-variable";
import type { FormHints } from "../../shared/form-hints";

/** "config": configuration nodes (SPEC §5, §19), never on a palette. */
export type NodeCategory = "input" | "output" | "function" | "network" | "parser" | "sequence" | "storage" | "common" | "dashboard" | "config";

/** Node-RED's view of a node's own properties (everything but id, type, z, name, x, y, wires). */
export type NodeRedProps = Record<string, unknown>;

/**
 * One node type: what the catalog lists, the one zod schema that validates its configuration
 * everywhere (editor form, API, deploy), what the engine asks of it (roles), how the editor draws
 * and edits it (icon, form hints), and how it maps to Node-RED's flows.json. Its behaviour sits
 * beside it in the folder (`behaviour.ts`, `defineBehaviour`); the registry finds both
 * (src/server/nodes/README.md, "Adding a node type").
 */
export interface NodeDefinition<Config extends Record<string, unknown> = Record<string, unknown>> {
  type: string;
  version: number;
  category: NodeCategory;
  name: string;
  description: string;
  /**
   * Help text (SPEC §12), Markdown, after Node-RED's node help: a first paragraph saying what the
   * node does, then "### Inputs", "### Outputs" and "### Details" sections, and "### Differences
   * from Node-RED" where we deliberately differ. Shown in the editor's Node tab and edit dialog.
   * Every property of configSchema carries a human title (and a description where useful) with
   * zod's `.meta({ title, description })`, which reaches the editor through the JSON Schema.
   */
  help?: string;
  /** The input port; may depend on the configuration (an mqtt in's dynamic subscription): a rule shared with the editor. */
  inputs: InputsRule;
  /** Output ports; may depend on the configuration (switch rules, function outputs): a rule shared with the editor. */
  outputs: OutputsRule;
  configSchema: z.ZodType<Config, Record<string, unknown>>;
  /**
   * "config": a configuration node (SPEC §19): no wires, never on a canvas; an organization
   * resource (`/config-nodes`) that other nodes name by id through `configNodeRef(type)` properties.
   */
  kind?: "config";
  /**
   * Credential properties (Node-RED's `credentials`), declared by the type: written only, stored
   * encrypted, read back as `{ set: boolean }`. "pem": a certificate or key given inline.
   */
  credentials?: Record<string, { type: "text" | "password" | "pem"; title: string; description?: string }>;
  /**
   * A configuration node whose flows must all run on one instance of a cluster (SPEC §20: an MQTT
   * broker with a persistent session, whose client id two instances would take from each other).
   * Given the configuration as deployed (not parsed again: read it leniently); true places every
   * flow whose deployment carries this node together, kept together on rebalance and failover.
   */
  placeTogether?(config: Record<string, unknown>): boolean;
  /**
   * Credentials written into an ordinary property (a password in a broker's URL, as Node-RED and
   * mqtt.js accept it): the configuration without them, and them as credentials, which a save and
   * an import then store as the type's credentials (encrypted, never read back). Null: none there.
   */
  liftCredentials?(config: Config): { config: Config; credentials: Record<string, string> } | null;
  /**
   * What the engine asks of the type (catch, status, complete, link target, link call, trigger):
   * the engine reads roles, never type names.
   */
  roles?: NodeRoles<Config>;
  /**
   * Its icon: SVG markup, filled in by the registry from the folder's `icon.svg` (or `<type>.svg`
   * where a folder holds several types) and sent with the catalog.
   */
  icon?: string;
  /**
   * Node-RED's `showLabel: false` (link in, link out): the canvas draws the node's icon alone unless
   * its appearance shows the label (Node-RED's `l: true`).
   */
  labelHidden?: true;
  /** How the editor edits properties the JSON Schema alone does not say (code, long text). */
  form?: FormHints;
  /** "subflow": a type that exists only inside a subflow definition (its port nodes, SPEC §16); a flow refuses it. */
  scope?: "subflow";
  nodeRed?: {
    type: string;
    /**
     * Node-RED properties that hold node ids (a link's targets, a catch node's scope): an import
     * that gives nodes fresh ids renames them there too.
     */
    references?: string[];
    /**
     * Node-RED properties that fromNodeRed reads into others (an MQTT broker's Node-RED 1.x
     * `compatmode` is protocol 3.1): carried over, though an export writes them otherwise.
     */
    absorbed?: string[];
    toNodeRed(config: Config): NodeRedProps;
    /**
     * `refused`: where a property's value is one the type cannot take (it is left out and its
     * default stands), its name is pushed there, and the import reports it as not carried over.
     */
    fromNodeRed(props: NodeRedProps, refused?: string[]): Record<string, unknown>;
    /**
     * Credentials a Node-RED export wrote in ordinary properties (node-red-contrib-postgresql before
     * 0.16 kept the user and password in plain fields): the import stores them as the node's
     * credentials (the file's `credentials` win) and says so; list those properties in `absorbed`.
     */
    credentialsFromNodeRed?(props: NodeRedProps): Record<string, string>;
    /**
     * What the import changes in meaning (a file node's absolute path, which names a path inside
     * the organization's files, SPEC §23): each a line of the import's warnings and the
     * report entry's reason. The node is still "supported".
     */
    importNotes?(props: NodeRedProps): string[];
    /**
     * Properties the mapping carries over only in part (a list some of whose entries are left out,
     * as a function's libs of modules the sandbox lacks): the import reports them as not carried
     * over ("partial") beside those it finds missing itself.
     */
    partlyDropped?(props: NodeRedProps): string[];
  };
}

export function outputCount(definition: NodeDefinition, config: Record<string, unknown>): number {
  return outputsFor(definition.outputs, config);
}

export function inputCount(definition: NodeDefinition, config: Record<string, unknown>): 0 | 1 {
  return inputsFor(definition.inputs, config);
}

declare const configOf: unique symbol;

/** A definition that remembers its parsed configuration's type, so its behaviour receives it typed. */
export type TypedNodeDefinition<Config> = NodeDefinition & { readonly [configOf]?: Config };

export const defineNode = <Config extends Record<string, unknown>>(definition: NodeDefinition<Config>) =>
  definition as unknown as TypedNodeDefinition<Config>;

/** A type's behaviour, as `behaviour.ts` exports it: tied to its definition by type name. */
export interface NodeImplementation {
  readonly type: string;
  readonly factory: NodeFactory<never>;
  readonly brand: "flowplane.node-implementation";
}

/**
 * Declares the behaviour of `definition`'s type. The engine parses each node's configuration once,
 * with the type's schema, when the flow starts, and hands the result to `factory` as `config`.
 */
/** `config`: the node's parsed configuration, a number written as `${NAME}` already read as its number (RuntimeNodeType.resolveAtStart). */
export const defineBehaviour = <Config>(definition: TypedNodeDefinition<Config>, factory: NodeFactory<VariablesResolved<Config>>): NodeImplementation => ({
  type: definition.type,
  factory: factory as NodeFactory<never>,
  brand: "flowplane.node-implementation",
});

/** Whether an exported value is a node definition (the registry scans each folder's exports). */
export function isNodeDefinition(value: unknown): value is NodeDefinition {
  const v = value as Partial<NodeDefinition> | null;
  return typeof v === "object" && v !== null && typeof v.type === "string" && typeof v.version === "number" && typeof v.configSchema?.safeParse === "function";
}

export function isNodeImplementation(value: unknown): value is NodeImplementation {
  return typeof value === "object" && value !== null && (value as Partial<NodeImplementation>).brand === "flowplane.node-implementation";
}
