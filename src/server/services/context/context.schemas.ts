import { z } from "zod";
import { flowIdSchema } from "../flows/flow.schemas";
import { MAX_CONTEXT_KEY_LENGTH } from "../../runtime/context/context-key";

/** A context key as REST names it: any text of 1 to 256 characters (context-key.ts: the flows' bound too) without control characters. */
export const contextKeySchema = z
  .string()
  .min(1)
  .max(MAX_CONTEXT_KEY_LENGTH)
  .refine((key) => ![...key].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), "must not contain control characters")
  .refine((key) => key !== "__proto__" && key !== "constructor" && key !== "prototype", "is a reserved name");

const jsonValue = z.unknown().refine((value) => value !== undefined, "is required (any JSON value)");

export const contextMapSchema = z.record(z.string(), z.unknown());
export const contextOutput = z.object({ context: contextMapSchema });

export const flowContextInput = z.object({ id: flowIdSchema });
export const flowContextKeyInput = z.object({ id: flowIdSchema, key: contextKeySchema });
export const putFlowContextInput = z.object({ id: flowIdSchema, key: contextKeySchema, value: jsonValue });
export const globalContextKeyInput = z.object({ key: contextKeySchema });
export const putGlobalContextInput = z.object({ key: contextKeySchema, value: jsonValue });
