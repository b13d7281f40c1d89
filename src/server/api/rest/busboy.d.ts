// Types for the busboy 1.6 that Next ships compiled (next/dist/compiled/busboy): the part we use.
declare module "next/dist/compiled/busboy" {
  import type { Writable } from "node:stream";
  interface BusboyConfig {
    headers: Record<string, string | undefined>;
    limits?: { fieldNameSize?: number; fieldSize?: number; fields?: number; fileSize?: number; files?: number; parts?: number; headerPairs?: number };
    defParamCharset?: string;
    preservePath?: boolean;
  }
  interface FileInfo {
    filename: string;
    encoding: string;
    mimeType: string;
  }
  interface FieldInfo {
    nameTruncated: boolean;
    valueTruncated: boolean;
    encoding: string;
    mimeType: string;
  }
  interface Busboy extends Writable {
    on(event: "file", listener: (name: string, stream: NodeJS.ReadableStream & { truncated?: boolean }, info: FileInfo) => void): this;
    on(event: "field", listener: (name: string, value: string, info: FieldInfo) => void): this;
    on(event: "partsLimit" | "filesLimit" | "fieldsLimit" | "close" | "finish", listener: () => void): this;
    on(event: "error", listener: (err: Error) => void): this;
  }
  function busboy(config: BusboyConfig): Busboy;
  export = busboy;
}
