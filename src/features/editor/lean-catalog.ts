/**
 * The node catalog as an editor page hands it to the browser: without the help texts, which are
 * two thirds of its 150 KB and were serialized into every editor page (RSC payload and HTML) for
 * the one or two types a visit opens. The editor reads a type's help when it shows it
 * (useNodeHelp: nodes.schema, once per type). The `unknown` type keeps its own (nodes.schema does
 * not serve it), and the API's nodes.list is unchanged.
 */
export function withoutHelp<T extends { type: string; help: string }>(nodes: readonly T[]): T[] {
  return nodes.map((entry) => (entry.type === "unknown" || entry.help === "" ? entry : { ...entry, help: "" }));
}
