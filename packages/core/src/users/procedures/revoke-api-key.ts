import { revokeApiKey as revokeApiKeyVerb } from "../../auth/api-keys";
import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { ApiKeyIdInput, RevokedApiKey } from "../contracts";

export const revokeApiKey = authedProcedure
  .meta(
    rest("DELETE", "/users/me/api-keys/{id}", "revoke_api_key", {
      summary: "Revoke one of the caller's API keys",
      description:
        "Effective at once, also for the key making this request. The last key cannot be revoked (409).",
      tag: "Users",
      errors: ["API_KEY_NOT_FOUND", "LAST_API_KEY"],
    }),
  )
  .input(ApiKeyIdInput)
  .output(RevokedApiKey)
  .mutation(async ({ ctx, input }) => {
    const revoked = await revokeApiKeyVerb(ctx.deps, ctx.user.id, input.id);
    ctx.log.info({ userId: ctx.user.id, keyId: revoked.id }, "API key revoked");
    return { success: true, id: revoked.id };
  });
