import { normalizeFilePath } from "../../../shared/file-paths";
import type { Message, NodeContext, OrgFiles } from "../../runtime/types";
import type { PreparedOperand } from "../../runtime/operands";

/** Node-RED's ENOENT, as fs reports it: the message, and the fields msg.error carries. */
export function notFoundError(syscall: "open" | "unlink", path: string): Error & { code: string; errno: number; syscall: string; path: string } {
  return Object.assign(new Error(`ENOENT: no such file or directory, ${syscall} '${path}'`), { code: "ENOENT", errno: -2, syscall, path });
}

/** The filename a message names: the operand's value as text ("" when none), as Node-RED's evaluateNodeProperty then toString. */
export async function filenameOf(ctx: NodeContext, operand: PreparedOperand, msg: Message): Promise<string> {
  let value = operand.evaluate(ctx, msg);
  if (operand.async) value = await value;
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? value : String(value);
}

/**
 * The organization's files and the normalized path, or the error the node reports (a path that
 * would leave the storage, or no storage in this process): nothing is read or written then.
 */
export function resolveFile(ctx: NodeContext, filename: string, options: { existing?: boolean } = {}): { ok: true; files: OrgFiles; path: string } | { ok: false; error: string } {
  // A read or a delete names a file that exists: named before the byte bounds, it is still reached.
  const normalized = normalizeFilePath(filename, options);
  if (!normalized.ok) return { ok: false, error: `invalid filename "${filename.slice(0, 200)}": ${normalized.problem}` };
  const files = ctx.services.files;
  if (!files) return { ok: false, error: "the organization's files are not available in this runtime" };
  return { ok: true, files, path: normalized.path };
}

/** An error's text as Node-RED's `err.toString()` gives it ("Error: …"). */
export const errorString = (err: unknown) => (err instanceof Error ? `${err.name === "AppError" ? "Error" : err.name}: ${err.message}` : String(err));
