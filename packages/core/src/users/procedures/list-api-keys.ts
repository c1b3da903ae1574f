import { z } from "zod";
import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { apiKeyOut } from "../api-key-out";
import { ApiKeyList } from "../contracts";

export const listApiKeys = authedProcedure
  .meta(
    rest("GET", "/users/me/api-keys", "list_api_keys", {
      summary: "The caller's live API keys",
      description:
        "The caller's keys that are not revoked: id, name, prefix and whether it is the key of this request; never the key itself.",
      tag: "Users",
    }),
  )
  .input(z.object({}))
  .output(ApiKeyList)
  .query(async ({ ctx }) => ({
    items: (await ctx.deps.repos.users.listLiveKeys(ctx.user.id)).map((key) =>
      apiKeyOut(key, ctx.apiKeyHash),
    ),
  }));
