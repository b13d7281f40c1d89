import type { z } from "zod";
import { outputsFor, type OutputsRule } from "../../shared/node-ports";

/** "config": configuration nodes (SPEC §5, §19), never on a palette. */
export type NodeCategory = "input" | "output" | "function" | "network" | "parser" | "sequence" | "common" | "config";

/** Node-RED's view of a node's own properties (everything but id, type, z, name, x, y, wires). */
export type NodeRedProps = Record<string, unknown>;

/**
 * One node type: what the catalog lists, the one zod schema that validates its configuration
 * everywhere (editor form, API, deploy), and how it maps to Node-RED's flows.json. Behaviour lives
 * beside it in the runtime.
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
  inputs: 0 | 1;
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
  /** "subflow": a type that exists only inside a subflow definition (its port nodes, SPEC §16); a flow refuses it. */
  scope?: "subflow";
  nodeRed?: {
    type: string;
    /**
     * Node-RED properties that hold node ids (a link's targets, a catch node's scope): an import
     * that gives nodes fresh ids renames them there too.
     */
    references?: string[];
    toNodeRed(config: Config): NodeRedProps;
    fromNodeRed(props: NodeRedProps): Record<string, unknown>;
  };
}

export function outputCount(definition: NodeDefinition, config: Record<string, unknown>): number {
  return outputsFor(definition.outputs, config);
}

export const defineNode = <Config extends Record<string, unknown>>(definition: NodeDefinition<Config>) =>
  definition as unknown as NodeDefinition;
