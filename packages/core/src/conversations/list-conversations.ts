import { rest } from "../shared/rest";
import { authedProcedure } from "../trpc";
import { AppConversationPage, ListConversationsInput } from "./contracts";
import { listConversations as listConversationsVerb } from "./service/read-conversations";

export const listConversations = authedProcedure
  .meta(
    rest("GET", "/app-conversations", "search_app_conversations", {
      summary: "List conversations",
      tag: "App conversations",
    }),
  )
  .input(ListConversationsInput)
  .output(AppConversationPage)
  .query(async ({ ctx, input }) => {
    const page = await listConversationsVerb(ctx.deps, ctx.user.id, input);
    return { items: page.items, next_page_id: page.nextPageId };
  });
