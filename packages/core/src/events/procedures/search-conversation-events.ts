import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { ConversationEventPage, eventQuery, SearchEventsInput } from "../contracts";
import { searchConversationEvents } from "../service/search-events";

export const searchEvents = authedProcedure
  .meta(
    rest("GET", "/conversation/{conversation_id}/events/search", "search_events", {
      summary: "Search a conversation's events (OpenHands' path)",
      description:
        "The same stored events as `GET /app-conversations/{id}/events`, at the path and with the parameters OpenHands' clients use: `kind__eq`, `timestamp__gte`, `timestamp__lt`, `sort_order`, `page_id`, `limit`.",
      tag: "Events",
      errors: ["CONVERSATION_NOT_FOUND"],
    }),
  )
  .input(SearchEventsInput)
  .output(ConversationEventPage)
  .query(async ({ ctx, input }) => {
    const direction = input.sort_order === "TIMESTAMP_DESC" ? "desc" : "asc";
    const query = eventQuery(input.conversation_id, input);
    const page = await searchConversationEvents(ctx.deps, ctx.user.id, query, direction, input);
    return { items: page.items, next_page_id: page.nextPageId };
  });
