import { z } from "zod";
import { authedProcedure, router, requestMeta } from "../trpc";
import * as s from "../../services/api-keys/api-key.schemas";
import { createApiKey, listApiKeys, revokeApiKey } from "../../services/api-keys/api-keys";

const tags = ["api keys"];

export const apiKeysRouter = router({
  create: authedProcedure
    .meta({
      permission: "api_keys:manage_own",
      rest: { method: "POST", path: "/api-keys", status: 201 },
      summary: "Create an API key; the secret is shown only in this response",
      description: "`service_` keys (kind `user`, member+) call the REST API; `device_` keys (kind `device`, admin+) connect devices over /ws. Scopes default to everything the creator's role allows, and always shrink with it.",
      tags,
    })
    .input(s.createApiKeyInput)
    .output(s.createApiKeyOutput)
    .mutation(({ ctx, input }) => createApiKey(ctx.services, ctx.principal, input, requestMeta(ctx))),

  list: authedProcedure
    .meta({ permission: "api_keys:manage_own", rest: { method: "GET", path: "/api-keys" }, summary: "API keys (mine; admins see all), never their secrets", tags })
    .output(s.listApiKeysOutput)
    .query(({ ctx }) => listApiKeys(ctx.services, ctx.principal)),

  revoke: authedProcedure
    .meta({ permission: "api_keys:manage_own", rest: { method: "DELETE", path: "/api-keys/{id}", status: 204 }, summary: "Revoke an API key (mine; admins: any)", tags })
    .input(s.apiKeyIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => revokeApiKey(ctx.services, ctx.principal, input.id, requestMeta(ctx))),
});
