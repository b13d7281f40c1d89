import { z } from "zod";
import { apiKeyScopes } from "../../permissions";

export const apiKeyView = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(["user", "device"]),
  prefix: z.string(),
  scopes: z.array(z.enum(apiKeyScopes)),
  expires_at: z.string().nullable(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  created_by: z.string(),
});

export const createApiKeyInput = z.object({
  name: z.string().trim().min(1, "is required").max(100, "must be at most 100 characters"),
  kind: z.enum(["user", "device"]).default("user"),
  scopes: z.array(z.enum(apiKeyScopes)).min(1, "must name at least one scope, or be omitted for all the role allows").max(apiKeyScopes.length).optional(),
  expires_at: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 date-time" })
    .refine((v) => Date.parse(v) > Date.now(), "must be in the future")
    .optional(),
});
export const createApiKeyOutput = z.object({ api_key: apiKeyView, secret: z.string() });
export const listApiKeysOutput = z.object({ api_keys: z.array(apiKeyView) });
export const apiKeyIdInput = z.object({ id: z.string().regex(/^key_[\w-]{10,64}$/, "must be an id starting with key_") });
