import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { ConversationEventPage, eventQuery, SearchConversationEventsInput } from "../contracts";
import { searchConversationEvents as searchEventsVerb } from "../service/search-events";

export const searchConversationEvents = authedProcedure
  .meta(
    rest("GET", "/app-conversations/{id}/events", "search_app_conversation_events", {
      summary: "List a conversation's events",
      description:
        "The events the control plane has received from the conversation's agent server, oldest first by default. Available while the sandbox is paused and after the conversation is archived.",
      tag: "App conversations",
      errors: ["CONVERSATION_NOT_FOUND"],
    }),
  )
  .input(SearchConversationEventsInput)
  .output(ConversationEventPage)
  .query(async ({ ctx, input }) => {
    const direction = input.sort_order === "TIMESTAMP_DESC" ? "desc" : "asc";
    const query = eventQuery(input.id, input);
    const page = await searchEventsVerb(ctx.deps, ctx.user.id, query, direction, input);
    return { items: page.items, next_page_id: page.nextPageId };
  });
