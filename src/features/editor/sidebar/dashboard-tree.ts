import type { ConfigNodeView } from "@/shared/config-nodes";

/**
 * The organization's dashboards as the Dashboard tab lists them: each ui-base with its ui-pages
 * (`config.ui`) and each page's ui-groups (`config.page`), in `config.order` (Dashboard 2.0's
 * property names). Pages or groups whose parent is missing are listed under "Unassigned".
 */
export interface DashboardTreePage {
  node: ConfigNodeView;
  path: string;
  groups: ConfigNodeView[];
}
export interface DashboardTreeBase {
  node: ConfigNodeView | null;
  pages: DashboardTreePage[];
}

export function orderOf(n: ConfigNodeView): number {
  const o = Number(n.config.order);
  return Number.isFinite(o) ? o : Number.MAX_SAFE_INTEGER;
}

function byOrder(a: ConfigNodeView, b: ConfigNodeView): number {
  return orderOf(a) - orderOf(b) || (a.name || a.id).localeCompare(b.name || b.id);
}

export function nodeName(n: ConfigNodeView): string {
  return n.name || (typeof n.config.name === "string" && n.config.name) || n.id;
}

export function buildDashboardTree(nodes: ConfigNodeView[]): DashboardTreeBase[] {
  const bases = nodes.filter((n) => n.type === "ui-base").sort(byOrder);
  const pages = nodes.filter((n) => n.type === "ui-page").sort(byOrder);
  const groups = nodes.filter((n) => n.type === "ui-group").sort(byOrder);
  const pageEntry = (p: ConfigNodeView): DashboardTreePage => ({
    node: p,
    path: typeof p.config.path === "string" && p.config.path ? p.config.path : `/${p.id}`,
    groups: groups.filter((g) => g.config.page === p.id),
  });
  const tree: DashboardTreeBase[] = bases.map((b) => ({ node: b, pages: pages.filter((p) => p.config.ui === b.id).map(pageEntry) }));
  const baseIds = new Set(bases.map((b) => b.id));
  const pageIds = new Set(pages.map((p) => p.id));
  const orphanPages = pages.filter((p) => !baseIds.has(String(p.config.ui)));
  const orphanGroups = groups.filter((g) => !pageIds.has(String(g.config.page)));
  if (orphanPages.length > 0 || orphanGroups.length > 0) {
    const unassigned: DashboardTreeBase = { node: null, pages: orphanPages.map(pageEntry) };
    if (orphanGroups.length > 0) unassigned.pages.push({ node: { id: "", type: "ui-page", name: "No page", config: {}, credentials: {}, revision: 0, used_by: [], created_at: "", updated_at: "" }, path: "", groups: orphanGroups });
    tree.push(unassigned);
  }
  return tree;
}

/**
 * Moves `list[from]` to position `to` and answers the `order` each item must get (1-based, as
 * Dashboard 2.0 numbers them), only for the items whose order changes.
 */
export function reorder(list: ConfigNodeView[], from: number, to: number): { node: ConfigNodeView; order: number }[] {
  if (from === to || from < 0 || to < 0 || from >= list.length || to >= list.length) return [];
  const next = list.slice();
  const [moved] = next.splice(from, 1);
  next.splice(to, 0, moved!);
  return next.flatMap((node, i) => (orderOf(node) === i + 1 ? [] : [{ node, order: i + 1 }]));
}
