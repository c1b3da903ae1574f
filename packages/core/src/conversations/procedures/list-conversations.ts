import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { ListConversationsInput, ListConversationsOutput } from "../search-contracts";
import { batchGetConversations, searchConversations } from "../service/read-conversations";

export const listConversations = authedProcedure
  .meta(
    rest("GET", "/app-conversations", "search_app_conversations", {
      summary: "List conversations, or read a batch of them by id",
      description:
        "Without `ids`: a page of your conversations (filters, `sort_order`, paging). With `ids` (OpenHands' batch read, `ids=a&ids=b`): an array aligned with `ids`, each conversation as `GET /app-conversations/{id}` reads it, null where one is unknown or not yours.",
      tag: "App conversations",
    }),
  )
  .input(ListConversationsInput)
  .output(ListConversationsOutput)
  .query(async ({ ctx, input }) => {
    if (input.ids) return batchGetConversations(ctx.deps, ctx.user.id, input.ids);
    const page = await searchConversations(ctx.deps, ctx.user.id, input);
    return { items: page.items, next_page_id: page.nextPageId };
  });
