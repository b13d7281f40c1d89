/** The part of pg-cursor the postgresql node uses (the package ships no types). */
declare module "pg-cursor" {
  import type { QueryResult } from "pg";

  export default class Cursor {
    constructor(text: string, values?: unknown[]);
    read(rows: number, callback: (err: Error | undefined, rows: Array<Record<string, unknown>>, result: QueryResult) => void): void;
    close(callback?: (err?: Error) => void): void;
  }
}
