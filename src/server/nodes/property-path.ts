import { z } from "zod";
import { isPropertyPath } from "../runtime/properties";

const MESSAGE = 'must be a property path such as payload.value, payload["a b"] or payload[msg.key] (no __proto__, constructor or prototype)';

/** A message property path, validated by the runtime's own grammar, Node-RED's (see runtime/properties.ts). */
export const propertyPath = z.string().min(1).max(256).refine(isPropertyPath, MESSAGE);

/** "msg" (the whole message) or a property path. */
export const msgOrPropertyPath = z
  .string()
  .min(1)
  .max(256)
  .refine((p) => p === "msg" || isPropertyPath(p), `must be msg or ${MESSAGE.slice("must be ".length)}`);
