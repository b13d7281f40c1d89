/** One node folder as the generated index (folders.generated.ts, scripts/node-index.ts) lists it. */
export interface NodeFolder {
  folder: string;
  /** definition.ts's exports: every node definition among them is registered. */
  definition: Record<string, unknown>;
  /** behaviour.ts's exports, if the folder has one: every `defineBehaviour` among them is used. */
  behaviour: Record<string, unknown> | undefined;
  /** The folder's SVG files by name: `icon.svg`, or `<type>.svg` where the folder holds several types. */
  icons: Record<string, string>;
}
