import { z } from "zod";

/**
 * How the editor edits a node type's properties where the JSON Schema alone does not say: declared
 * by the type (`NodeDefinition.form`), sent with the catalog (`GET /nodes`, `nodes.schema`), so the
 * editor decides nothing by a type's or a property's name. Typed inputs need no hint: an operand
 * pair (`<name>` + `<name>_type` whose enum is operand types) is recognised from the schema.
 */
export const formHintSchema = z.discriminatedUnion("widget", [
  /** A code editor (CodeMirror) for a property holding source code. */
  z.object({ widget: z.literal("code"), language: z.enum(["javascript", "sql"]) }),
  /** A multi-line text area, for prose (a comment's body). */
  z.object({ widget: z.literal("multiline") }),
]);
export type FormHint = z.infer<typeof formHintSchema>;

/** Per top-level property of the configuration. */
export const formHintsSchema = z.record(z.string(), formHintSchema);
export type FormHints = z.infer<typeof formHintsSchema>;
