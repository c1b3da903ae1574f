import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { AppConversationPage, SearchConversationsInput } from "../search-contracts";
import { searchConversations as searchConversationsVerb } from "../service/read-conversations";

export const searchConversations = authedProcedure
  .meta(
    rest("GET", "/app-conversations/search", "search_app_conversations", {
      summary: "Search conversations",
      description:
        "OpenHands' search: the same filters and page as `GET /app-conversations` (`sandbox_id__eq`, `created_at__gte`, ... and `sort_order`, default CREATED_AT_DESC).",
      tag: "App conversations",
    }),
  )
  .input(SearchConversationsInput)
  .output(AppConversationPage)
  .query(async ({ ctx, input }) => {
    const page = await searchConversationsVerb(ctx.deps, ctx.user.id, input);
    return { items: page.items, next_page_id: page.nextPageId };
  });
