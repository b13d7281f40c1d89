import { z } from "zod";
import { authedProcedure, router } from "../trpc";
import { AppError, notFound } from "../../errors";
import { inputCount, outputCount } from "../../nodes/types";
import { injectNode, setNodeActive } from "../../services/flows/deployments";
import { nodeIdSchema } from "../../../shared/flow-graph";
import { inputsRuleSchema, outputsRuleSchema } from "../../../shared/node-ports";
import { formHintsSchema } from "../../../shared/form-hints";
import { deepFreeze } from "../../../shared/deep-freeze";
import type { NodeRegistry } from "../../nodes/registry";
import { frozenOutput } from "../frozen-output";
import { isSubflowInstanceType, subflowIdOfType, subflowInstanceConfigSchema } from "../../../shared/subflows";
import { requireSubflow, subflowCatalogEntries, subflowView } from "../../services/subflows/subflows";

const tags = ["nodes"];
const nodeTypeView = z.object({
  type: z.string(),
  /** input, output, function, network, parser, sequence, common, dashboard; a subflow's: its definition's category (SPEC §16). */
  category: z.string(),
  name: z.string(),
  description: z.string(),
  /** Help text (Markdown): what the node does, its inputs, outputs and details (SPEC §12). */
  help: z.string(),
  /** With the default configuration. */
  inputs: z.number().int(),
  outputs: z.number().int(),
  /** Whether the input port follows the configuration (an mqtt in's dynamic subscription; src/shared/node-ports.ts). */
  inputs_rule: inputsRuleSchema,
  /** How the output count follows the configuration (see src/shared/node-ports.ts). */
  outputs_rule: outputsRuleSchema,
  /** The configuration a new node of this type gets. */
  defaults: z.record(z.string(), z.unknown()),
  version: z.number().int(),
  /** A type that exists only inside a subflow definition (its input, output and status ports, SPEC §16): not for a flow's palette. */
  subflow_only: z.boolean(),
  /** "config": a configuration node (SPEC §19): edited under /config-nodes, never placed on a canvas; "node" otherwise. */
  kind: z.enum(["node", "config"]),
  /** The credential properties a configuration node's form shows (write-only: values are never read back). */
  credentials: z.record(z.string(), z.object({ type: z.enum(["text", "password", "pem"]), title: z.string(), description: z.string().optional() })).optional(),
  /** A subflow instance's colour (its definition's); absent for built-in types, which the editor colours by category. */
  color: z.string().optional(),
  /** The type's icon, SVG markup declared in its folder (absent for subflows, which share one). The editor shows it as an image, never as markup. */
  icon: z.string().optional(),
  /** How the editor edits properties the JSON Schema alone does not say (a code editor, a long text). */
  form: formHintsSchema,
  /** Node-RED's showLabel: false (link in, link out): the canvas draws the icon alone unless a node's appearance shows its label. */
  label_hidden: z.literal(true).optional(),
});

type Catalog = { nodes: z.input<typeof nodeTypeView>[] };
const catalogs = new WeakMap<NodeRegistry, Catalog>();

/**
 * The catalog as the editor reads it, frozen: built once per registry, and again only when a type
 * was registered since (types are only ever added).
 */
function catalogOf(registry: NodeRegistry): Catalog {
  let catalog = catalogs.get(registry);
  if (!catalog || catalog.nodes.length !== registry.list().length) {
    catalog = deepFreeze(
      structuredClone({
        nodes: registry.list().map((d) => {
          const defaults = d.configSchema.parse({}) as Record<string, unknown>;
          return {
            type: d.type,
            category: d.category,
            name: d.name,
            description: d.description,
            help: d.help ?? "",
            inputs: inputCount(d, defaults),
            outputs: outputCount(d, defaults),
            inputs_rule: d.inputs,
            outputs_rule: d.outputs,
            defaults,
            version: d.version,
            subflow_only: d.scope === "subflow",
            ...(d.icon ? { icon: d.icon } : {}),
            ...(d.labelHidden ? { label_hidden: true as const } : {}),
            form: d.form ?? {},
            kind: d.kind ?? "node",
            ...(d.credentials ? { credentials: d.credentials } : {}),
          };
        }),
      }),
    );
    catalogs.set(registry, catalog);
  }
  return catalog;
}

const combined = new WeakMap<Catalog, WeakMap<object, Catalog>>();

/**
 * The catalog with the organization's subflow entries after it, frozen and kept for as long as the
 * entries are (they come frozen from the organization's flow reads): its output check and JSON
 * are then made once (frozen-output.ts), not on every request.
 */
function withSubflows(catalog: Catalog, subflows: readonly Catalog["nodes"][number][]): Catalog {
  let byEntries = combined.get(catalog);
  if (!byEntries) combined.set(catalog, (byEntries = new WeakMap()));
  let answer = byEntries.get(subflows);
  if (!answer) byEntries.set(subflows, (answer = deepFreeze({ nodes: [...catalog.nodes, ...subflows] })));
  return answer;
}

export const nodesRouter = router({
  list: authedProcedure
    .meta({ permission: "nodes:read", rest: { method: "GET", path: "/nodes" }, summary: "The node catalog", tags })
    .output(frozenOutput(z.object({ nodes: z.array(nodeTypeView) })))
    .query(async ({ ctx }) => {
      const catalog = catalogOf(ctx.services.nodes);
      // The organization's subflow definitions are palette entries too (type `subflow:<id>`).
      const subflows = await subflowCatalogEntries(ctx.services, ctx.principal);
      if (subflows.length === 0) return catalog;
      return withSubflows(catalog, subflows);
    }),

  schema: authedProcedure
    .meta({ permission: "nodes:read", rest: { method: "GET", path: "/nodes/{type}/schema" }, summary: "JSON Schema of a node type's configuration, with defaults and ports", tags })
    .input(z.object({ type: z.string().min(1).max(64) }))
    .output(
      z.object({
        type: z.string(),
        schema: z.record(z.string(), z.unknown()),
        defaults: z.record(z.string(), z.unknown()),
        inputs: z.number().int(),
        outputs: z.number().int(),
        help: z.string(),
        form: formHintsSchema,
        kind: z.enum(["node", "config"]),
        credentials: z.record(z.string(), z.object({ type: z.enum(["text", "password", "pem"]), title: z.string(), description: z.string().optional() })).optional(),
      }),
    )
    .query(async ({ ctx, input }) => {
      if (isSubflowInstanceType(input.type)) {
        // An instance's configuration is its env properties; its ports are its definition's.
        const view = subflowView(await requireSubflow(ctx.services, ctx.principal, subflowIdOfType(input.type)!));
        return {
          type: input.type,
          schema: z.toJSONSchema(subflowInstanceConfigSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>,
          defaults: { env: [] },
          inputs: view.inputs,
          outputs: view.outputs,
          help: view.description,
          form: {},
          kind: "node" as const,
        };
      }
      const d = ctx.services.nodes.get(input.type);
      if (!d || d.type === "unknown") throw notFound("node type");
      const defaults = d.configSchema.parse({}) as Record<string, unknown>;
      return {
        type: d.type,
        schema: z.toJSONSchema(d.configSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>,
        defaults,
        inputs: inputCount(d, defaults),
        outputs: outputCount(d, defaults),
        help: d.help ?? "",
        form: d.form ?? {},
        kind: d.kind ?? "node",
        ...(d.credentials ? { credentials: d.credentials } : {}),
      };
    }),

  validate: authedProcedure
    .meta({
      permission: "nodes:read",
      rest: { method: "POST", path: "/nodes/{type}/validate" },
      summary: "Check a node configuration against its type's schema",
      description: "Answers the configuration with defaults filled, or 400 `VALIDATION_FAILED` with one detail per refused field (paths relative to the configuration, e.g. `rules[0].v`). Nothing is stored.",
      tags,
    })
    .input(z.object({ type: z.string().min(1).max(64), config: z.record(z.string(), z.unknown()) }))
    .output(z.object({ config: z.record(z.string(), z.unknown()) }))
    .mutation(async ({ ctx, input }) => {
      let schema: z.ZodType<Record<string, unknown>, Record<string, unknown>>;
      if (isSubflowInstanceType(input.type)) {
        await requireSubflow(ctx.services, ctx.principal, subflowIdOfType(input.type)!);
        schema = subflowInstanceConfigSchema;
      } else {
        const d = ctx.services.nodes.get(input.type);
        if (!d) throw notFound("node type");
        schema = d.configSchema;
      }
      const parsed = schema.safeParse(input.config);
      if (!parsed.success) {
        const details = parsed.error.issues.map((issue) => ({
          path: issue.path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`)).join("") || "config",
          message: issue.message,
        }));
        throw new AppError("VALIDATION_FAILED", `${details[0]!.path}: ${details[0]!.message}`, { details });
      }
      return { config: parsed.data as Record<string, unknown> };
    }),

  inject: authedProcedure
    .meta({
      permission: "nodes:inject",
      rest: { method: "POST", path: "/nodes/{nodeId}/inject" },
      summary: "Trigger an inject node of a running flow",
      description: "Not an inject node → 400 `NOT_AN_INJECT_NODE`; flow not running → 409 `FLOW_NOT_RUNNING`; another organization's node → 404.",
      tags,
    })
    .input(z.object({ nodeId: nodeIdSchema, payload: z.unknown().optional(), topic: z.string().max(1024).optional() }))
    .output(z.object({ message_id: z.string(), node_id: z.string(), flow_id: z.string() }))
    .mutation(({ ctx, input }) => injectNode(ctx.services, ctx.principal, input, { ip: ctx.ip, userAgent: ctx.userAgent })),

  setActive: authedProcedure
    .meta({
      permission: "flows:deploy",
      rest: { method: "POST", path: "/nodes/{nodeId}/active" },
      summary: "Switch a debug node of a running flow on or off",
      description:
        "At once and without a deploy, as Node-RED's debug button: the running node stops or starts showing messages until it restarts (a deploy that changes it, a server restart); its saved Active setting is unchanged. " +
        "A device flow's node is switched on each of its online devices. Not a debug node → 400 `NOT_SWITCHABLE`; flow not running (or none of its devices online) → 409 `FLOW_NOT_RUNNING`; another organization's node → 404.",
      tags,
    })
    .input(z.object({ nodeId: nodeIdSchema, active: z.boolean() }))
    .output(z.object({ node_id: z.string(), flow_id: z.string(), active: z.boolean() }))
    .mutation(({ ctx, input }) => setNodeActive(ctx.services, ctx.principal, input)),
});
