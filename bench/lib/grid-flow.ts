/**
 * A flow of `count` nodes on a grid, ten to a row, each row a chain inject → function/switch → …
 * → debug: the big flows of the editor benchmark and of its Playwright screenshots.
 */
export function gridFlow(count: number, idPrefix: string, name = `${count} nodes`) {
  const nodes: Array<{ id: string; type: string; name: string; position: { x: number; y: number } }> = [];
  const connections: Array<{ source: string; source_port: number; target: string }> = [];
  const perRow = 10;
  for (let i = 0; i < count; i++) {
    const col = i % perRow;
    const type = col === 0 ? "inject" : col === perRow - 1 ? "debug" : col % 3 === 0 ? "switch" : "function";
    nodes.push({ id: `${idPrefix}${i}`, type, name: `${type} ${i}`, position: { x: col * 220, y: Math.floor(i / perRow) * 80 } });
    if (col > 0) connections.push({ source: `${idPrefix}${i - 1}`, source_port: 0, target: `${idPrefix}${i}` });
  }
  return { name, nodes, connections };
}
