import { issueApiKeyRow } from "../../auth/api-keys";
import { AppError, HttpStatus } from "../../errors";
import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { apiKeyOut } from "../api-key-out";
import { CreateApiKeyInput, CreatedApiKey } from "../contracts";

/** Live keys one user may hold; enough for every machine and rotation, not for a runaway script. */
export const MAX_LIVE_KEYS = 100;

export const createApiKey = authedProcedure
  .meta(
    rest("POST", "/users/me/api-keys", "create_api_key", {
      summary: "Create another API key for the caller",
      description:
        "The key is in the answer only; it is stored hashed. Rotate by creating a new key, then revoking the old one.",
      tag: "Users",
      successStatus: HttpStatus.CREATED,
      errors: ["API_KEY_LIMIT_REACHED"],
    }),
  )
  .input(CreateApiKeyInput)
  .output(CreatedApiKey)
  .mutation(async ({ ctx, input }) => {
    const created = await ctx.deps.transaction(async (tx) => {
      // Count and insert in one transaction: concurrent creates cannot pass the limit.
      if ((await tx.users.listLiveKeys(ctx.user.id)).length >= MAX_LIVE_KEYS) {
        throw new AppError(
          "API_KEY_LIMIT_REACHED",
          `A user can hold at most ${MAX_LIVE_KEYS} API keys; revoke one first`,
        );
      }
      return issueApiKeyRow(ctx.deps, ctx.user.id, input.name, undefined, tx);
    });
    ctx.log.info({ userId: ctx.user.id, keyId: created.row.id }, "API key created");
    return { ...apiKeyOut(created.row, ctx.apiKeyHash), api_key: created.key };
  });
