import { z } from "zod";
import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { CountConversationsInput } from "../search-contracts";
import { countConversations as countConversationsVerb } from "../service/read-conversations";

export const countConversations = authedProcedure
  .meta(
    rest("GET", "/app-conversations/count", "count_app_conversations", {
      summary: "Count conversations",
      description: "How many of your conversations the search's filters match.",
      tag: "App conversations",
    }),
  )
  .input(CountConversationsInput)
  .output(z.number().int())
  .query(({ ctx, input }) => countConversationsVerb(ctx.deps, ctx.user.id, input));
