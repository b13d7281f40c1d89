import { randomHex } from "../../ids";
import type { NodeRegistry } from "../../nodes/registry";
import { outputCount } from "../../nodes/types";
import { AppError, type ErrorDetail } from "../../errors";
import type { Connection, FlowGraph, FlowNode } from "../../../shared/flow-graph";

interface GraphInput {
  nodes: Array<{ id?: string; type: string; name: string; position: { x: number; y: number }; config: Record<string, unknown>; disabled: boolean }>;
  connections: Array<{ source: string; source_port: number; target: string }>;
}

/**
 * Validates a graph and fills it in: known types, each config parsed by its type's schema (defaults
 * filled), unique node ids (generated where missing), connections between nodes of this flow on
 * ports that exist. Every problem is reported with a path to the node and field.
 */
export function validateGraph(registry: NodeRegistry, input: GraphInput): FlowGraph {
  const details: ErrorDetail[] = [];
  const nodes: FlowNode[] = [];
  const ids = new Set<string>();
  input.nodes.forEach((node, i) => {
    const id = node.id ?? randomHex(8);
    if (ids.has(id)) details.push({ path: `nodes[${i}].id`, message: `duplicates the id ${id} of another node in this flow` });
    ids.add(id);
    const definition = registry.get(node.type);
    if (!definition) {
      details.push({ path: `nodes[${i}].type`, message: `unknown node type ${node.type}; see GET /api/v1/nodes` });
      return;
    }
    const parsed = definition.configSchema.safeParse(node.config);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const sub = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
        details.push({ path: `nodes[${i}].config${sub}`, message: `${issue.message} (node ${id}, ${node.type})` });
      }
      return;
    }
    nodes.push({ id, type: node.type, name: node.name, position: node.position, config: parsed.data, disabled: node.type === "unknown" ? true : node.disabled });
  });

  const byId = new Map(nodes.map((n) => [n.id, n]));
  const connections: Connection[] = [];
  const seen = new Set<string>();
  input.connections.forEach((c, i) => {
    const source = byId.get(c.source);
    const target = byId.get(c.target);
    if (!ids.has(c.source)) details.push({ path: `connections[${i}].source`, message: `no node ${c.source} in this flow` });
    if (!ids.has(c.target)) details.push({ path: `connections[${i}].target`, message: `no node ${c.target} in this flow` });
    if (!source || !target) return;
    const ports = outputCount(registry.get(source.type)!, source.config);
    if (c.source_port >= ports) {
      details.push({ path: `connections[${i}].source_port`, message: `node ${source.id} (${source.type}) has ${ports} output${ports === 1 ? "" : "s"}; port ${c.source_port} does not exist` });
      return;
    }
    if (registry.get(target.type)!.inputs === 0) {
      details.push({ path: `connections[${i}].target`, message: `node ${target.id} (${target.type}) has no input` });
      return;
    }
    const key = `${c.source}:${c.source_port}:${c.target}`;
    if (seen.has(key)) return;
    seen.add(key);
    connections.push({ source: c.source, source_port: c.source_port, target: c.target });
  });

  if (details.length > 0) {
    throw new AppError("VALIDATION_FAILED", `${details[0]!.path}: ${details[0]!.message}`, { details: details.slice(0, 100) });
  }
  return { nodes, connections };
}
