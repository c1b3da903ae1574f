import { z } from "zod";
import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { CountEventsInput, eventQuery } from "../contracts";
import { countConversationEvents } from "../service/search-events";

export const countEvents = authedProcedure
  .meta(
    rest("GET", "/conversation/{conversation_id}/events/count", "count_events", {
      summary: "Count a conversation's events",
      description:
        "How many stored events of one of the caller's conversations match the same filters as the event search; also while its sandbox is paused and after it is archived.",
      tag: "Events",
      errors: ["CONVERSATION_NOT_FOUND"],
    }),
  )
  .input(CountEventsInput)
  .output(z.number().int())
  .query(({ ctx, input }) =>
    countConversationEvents(ctx.deps, ctx.user.id, eventQuery(input.conversation_id, input)),
  );
