/**
 * A flow of `count` nodes on a grid, ten to a row, each row a chain inject → function/switch → …
 * → debug: the big flows of the editor benchmark and of its Playwright screenshots.
 */
export function gridFlow(count: number, idPrefix: string, name = `${count} nodes`, groupCount = 0) {
  const nodes: Array<{ id: string; type: string; name: string; position: { x: number; y: number } }> = [];
  const connections: Array<{ source: string; source_port: number; target: string }> = [];
  const perRow = 10;
  for (let i = 0; i < count; i++) {
    const col = i % perRow;
    const type = col === 0 ? "inject" : col === perRow - 1 ? "debug" : col % 3 === 0 ? "switch" : "function";
    nodes.push({ id: `${idPrefix}${i}`, type, name: `${type} ${i}`, position: { x: col * 220, y: Math.floor(i / perRow) * 80 } });
    if (col > 0) connections.push({ source: `${idPrefix}${i - 1}`, source_port: 0, target: `${idPrefix}${i}` });
  }
  // SPEC §16: `groupCount` named groups of whole rows, from the top (the benchmark's dragged node is in the first).
  const rows = Math.ceil(count / perRow);
  const rowsPerGroup = groupCount > 0 ? Math.max(1, Math.floor(rows / groupCount)) : 0;
  const groups = Array.from({ length: groupCount > 0 ? Math.min(groupCount, rows) : 0 }, (_, g) => ({
    id: `${idPrefix}g${g}`,
    name: `group ${g}`,
    style: { stroke: "#999999", fill: g % 2 ? "#e3f3d3" : "#fff3c4", "fill-opacity": 0.5, label: true },
    nodes: nodes.slice(g * rowsPerGroup * perRow, (g + 1) * rowsPerGroup * perRow).map((n) => n.id),
  }));
  return { name, nodes, connections, groups };
}
